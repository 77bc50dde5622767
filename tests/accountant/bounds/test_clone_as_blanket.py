"""Two engines, one number: the FMT21 clone pair (accountant.engines.pair.divergence) is the privacy
blanket of the standard clone decomposition (accountant.engines.blanket).

Derivation (checked here numerically).  Every eps0-LDP randomizer satisfies
R(x) >= e^{-eps0} (R(x1) + R(x1'))/2 for all x (Feldman, McMillan, Talwar, FOCS 2021), so
omega = (R(x1) + R(x1'))/2 is a blanket with gamma = e^{-eps0}.  With s = R(x1)/(2 omega) in
[1/(1+E), E/(1+E)] (E = e^{eps0}) and E_omega[s] = 1/2, the amplification variable is
L = (R(x1) - u R(x1'))/omega = 2((1+u) s - u), affine in s, so its convex-order maximum puts
mass 1/2 on each end of s: L in {2(E-u)/(1+E), 2(1-uE)/(1+E)} (binary randomized response).
Balle et al.'s bound (1/(gamma n)) E_{M ~ Bin(n, gamma)} E[(sum_{i<=M} L_i)_+], with the binomial
folded into a multinomial, is

    delta = (2E/(1+E)) E[((E-u) N1 + (1-uE) N2)_+] / n,   (N1, N2) ~ Mult(n; 1/(2E), 1/(2E)),

and since the blanket lemma is an identity given the number of blanket users, this *is* the
divergence of the FMT21 clone pair.  The factor 2E/(1+E) matters: without it the value at
n = 1 is (E-u)/(2E), below binary randomized response's own divergence (E-u)/(E+1), so the
law without the factor is not an upper bound.  (The standard-clone "GPARV" of Su, Cheng and
Wang's companion code, repository Optimal-amplification-bound/Decomposition-Based-Optimal-
Bounds-for-Shuffle-DP at d3b769dc, LDPMechanism.get_gparv_distribution, is that law without
the factor; their FFT then gives eps = 0.06965 at n = 1000, eps0 = 0.5, delta = 1e-6, where the
law without the factor gives 0.06943 exactly and the clone pair 0.07052.)
"""
import math

import pytest

from accountant.engines.blanket.law import CountLaw
from accountant.engines.blanket.engine import blanket_exact_epsilon, positive_part
from accountant.engines.pair.law import DominatingPair
from accountant.engines.pair.divergence import hockey_stick_divergence
from accountant.bounds.pair_accountant import search_pair_epsilon


def standard_clone_law(eps0: float, factor: bool = True) -> CountLaw:
    E = math.exp(eps0)
    f = 2.0 * E / (1.0 + E) if factor else 1.0
    return CountLaw(1.0 / (2.0 * E), 0.0, (f * E, f, 0.0), (f, f * E, 0.0))


@pytest.mark.parametrize("eps0", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("n", [1, 7, 200, 10**5])
def test_clone_pair_is_the_standard_clone_blanket(eps0, n):
    law = standard_clone_law(eps0)
    pair = DominatingPair.clone(n, eps0)
    for frac in (0.05, 0.3, 0.7):
        eps = frac * eps0
        a = hockey_stick_divergence(pair, eps)
        b = positive_part(law, n, eps)
        assert a.lower <= b.upper * (1 + 1e-9) and b.lower <= a.upper * (1 + 1e-9)
        assert b.value == pytest.approx(a.value, rel=1e-8, abs=1e-300)


def test_without_the_factor_it_is_not_an_upper_bound():
    for eps0 in (0.5, 1.0, 3.0):
        E = math.exp(eps0)
        for eps in (0.0, 0.2 * eps0, 0.6 * eps0):
            u = math.exp(eps)
            rr_local = (E - u) / (E + 1)   # binary RR, n = 1: nothing to shuffle
            assert positive_part(standard_clone_law(eps0), 1, eps).value == pytest.approx(rr_local, rel=1e-12)
            assert positive_part(standard_clone_law(eps0, factor=False), 1, eps).value < rr_local * (1 - 1e-3)


def test_searches_agree():
    """eps_c at n = 1000, delta = 1e-6 by both engines (the first row of the docstring)."""
    for eps0, want_no_factor in ((0.5, 0.06943), (1.0, 0.17798), (2.0, 0.52691)):
        pair = search_pair_epsilon(DominatingPair.clone(1000, eps0), 1e-6, 1e-9).epsilon
        blanket = blanket_exact_epsilon(standard_clone_law(eps0), 1000, 1e-6, rtol=1e-8).epsilon
        assert blanket == pytest.approx(pair, rel=1e-6)
        no_factor = blanket_exact_epsilon(standard_clone_law(eps0, False), 1000, 1e-6, rtol=1e-8).epsilon
        assert no_factor == pytest.approx(want_no_factor, rel=1e-4)
        assert no_factor < pair
