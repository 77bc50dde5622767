"""Layer 2 of the accountant: every central-epsilon bound, with its proof status as data.

The registry (:mod:`.registry`: one :class:`BoundSpec` per bound, what it is proved for, its
reference), the literature's closed forms (:mod:`.closed_form`), the privacy-blanket
relaxations of Balle et al. (:mod:`.blanket_relaxations`), the paper's dominating pair as an
accountant (:mod:`.pair_accountant`) and the mechanisms' output laws behind the exact blanket
and the certified lower bounds (:mod:`.laws`).

May import: :mod:`accountant.core`, :mod:`accountant.engines`.
"""
