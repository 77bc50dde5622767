r"""Exact privacy accounting for the balls-into-bins mechanism M^BIB(m, s, k, n, p).

Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a single
message", Algorithm 1 and Theorem 2.1.  On input S subset [m], |S| = s, the
mechanism outputs the multiset of: one *real* ball in a uniform bin of S, k fixed
noise balls and, for each of n users independently with probability p, one more
noise ball, every noise ball in a uniform bin of [m].  Neighbours: |S| = |S'| = s,
S' != S.  Theorem 2.1: (eps, delta)-DP when 0 < eps <= 3 and
k + n p >= 32 ln(2/delta)/eps^2 * m/s.

Exact divergence (derivation)
-----------------------------
Let W be the vector of bin counts, w = sum W, N = k + Bin(n, p) the number of
noise balls, and for a set X let W_X = sum_{i in X} w_i.  As in the proof of
Theorem 2.1, P_S(W) = (1/s) sum_{i in S} P[M_0 = W - e_i] = h(W) W_S / s with

    h(W) = P[N = w-1] (w-1)! / prod_i w_i!  m^{-(w-1)} = P[N = w-1] (m/w) Mult_w(W),

Mult_w the uniform multinomial on [m] with w balls (the paper omits m^{-(w-1)},
which cancels).  Hence P_S(W)/P_S'(W) = W_S / W_S' and, exactly,

    H_eps(P_S || P_S') = (1/s) sum_W h(W) (W_S - e^eps W_S')_+ .

Write t = |S n S'|, C = S n S', D = S \ S', E = S' \ S, u = |S u S'| = 2s - t.
Then W_S - e^eps W_S' = W_D - e^eps W_E - (e^eps - 1) W_C depends only on the
counts in S u S'.  Marginalising h to y = W_{S u S'} (identity C(w,y)/w =
C(w-1,y-1)/y) gives the weight (u/y) P[T = y-1] with

    T ~ Bin(k, u/m) + Bin(n, p u/m)    (noise balls landing in S u S'),

and given y the counts (W_C, W_D, W_E) are Mult(y; t/u, (s-t)/u, (s-t)/u).  So

    delta(eps) = sum_{y>=1} P[T = y-1] u/(s y) sum_c Bin(c; y, t/u) I(y - c, c),
    I(L, c) = E_{d ~ Bin(L, 1/2)} [((1 + e^eps) d - e^eps L - (e^eps - 1) c)_+],

and with x0 the smallest integer with (1+e^eps) x0 > e^eps L + (e^eps-1) c,
b' = P[Bin(L-1,1/2) = x0-1], S' = P[Bin(L-1,1/2) >= x0] (closed form, no sum):

    I(L, c) = [(L - (e^eps-1) c) b' - (e^eps-1)(L + 2c) S'] / 2.

Worst case over the overlap.  delta is non-increasing in t, so the worst case is
t* = max(0, 2s - m) (disjoint sets whenever m >= 2s).  Proof: move r = t - t' of
the common bins (set M) to r bins F outside S u S' (they exist iff t' >= 2s - m).
Condition on all counts but the split (Z, M' - Z) of the balls in M u F; Z is
Bin(M', 1/2) under the weighted multinomial.  With x the rest of the linear form,
the t-pair integrand is (x - (e^eps-1) Z)_+ and the t'-pair integrand is
(x + Z - e^eps (M'-Z))_+, which by the symmetry Z <-> M'-Z has the same mean as
(x + M' - (1+e^eps) Z)_+.  Pairing z <= z' = M' - z, with a = x - e^eps z,
b = x - e^eps z': the t-pair values are {a + z, b + z'}, the t'-pair values
{a + z', b + z}: same sum, and the latter majorises the former, so by convexity
of (.)_+ the t'-pair is at least as large.  (Tests confirm this against full
enumeration over every S'.)

For t = 0 the inner sum is the single term c = 0 and the formula collapses to
delta = sum_T P[T] ( P[B_T >= u1] - e^eps P[B_T >= u1+1] ), B_T ~ Bin(T, 1/2),
u1 = smallest U with 1 + U > e^eps (T - U): one dimension.

Certification.  The float path sums over a window of T (and of c) chosen from
the target delta by Chernoff bounds; the left-out probability is bounded by the
Chernoff bound and added (each left-out (y, c) term is at most its weight:
u/(s y) I <= u/(2s) <= 1), plus a relative floating-point margin
``FLOAT_REL_ERROR``.  The mpmath path sums the proof's own two/three-dimensional
expression directly (no closed form, independent check) at high precision.

Expected blanket messages per user rho.  In Algorithm 1 a user adds at most one
ball, so rho = p <= 1.  For rho > 1 we follow Section 2.3 of the paper (Algorithm 4, lines 4-11):
M^BIB(m, s, k + n floor(rho), n, rho - floor(rho)) (each user sends floor(rho)
balls for sure and one more with probability frac(rho)); ``params_for_rho``.
delta is non-increasing in k, p and rho (adding independent uniform balls is
post-processing of the output).
"""
from accountant.core.lazy import lazy_names as _lazy_names
from typing import TYPE_CHECKING

__all__ = [
    'BibDelta',
    'BibEpsilon',
    'BibRho',
    'DEFAULT_TRUNCATION',
    'FLOAT_REL_ERROR',
    'PAPER_EPS_MAX',
    'TRUNCATION_FRACTION',
    'bib_bruteforce',
    'bib_delta',
    'bib_delta_mp',
    'bib_divergence',
    'bib_epsilon',
    'bib_rho_for',
    'delta_floor',
    'paper_condition',
    'paper_requirement',
    'paper_rho',
    'params_for_rho',
    'worst_overlap',
]

#: the module that defines each public name, imported on first use (a command line that imports this
#: package for its constants parses and refuses its arguments before the engines are imported)
_DEFINED_IN = {
    "accountant.protocols.bib.law": (
        "DEFAULT_TRUNCATION", "FLOAT_REL_ERROR", "PAPER_EPS_MAX", "TRUNCATION_FRACTION",
        "params_for_rho", "worst_overlap",
    ),
    "accountant.protocols.bib.divergence": ("BibDelta", "bib_delta", "bib_divergence", "delta_floor"),
    "accountant.protocols.bib.paper": ("paper_condition", "paper_requirement", "paper_rho"),
    "accountant.protocols.bib.search": ("BibEpsilon", "BibRho", "bib_epsilon", "bib_rho_for"),
    "accountant.protocols.bib.reference": ("bib_bruteforce", "bib_delta_mp"),
}
_HOME, __getattr__, __dir__ = _lazy_names(globals(), _DEFINED_IN, __all__)


if TYPE_CHECKING:  # the same names for readers of the source (type checkers, the API reference)
    from accountant.protocols.bib.law import (  # noqa: F401
        DEFAULT_TRUNCATION,
        FLOAT_REL_ERROR,
        PAPER_EPS_MAX,
        TRUNCATION_FRACTION,
        params_for_rho,
        worst_overlap,
    )
    from accountant.protocols.bib.divergence import (  # noqa: F401
        BibDelta,
        bib_delta,
        bib_divergence,
        delta_floor,
    )
    from accountant.protocols.bib.paper import (  # noqa: F401
        paper_condition,
        paper_requirement,
        paper_rho,
    )
    from accountant.protocols.bib.search import (  # noqa: F401
        BibEpsilon,
        BibRho,
        bib_epsilon,
        bib_rho_for,
    )
    from accountant.protocols.bib.reference import (  # noqa: F401
        bib_bruteforce,
        bib_delta_mp,
    )
