"""Layer 2 of the accountant: exact accounting of whole protocols.

The balls-into-bins protocol of Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a single message" (:mod:`.bib`).

May import: :mod:`accountant.core`, :mod:`accountant.engines`.
"""
