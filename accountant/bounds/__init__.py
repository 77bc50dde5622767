"""Layer 2 of the accountant: every central-epsilon bound, with its proof status as data.

The registry (:mod:`.registry`: one :class:`BoundSpec` per bound, what it is proved for, its
reference), the literature's closed forms (:mod:`.closed_form`), the privacy-blanket
relaxations of Balle et al. (:mod:`.blanket_relaxations`), the paper's dominating pair as an
accountant (:mod:`.pair_accountant`), the mechanisms' output laws behind the exact blanket
and the certified lower bounds (:mod:`.laws`) and the central-limit estimates of how close a
blanket bound can come to them (:mod:`.decomposition_limit`; estimates, never reported as bounds).

May import: :mod:`accountant.core`, :mod:`accountant.engines`.
"""
