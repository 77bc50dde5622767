"""Hockey-stick divergence of the shuffle model's dominating pairs.

The pair (Feldman, McMillan, Talwar 2023, Theorem 3.2; Wang et al. (numerical vector analyses) Theorem 1):
C ~ Bin(n-1, c), A ~ Bin(C, 1/2), and (D1, D2) = (1,0) w.p. p, (0,1) w.p. q,
(0,0) w.p. r = 1 - p - q;  P = (A + D1, C - A + D2), Q = (A + D2, C - A + D1).

* stronger clone reduction with mixture weight a: c = 2a, p = e^eps0 a, q = a;
* clone reduction (FMT 2021, Theorem 3.2): c = e^-eps0, p = e^eps0/(e^eps0+1),
  q = 1/(e^eps0+1), r = 0.

One-dimensional reduction (see shared/NOTES-accounting.md section 2).  With
m = x + y and b(x; m) = C(m, x) 2^-m,

    P(x, y) - e^eps Q(x, y) = b(x; m) (G_m / m) (x - c_m),
    G_m = 2 B_{m-1} (p - q)(1 + e^eps),      B_j = P[C = j],
    c_m = m/2 + h_m,  h_m = tanh(eps/2) / (2(p - q)) * (m (p+q) + r c (n-m)/(1-c)),

so the threshold is linear in m and the positive part is the tail x >= k_m =
floor(c_m) + 1.  With T = P[Bin(m,1/2) >= k], the identity
sum_{x>=k} (x - m/2) b(x; m) = (k/2) b(k; m) gives, exactly,

    D_m = (G_m / m) b(k; m) (k/2 - h_m R_m),      R_m = T / b(k; m),

and delta(eps) = sum_{m=1}^{n} D_m.  Along the path m -> m+1 the ratio R obeys an
affine recurrence (k unchanged: R' = (2(m+1-k) R + k)/(m+1); k+1:
R' = (2R - 1)(k+1)/(m+1)), which is evaluated in blocks between exact anchors by
cumulative sums, so the whole sum is vectorised.  The window of m follows the
requested delta: the mass left out is bounded by a Chernoff bound on C and added.

Three evaluations of the window sum: ``float`` (this module), ``mpmath`` (reference,
checked at two precisions) and ``arb`` (certified balls), see ``precision.py``; all
report log(delta) so that values below 1e-308 are available.

The derivative d delta / d eps = -e^eps Q(S_eps) (S_eps the positive set) comes
from the same quantities and drives the Newton search in ``search.py``.
"""
from accountant.engines.pair.law import (  # noqa: F401
    DivergenceValue,
    DominatingPair,
    FLOAT_LOG_REL_ERROR,
    FLOAT_REL_ERROR,
    MAX_WINDOW_TERMS,
    TRUNCATION_FRACTION,
)
from accountant.engines.pair.divergence import (  # noqa: F401
    half_tail_ratio_runs,
    hockey_stick_bruteforce,
    hockey_stick_divergence,
    window_value,
)

__all__ = [
    'DivergenceValue',
    'DominatingPair',
    'FLOAT_LOG_REL_ERROR',
    'FLOAT_REL_ERROR',
    'MAX_WINDOW_TERMS',
    'TRUNCATION_FRACTION',
    'half_tail_ratio_runs',
    'hockey_stick_bruteforce',
    'hockey_stick_divergence',
    'window_value',
]
