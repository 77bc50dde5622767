"""Local randomizers, estimators, exact error formulas and baselines for sparse
numerical vectors (Wang et al., Sections 5, 7 and 8; Zhou et al. SUCCINCT)."""
