"""Exact privacy-blanket divergence: delta(eps) = E[(v1 N1 + v2 N2 + v3 N3)_+] / n.

Privacy blanket (Balle, Bell, Gascon, Nissim, CRYPTO 2019, Lemma 5.3 / Theorem 3.1;
optimal among decomposition-based bounds by Su, Cheng, Wang, S&P 2026).  If every
local output law is R(x) = (1 - gamma) LO(x) + gamma omega, then with
B ~ Bin(n - 1, gamma) blanket users the hockey-stick divergence of the shuffled
multisets {Y1, W_1..W_B} vs {Y1', W_1..W_B} (W ~ omega) is exactly
(1/(B+1)) E[(sum_{i <= B+1} L_i)_+] with L = (mu_x1(W) - e^eps mu_x1'(W)) / omega(W),
and, since B + 1 ~ Bin(n, gamma) size-biased,

    delta(eps) <= E_B[...] = (1/(gamma n)) E_{M ~ Bin(n, gamma)} E[(sum_{i <= M} L_i)_+].

For Collision / CoCo / k-RR the worst case is a law of L with at most three non-zero
atoms (per hash function the output vector is majorised by the collision-free one, so
L is a mean-preserving contraction of the "clean" law; sums of i.i.d. variables keep
the convex order and (.)_+ is convex).  Folding Bin(n, gamma) into a multinomial,

    delta(eps) = F / n,   F = E[(v1 N1 + v2 N2 + v3 N3)_+],
    (N0, N1, N2, N3) ~ Multinomial(n; 1 - 2 p12 - p3, p12, p12, p3),
    v_c = a_c - u b_c,   u = e^eps,

taken here as data (``CountLaw``): the blanket instances below, and lower bounds of
the real mechanisms (p0 = 0, a_c = P_x1(c)/P_x0(c), b_c = P_x1'(c)/P_x0(c)).
Check: n = 1 gives F = p12 v1 + p12 (v2)_+ + p3 (v3)_+, for the blanket
(E - u)/Omega, the local hockey-stick divergence.

Instances (E = e^eps0, Omega = s E + t - s):

* Collision / CoCo, t >= 2s: p12 = s/Omega, p3 = (t - 2s)/Omega, a = (E, 1, 1), b = (1, E, 1);
* Collision, s < t < 2s: j0 = 2s - t, p12 = (s - j0)/Omega, p3 = j0/Omega, a = (E, 1, E), b = (1, E, E);
* k-ary randomized response: s = 1, t = k.
* OUE: four atoms (:class:`OueBlanket`), evaluated by :mod:`accountant.engines.blanket.oue`
  on the same sums (its docstring has the reduction; its direct exact sum from per-m tail
  tables is :mod:`accountant.engines.blanket.oue_table`, the nested path's upper and
  lower ends from one y-grid :mod:`accountant.engines.blanket.oue_nested`); :func:`oue_blanket` is the older
  three-atom relaxation (an upper bound of it), kept for comparison.
* Any four-atom law on the corners (E, 1), (1, E), (1, 1), (E, E) of [1, E]^2
  (:class:`CornerBlanket`, e.g. the law dominating Collision's random-hash blanket) on the
  same module's nested path.

Evaluation.  Condition on m = N1 + N2 ~ Bin(n, 2 p12) and N3 = j; then
N1 ~ Bin(m, 1/2) and N3 ~ Bin(n - m, p'), p' = p3 / (1 - 2 p12), independently.  With
d = v1 - v2 > 0 (swap 1 and 2 otherwise), X = d (N1 - c), c = alpha m + beta j,
alpha = -v2/d, beta = -v3/d, and with k = floor(c) + 1, T = P[N1 >= k], b = P[N1 = k],

    g_m(j) = E[X_+ | m, j] = d ((k/2) b + (m/2 - c) T)          (c >= m/2),
    g_m(j) = d ((m/2 - c) + E[(N1 - (m - c))_+])                 (c < m/2, by symmetry),

convex and piecewise linear in j with slope -d beta P[N1 > c].  Along m at fixed j the
threshold is linear in m, so T/b follows the pair engine's recurrences
(:func:`divergence.half_tail_ratio_runs`).

* ``exact``: sum every (m, j) of the windows.
* ``binned``: cut the j-window into bins on a grid fixed across m; on a bin, convexity
  gives the chord (Edmundson-Madansky) upper bound and the tangent (subgradient) lower
  bound, both needing only P(bin | m) and E[N3; bin | m], which follow along m from
  F_{N'-1}(j) = F_{N'}(j) + p' P[Bin(N'-1, p') = j] (N' = n - m) between exact
  anchors (incomplete beta), and E[N3; N3 <= j] = N' p' F_{N'}(j) - p' (N' - j) P[Bin(N', p') = j].
  Bins are doubled until the gap is below ``BIN_GAP`` of the value.

Windows in m and j leave out at most ``TRUNCATION`` of the target, bounded in one of two
ways and added to the upper end (the narrower pair of windows is used):

* crude: X_+ <= n max(v_c)_+, so the left-out mass (Chernoff bounds on the binomial
  marginals of m and N3) times max(v_c)_+;
* tilted: x_+ <= e^{theta x} / (e theta) for every theta > 0, so for any set A of counts
  E[X_+; A] <= M(theta) Q(A) / (e theta), M(theta) = (sum_c p_c e^{theta v_c})^n and Q
  the multinomial with probabilities p_c e^{theta v_c} / M(theta)^{1/n} (exponential
  tilting); with theta the minimiser of M, M is within a small factor of n delta, so the
  windows only need Q-mass ~ TRUNCATION out, not ~ TRUNCATION delta: about 6 instead of
  10 standard deviations each side at n = 1e10, delta = 1e-10.

A relative float margin ``FLOAT_REL_ERROR``
(checked against a 50-digit mpmath evaluation in the tests) is added / subtracted.
"""
from accountant.engines.blanket.law import (  # noqa: F401
    CornerBlanket,
    CountLaw,
    OueBlanket,
    blanket_law,
    oue_blanket,
)
from accountant.engines.blanket.window import (  # noqa: F401
    PositivePart,
    law_windows,
    approx_epsilon,
    approx_log_delta,
)
from accountant.engines.blanket.sums import (  # noqa: F401
    MAX_CHUNK_CELLS,
    Terms,
    exact_sum,
)
from accountant.engines.blanket.engine import (  # noqa: F401
    BIN_GAP,
    BlanketEpsilon,
    EXACT_MAX_TERMS,
    FLOAT_REL_ERROR,
    MAX_BINNED_CELLS,
    MAX_BINS,
    TRUNCATION,
    blanket_exact_delta,
    blanket_exact_epsilon,
    positive_part,
    positive_part_many,
)

__all__ = [
    'BIN_GAP',
    'BlanketEpsilon',
    'CornerBlanket',
    'CountLaw',
    'OueBlanket',
    'EXACT_MAX_TERMS',
    'FLOAT_REL_ERROR',
    'MAX_BINNED_CELLS',
    'MAX_BINS',
    'MAX_CHUNK_CELLS',
    'PositivePart',
    'TRUNCATION',
    'approx_epsilon',
    'approx_log_delta',
    'blanket_exact_delta',
    'blanket_exact_epsilon',
    'blanket_law',
    'oue_blanket',
    'positive_part',
    'positive_part_many',
]
