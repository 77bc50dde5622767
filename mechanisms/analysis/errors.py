"""Error formulas by name: one record per hashed mechanism (:class:`HashedErrors`: its MSE,
its t rule, its default t, its rates), the t that minimises an estimator's error, and
``analytic_errors``, every estimator's error of one configuration (what the mechanisms CLI
and the Utility page show).
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Callable
import numpy as np
from mechanisms.analysis.common import (
    COCO_T,
    COLLISION_T,
    T_MAX,
    TRule,
    check_coco_t,
    check_eps0,
    check_int,
    coco_t_default,
    collision_t_star,
)
from mechanisms.analysis.collision import collision_mean_mse_paper_bound, collision_mse, collision_rates
from mechanisms.analysis.coco import coco_mse, coco_rates


@dataclass(frozen=True)
class HashedErrors:
    """What the error formulas know of one hashed mechanism: ``mse(n, d, s, eps0, t)``, its
    admissible t (``t_rule``), its default t ``default_t(s, eps0)`` and where it comes from
    (``default_source``), the check of a given t ``check_t(t, s)``, and ``rates(n, d, s, eps0,
    t)``: its collision rates (and any further error figure) as the keys of
    :func:`analytic_errors`."""

    name: str
    mse: Callable
    t_rule: TRule
    default_t: Callable
    default_source: str
    check_t: Callable
    rates: Callable


def _collision_rates(n, d, s, e, t) -> dict:
    pt, pf, po = collision_rates(s, e, t)
    return dict(Pt=float(pt), Pf=float(pf), Po=float(po), P_ow=None,
                mse_mean_paper_bound=float(collision_mean_mse_paper_bound(n, d, s, e, t)))


def _coco_rates(n, d, s, e, t) -> dict:
    r = coco_rates(s, e, t)
    return dict(Pt=float(r.Pt), Pf=float(r.Pf), Po=float(r.Po), P_ow=float(r.P_ow))


HASHED = {h.name: h for h in (
    HashedErrors("collision", collision_mse, COLLISION_T, collision_t_star,
                 "paper t* = floor(s e^eps0 + 2s - 1)", lambda t, s: check_int("t", t, s + 1, T_MAX),
                 _collision_rates),
    HashedErrors("coco", coco_mse, COCO_T, coco_t_default,
                 "Theorem 7 (11): smallest even t >= ceil(s e^eps0 + s + 2)", check_coco_t, _coco_rates),
)}
"""The hashed mechanisms' error records, by name."""


def hashed_errors(mechanism: str) -> HashedErrors:
    """The error record of ``mechanism`` (ValueError naming the hashed mechanisms otherwise)."""
    if not isinstance(mechanism, str) or mechanism not in HASHED:
        raise ValueError(f"mechanism must be {' or '.join(map(repr, HASHED))}, got {mechanism!r}")
    return HASHED[mechanism]


# --------------------------------------------------------------------------- optimum t
_ESTIMATORS = ("mean", "nonmissing", "item")


def optimal_t(mechanism: str, estimator: str, d: int, s: int, eps0: float,
              t_max: int | None = None) -> tuple[int, float]:
    """Integer ``t`` minimising the exact MSE of one estimator (``n = 1``).

    Exhaustive search over the admissible integers (Collision: ``s < t``; CoCo: even
    ``t >= 2s + 2``) up to ``t_max`` (default: ``max(4 (s e^eps0 + 5s), 64) + 64``,
    doubled while the minimum sits on the upper end).  When the range would exceed
    4 million candidates, the search is a bounded scalar minimisation in ``log t``
    followed by an exhaustive scan of +-2000 admissible integers around it.

    Returns ``(t_opt, mse_at_t_opt)`` with the MSE for ``n = 1``.

    Parameters
    ----------
    mechanism : str
        ``"collision"`` or ``"coco"``.
    estimator : str
        ``"mean"``, ``"nonmissing"`` or ``"item"``.
    d, s : int
        Dimension and non-zero coordinates per user.
    eps0 : float
        Local budget (> 0).
    t_max : int, optional
        Largest t searched.

    Returns
    -------
    tuple of (int, float)
        ``(t_opt, mse_at_t_opt)`` for ``n = 1``.

    Examples
    --------
    >>> from mechanisms import optimal_t
    >>> t, mse = optimal_t("collision", "mean", d=16, s=2, eps0=2.0)
    >>> print(t, f"{mse:.3f}")
    16 56.695
    """
    h = hashed_errors(mechanism)
    fn = h.mse
    if estimator not in _ESTIMATORS:
        raise ValueError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
    d = check_int("d", d, 1)
    s = check_int("s", s, 1, d)
    e = check_eps0(eps0)
    lo, step, cap = h.t_rule.smallest(s), h.t_rule.step, h.t_rule.top

    def f(tt):
        return np.asarray(getattr(fn(1, d, s, e, tt), estimator), dtype=np.float64)

    if t_max is None:
        hi = int(min(cap, max(4 * (s * math.exp(min(e, 60.0)) + 5 * s), 64) + 64))
        auto = True
    else:
        hi = check_int("t_max", t_max, lo, cap)
        auto = False
    while True:
        if (hi - lo) // step + 1 <= 4_000_000:
            grid = np.arange(lo, hi + 1, step, dtype=np.int64)
            vals = f(grid)
            k = int(np.nanargmin(vals))
            if auto and k == grid.size - 1 and hi < cap:
                hi = min(cap, 2 * hi)
                continue
            return int(grid[k]), float(vals[k])
        # very large range: continuous search in log t, then exhaustive window
        from scipy.optimize import minimize_scalar

        def g(logt):
            tt = int(round(math.exp(logt)))
            tt = max(lo, min(hi, tt - ((tt - lo) % step)))
            return float(f(np.array([tt]))[0])

        res = minimize_scalar(g, bounds=(math.log(lo), math.log(hi)), method="bounded")
        c = int(round(math.exp(res.x)))
        c = c - ((c - lo) % step)
        a = max(lo, c - 2000 * step)
        b = min(hi, c + 2000 * step)
        grid = np.arange(a, b + 1, step, dtype=np.int64)
        vals = f(grid)
        k = int(np.nanargmin(vals))
        return int(grid[k]), float(vals[k])


# --------------------------------------------------------------------------- one-stop
def analytic_errors(mechanism: str, n: int, d: int, s: int, eps0: float, t: int | None = None) -> dict:
    """Exact errors and collision rates of Collision or CoCo, for the dashboard / CLI.

    Returns a dict with ``mechanism, n, d, s, eps0, t, t_source, mse_mean,
    mse_nonmissing, mse_item, Pt, Pf, Po, P_ow, data_model`` and, for Collision,
    ``mse_mean_paper_bound`` (Theorem 4 proof).  ``P_ow`` is ``None`` for Collision
    (it has no overwrite step).  The MSEs are exact for *every* dataset of ``n``
    users in ``X_s`` (``data_model`` says so): the sums over coordinates do not
    depend on the data.  ``t=None`` uses the paper's choice (``t*`` for Collision,
    Theorem 7 (11) for CoCo).

    Parameters
    ----------
    mechanism : str
        ``"collision"`` or ``"coco"``.
    n, d, s, eps0 :
        Users, dimension, non-zeros per user and local budget, as
        :func:`mechanisms.analysis.collision_mse` (eps0 a number here).
    t : int, optional
        Output size (default: the paper's choice).

    Returns
    -------
    dict
        The keys listed above.

    Examples
    --------
    >>> from mechanisms import analytic_errors
    >>> e = analytic_errors("coco", 100_000, 256, 8, 1.0)
    >>> print(e["t"], f"{e['mse_mean']:.5f}", f"{e['mse_item']:.5f}")
    32 0.17589 0.30241
    """
    n = check_int("n", n, 1)
    d = check_int("d", d, 1)
    s = check_int("s", s, 1, d)
    e = check_eps0(eps0)
    out: dict = {"mechanism": mechanism, "n": n, "d": d, "s": s, "eps0": e}
    h = hashed_errors(mechanism)
    if t is None:
        t = h.default_t(s, e)
        out["t_source"] = h.default_source
    else:
        t = h.check_t(t, s)
        out["t_source"] = "user"
    m = h.mse(n, d, s, e, t)
    out.update(t=int(t), mse_mean=float(m.mean), mse_nonmissing=float(m.nonmissing),
               mse_item=float(m.item), **h.rates(n, d, s, e, t))
    out["data_model"] = ("exact for every dataset of n users with exactly s non-zeros each "
                         "(the summed MSEs are data-independent); uniformly random hashing")
    return out
