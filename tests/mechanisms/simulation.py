"""What the Collision and CoCo test modules share: the check of a mechanism's simulated error
against its exact MSE formula, and random reports (hash seed, output) for the server's counts."""
import math

import numpy as np

from mechanisms.evaluation.synthetic import synthetic_sparse_vectors


def assert_simulated_mse(mech, exact, rng, n: int, reps: int) -> None:
    """``reps`` fresh synthetic datasets of n users, each simulated once: the mean summed
    squared error of each estimate (mean, nonmissing, item) is within 4 standard errors of
    ``exact`` (the formula's totals), and the test resolves 6% of it."""
    d, s = mech.d, mech.s
    sq = {"mean": [], "nonmissing": [], "item": []}
    for _ in range(reps):
        data = synthetic_sparse_vectors(rng, n, d, s)
        est = mech.simulate(data, rng)
        sq["mean"].append(((est.mean - data.means()) ** 2).sum())
        sq["nonmissing"].append(((est.nonmissing - data.nonmissing_frequencies()) ** 2).sum())
        sq["item"].append(((est.item_freq - data.item_frequencies()) ** 2).sum())
    for k, vals in sq.items():
        vals = np.asarray(vals)
        se = vals.std(ddof=1) / math.sqrt(reps)
        assert abs(vals.mean() - getattr(exact, k)) < 4 * se, k
        assert se < 0.06 * getattr(exact, k)


def random_reports(rng, users: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """``users`` reports of a hashed mechanism: a uniform 64-bit hash seed and output in [t]."""
    return rng.integers(0, 2**64, size=users, dtype=np.uint64), rng.integers(0, t, size=users)
