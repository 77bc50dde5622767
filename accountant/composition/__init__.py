"""Layer 3 of the accountant: many shuffled rounds.

Privacy loss distributions on a uniform grid and their composition (:mod:`.pld`), rounds and
what a round is and schedules read from JSON (:mod:`.rounds`), the composition of identical
or heterogeneous shuffled rounds (:mod:`.compose`), and the certified lower bound of a
composition from one dataset pair used in every round (:mod:`.lower`).

May import: :mod:`accountant.core`, :mod:`accountant.engines`, :mod:`accountant.bounds` (the registry,
the random-hash relaxation, binary RR's exact profile, the lower bounds' datasets).
"""
