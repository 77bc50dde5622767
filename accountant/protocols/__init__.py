"""Layer 2 of the accountant: exact accounting of whole protocols.

The balls-into-bins protocol of the frequency-estimation seed paper (:mod:`.bib`).

May import: :mod:`accountant.core`, :mod:`accountant.engines`.
"""
