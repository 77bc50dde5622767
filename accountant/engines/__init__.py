"""Layer 1 of the accountant: exact numerical engines.

Binomial kernels (:mod:`.binomial`), saddle-point starts (:mod:`.saddle`), monotone searches
(:mod:`.search`), the thread map (:mod:`.parallel`), the hockey-stick divergence of dominating
pairs with its high-precision and certified paths (:mod:`.pair`), the exact privacy-blanket
engine (:mod:`.blanket`), the certified lattice blanket for laws with many atoms (:mod:`.lattice`)
with its Berry-Esseen screen (:mod:`.berry_esseen`) and FFT convolutions with Higham's error bound
(:mod:`.fftconv`), and brute-force enumeration of shuffled outputs on tiny instances
(:mod:`.enumeration`). Engines know laws and numbers, not papers or bounds.

May import: :mod:`accountant.core`.
"""
