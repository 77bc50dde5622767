"""Shared helpers for the baseline mechanisms of Wang et al., Section 8.

Contents
--------
* parameter validation (``ValueError`` naming the parameter and its valid range),
* conversion of a dataset / item-frequency vector to the (2d,) item frequencies that
  all the analytic error formulas need,
* the "two-indicator" variance calculus shared by PrivKV and PCKV: for a fixed key
  ``k`` every user's report is summarised by two indicators ``e1 = [report says
  (k, +1)]`` and ``e2 = [report says (k, -1)]`` (never both 1), and every estimator
  of this package is (an affine function of, or for the biased ones a smooth
  function of) the averages of ``e1`` and ``e2``,
* exact moments of ``1 / m`` for ``m ~ Binomial(n, 1/d)`` (PrivKV's group sizes),
* a vectorised 64-bit mixing hash standing in for the random oracle / PRF of
  SUCCINCT (Zhou et al., Remark 4 and Algorithm 1, lines 3-4),
* :class:`BaselineMechanism`, the common base class (``simulate``,
  ``analytic_mse``, ``analytic_mse_default``).
"""
from __future__ import annotations

import itertools
import math
from numbers import Integral, Real

import numpy as np
from scipy import stats

from mechanisms.core.data import Estimates, SparseVectors

# --------------------------------------------------------------------------- validation


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """Return ``int(value)`` or raise ``ValueError`` naming ``name`` and the range [lo, hi]."""
    rng_txt = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer {rng_txt}, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{name} must be an integer {rng_txt}, got {v}")
    return v


def check_real(name: str, value, lo: float, hi: float, *, lo_open: bool = True,
               hi_open: bool = False) -> float:
    """Return ``float(value)`` or raise ``ValueError`` naming ``name`` and its interval."""
    lb = "(" if lo_open else "["
    rb = ")" if hi_open else "]"
    txt = f"{lb}{lo}, {hi}{rb}"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number in {txt}, got {value!r}")
    v = float(value)
    ok = math.isfinite(v) or (v == math.inf and hi == math.inf and not hi_open)
    ok = ok and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok:
        raise ValueError(f"{name} must be a real number in {txt}, got {v}")
    return v


def check_data(data: SparseVectors, d: int, s: int) -> None:
    """Check that ``data`` matches the mechanism's (d, s)."""
    if not isinstance(data, SparseVectors):
        raise ValueError(f"data must be a SparseVectors instance, got {type(data).__name__}")
    if data.d != d:
        raise ValueError(f"data.d must equal the mechanism's d={d}, got {data.d}")
    if data.s != s:
        raise ValueError(f"data.s must equal the mechanism's s={s}, got {data.s}")
    if data.n < 1:
        raise ValueError("data must hold at least one user (n >= 1)")


def report_columns(n, *columns) -> tuple[int, list[np.ndarray]]:
    """``n`` (an integer >= 1) and each column of the reports as an array of n entries, or
    ValueError."""
    n = check_int("n", n, 1)
    arrays = [np.asarray(c) for c in columns]
    if any(a.shape != (n,) for a in arrays):
        raise ValueError(f"reports must hold n={n} entries")
    return n, arrays


def check_input(x_indices, x_signs, d: int, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate a single user's input for ``output_distribution``."""
    idx = np.asarray(x_indices, dtype=np.int64).ravel()
    sg = np.asarray(x_signs, dtype=np.int64).ravel()
    if idx.shape != (s,) or sg.shape != (s,):
        raise ValueError(f"x_indices and x_signs must have length s={s}")
    if np.any(idx < 0) or np.any(idx >= d) or len(set(idx.tolist())) != s:
        raise ValueError(f"x_indices must be {s} distinct integers in [0, d) = [0, {d})")
    if not np.all(np.abs(sg) == 1):
        raise ValueError("x_signs must be +1 or -1")
    return idx, sg


def all_inputs(d: int, s: int):
    """Yield every input of X^s as ``(indices, signs)`` (small d only: C(d,s) 2^s inputs)."""
    for idx in itertools.combinations(range(d), s):
        for sg in itertools.product((-1, 1), repeat=s):
            yield np.array(idx, dtype=np.int64), np.array(sg, dtype=np.int64)


# --------------------------------------------------------------------------- data summaries


def as_item_freq(data, d: int, n: int | None) -> tuple[np.ndarray, int]:
    """Return ``(item_freq (2d,), n)`` from a ``SparseVectors`` or an item-frequency vector.

    ``data`` may be a :class:`SparseVectors` (then ``n`` defaults to ``data.n``) or an
    array of shape (2d,) of item frequencies in the layout of
    ``SparseVectors.item_frequencies`` (index 2j is j-, 2j+1 is j+), in which case ``n``
    is required.
    """
    if isinstance(data, SparseVectors):
        if data.d != d:
            raise ValueError(f"data.d must equal the mechanism's d={d}, got {data.d}")
        f = data.item_frequencies()
        n = data.n if n is None else n
    else:
        f = np.asarray(data, dtype=np.float64)
        if f.shape != (2 * d,):
            raise ValueError(f"item frequencies must have shape (2d,) = ({2 * d},), got {f.shape}")
        if n is None:
            raise ValueError("n is required when item frequencies are passed")
    n = check_int("n", n, 1)
    if np.any(f < -1e-12) or np.any(f[0::2] + f[1::2] > 1 + 1e-12):
        raise ValueError("item frequencies must be >= 0 with freq(j-) + freq(j+) <= 1")
    return np.clip(f, 0.0, 1.0), n


def default_item_freq(d: int, s: int, key_fraction: float | None = None,
                      pos_fraction: float = 0.5) -> np.ndarray:
    """Item frequencies of the default data used for dashboards.

    Every key is held by a fraction ``key_fraction`` of the users (default ``s / d``,
    the paper's Section 8 synthetic data in expectation: non-zero coordinates uniform
    over [d]); a fraction ``pos_fraction`` of the holders has value +1 (default 1/2,
    "each dimension has an equal probability of being -1 or 1").
    """
    kf = s / d if key_fraction is None else check_real("key_fraction", key_fraction, 0.0, 1.0,
                                                       lo_open=False)
    pf = check_real("pos_fraction", pos_fraction, 0.0, 1.0, lo_open=False)
    f = np.empty(2 * d)
    f[1::2] = kf * pf
    f[0::2] = kf * (1.0 - pf)
    return f


# --------------------------------------------------------------------------- variance calculus


def type_probabilities(f_plus: np.ndarray, f_minus: np.ndarray):
    """Fractions of the three user types w.r.t. each key: holds k+, holds k-, holds neither.

    Returns an array of shape (3, d).
    """
    return np.stack([f_plus, f_minus, np.clip(1.0 - f_plus - f_minus, 0.0, 1.0)])


def two_indicator_moments(P1: np.ndarray, P2: np.ndarray, frac: np.ndarray,
                          w1, w2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Moments of the per-user score ``w1 * e1 + w2 * e2`` (``e1 e2 = 0``).

    Parameters
    ----------
    P1, P2 : (3, d) arrays, ``P(e1 = 1)``, ``P(e2 = 1)`` for each user type and key.
    frac : (3, d) array, fraction of users of each type.
    w1, w2 : scalars or (d,) arrays of weights.

    Returns
    -------
    noise : (d,) population average of the per-user randomisation variance
        ``sum_t frac_t Var_t(score)``.
    data : (d,) population variance of the per-user expected score
        ``sum_t frac_t (mu_t - mean)^2``.
    mean : (d,) population mean of the expected score.
    """
    mu = w1 * P1 + w2 * P2
    var = w1 * w1 * P1 + w2 * w2 * P2 - mu * mu
    noise = np.sum(frac * var, axis=0)
    mean = np.sum(frac * mu, axis=0)
    data = np.sum(frac * (mu - mean) ** 2, axis=0)
    return np.maximum(noise, 0.0), np.maximum(data, 0.0), mean


def binom_reciprocal_moments(n: int, prob: float) -> tuple[float, float, float]:
    """Exact moments of a group size ``m ~ Binomial(n, prob)``.

    Returns ``(E[1/m; m >= 1], E[(n - m) / (m (n - 1)); m >= 1], P(m = 0))`` (the middle
    one is the finite-population correction of the variance of a sample mean over a
    uniformly random subset of size m; it is 0 when n = 1).
    """
    n = int(n)
    if prob >= 1.0:
        inv = 1.0 / n
        fpc = 0.0
        return inv, fpc, 0.0
    sd = math.sqrt(n * prob * (1 - prob))
    lo = max(1, int(math.floor(n * prob - 60 * sd - 60)))
    hi = min(n, int(math.ceil(n * prob + 60 * sd + 60)))
    m = np.arange(lo, hi + 1, dtype=np.float64)
    pmf = stats.binom.pmf(m, n, prob)
    inv = float(np.sum(pmf / m))
    if n > 1:
        fpc = float(np.sum(pmf * (n - m) / (m * (n - 1))))
    else:
        fpc = 0.0
    p0 = float(stats.binom.pmf(0, n, prob))
    return inv, fpc, p0


_GH_X, _GH_W = np.polynomial.hermite.hermgauss(48)


def binom_nodes(N, p, q: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Quadrature nodes/weights for X ~ Binomial(N, p), vectorised over arrays N, p.

    Where sd = sqrt(N p (1 - p)) <= q / 16 the nodes are the q consecutive integers of a
    window centred on the mean (covering >= +-8 sd) with the exact pmf as weights;
    otherwise 48 Gauss-Hermite nodes of the normal approximation (non-integer nodes,
    clipped to [0, N]).  ``N`` is rounded to an integer.  Returns arrays of shape
    ``broadcast(N, p).shape + (q,)`` (Gauss-Hermite rows padded with zero weights).
    """
    N = np.rint(np.asarray(N, dtype=np.float64))
    p = np.asarray(p, dtype=np.float64)
    N, p = np.broadcast_arrays(N, p)
    mean = N * p
    sd = np.sqrt(N * p * (1 - p))
    lo = np.clip(np.rint(mean - (q - 1) / 2), 0, np.maximum(N - q + 1, 0))
    ex_nodes = lo[..., None] + np.arange(q)
    ex_w = stats.binom.pmf(ex_nodes, N[..., None], p[..., None])
    gh_nodes = np.zeros(N.shape + (q,))
    gh_w = np.zeros(N.shape + (q,))
    k = len(_GH_X)
    gh_nodes[..., :k] = np.clip(mean[..., None] + math.sqrt(2) * sd[..., None] * _GH_X, 0,
                                N[..., None])
    gh_w[..., :k] = _GH_W / math.sqrt(math.pi)
    use_exact = (sd <= q / 16)[..., None]
    return np.where(use_exact, ex_nodes, gh_nodes), np.where(use_exact, ex_w, gh_w)


# --------------------------------------------------------------------------- hashing

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def hash_signs(seeds: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Pseudo-random signs ``sigma_seed(key)`` in {-1, +1} (int8), broadcasting.

    SplitMix64 finaliser applied to ``seed + (key + 1) * golden``; the top bit gives
    the sign.  This instantiates the hash ``s_i : [d] -> {-1, +1}`` of SUCCINCT
    (Zhou et al., Algorithm 1 line 4, "instantiate the hash functions using
    pseudorandom functions", Remark 4) so that a user's report is the seed plus a
    real number; privacy does not depend on the hash (it holds for every fixed sign
    function).
    """
    s = np.asarray(seeds, dtype=np.uint64)
    k = np.asarray(keys, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = s + (k + np.uint64(1)) * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    return (1 - 2 * (z >> np.uint64(63)).astype(np.int8)).astype(np.int8)


# --------------------------------------------------------------------------- base class


class BaselineMechanism:
    """Common interface of the Section-8 baselines.

    Subclasses implement ``randomize``, ``estimate``, ``output_distribution`` and
    ``analytic_mse_per_coordinate``.
    """

    name: str = "baseline"

    def __init__(self, d: int, s: int, eps0: float) -> None:
        self.d = check_int("d", d, 1)
        self.s = check_int("s", s, 1, self.d)
        self.eps0 = check_real("eps0", eps0, 0.0, math.inf, hi_open=True)

    # -- convenience ------------------------------------------------------------------
    def simulate(self, data: SparseVectors, rng: np.random.Generator) -> Estimates:
        """``estimate(randomize(data, rng), data.n)``."""
        return self.estimate(self.randomize(data, rng), data.n)

    def randomize(self, data: SparseVectors, rng: np.random.Generator):  # pragma: no cover
        raise NotImplementedError

    def estimate(self, reports, n: int) -> Estimates:  # pragma: no cover
        raise NotImplementedError

    def analytic_mse_per_coordinate(self, data=None, n: int | None = None) -> dict:
        """Per-coordinate MSE arrays (d,), (d,), (2d,); see the subclass docstring."""
        raise NotImplementedError  # pragma: no cover

    def _resolve(self, data, n) -> tuple[np.ndarray, int]:
        """Normalise the (data, n) arguments of the analytic methods.

        Accepts ``(data, n)``, ``(n, data)`` (the order used by Collision/CoCo's
        ``analytic_mse(n, data=None)``) and ``(n,)`` alone (default data, see
        :func:`default_item_freq`).  Returns ``(item_freq (2d,), n)``.
        """
        if isinstance(data, Integral) and not isinstance(data, bool):
            data, n = n, data
        if data is None:
            if n is None:
                raise ValueError("n is required")
            n = check_int("n", n, 1)
            return default_item_freq(self.d, self.s), n
        return as_item_freq(data, self.d, n)

    def analytic_mse(self, data=None, n: int | None = None) -> dict:
        """Sums over coordinates / items of the per-coordinate MSEs.

        Parameters
        ----------
        data : SparseVectors, or (2d,) array of item frequencies (index 2j is j-, 2j+1
            is j+), or None for the default data of :meth:`analytic_mse_default`.
        n : number of users (defaults to ``data.n`` for a ``SparseVectors``).
            ``analytic_mse(n, data)`` (Collision/CoCo's argument order) and
            ``analytic_mse(n)`` are accepted too.

        Returns
        -------
        dict with float entries ``mse_mean`` (sum over the d coordinate means),
        ``mse_nonmissing`` (sum over the d non-missing frequencies) and ``mse_item``
        (sum over the 2d item frequencies).  See the subclass docstring of
        ``analytic_mse_per_coordinate`` for which are exact and which approximate.
        """
        per = self.analytic_mse_per_coordinate(data, n)
        return {k: float(np.sum(v)) for k, v in per.items()}

    def analytic_mse_default(self, n: int, key_fraction: float | None = None,
                             pos_fraction: float = 0.5) -> dict:
        """``analytic_mse`` on default data depending on (n, d, s, eps0) only.

        Every key is held by a fraction ``key_fraction`` of the users (default s/d),
        a fraction ``pos_fraction`` of them with value +1 (default 1/2); see
        :func:`default_item_freq`.
        """
        n = check_int("n", n, 1)
        f = default_item_freq(self.d, self.s, key_fraction, pos_fraction)
        return self.analytic_mse(f, n)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(d={self.d}, s={self.s}, eps0={self.eps0})"
