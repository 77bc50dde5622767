"""Tests for accountant.bounds.blanket_relaxations (privacy blanket, Balle-Bell-Gascon-Nissim 2019)."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import brentq

from tests.finite_brute import histogram_law

from accountant.bounds.blanket_relaxations import (
    blanket_bennett,
    blanket_bennett_generic,
    blanket_delta_bennett,
    blanket_delta_hoeffding,
    blanket_epsilon,
    blanket_hoeffding,
    blanket_hoeffding_generic,
    blanket_log_delta_bennett,
    blanket_log_delta_hoeffding,
    collision_gamma,
    collision_rv,
    generic_ldp_rv,
    krr_rv,
)

mp.mp.dps = 50


# ============================================================================ helpers
def collision_prob_matrix(H, inputs, s, t, E):
    """P[i, z] = P[z | input i, hash H] of Definition 5 (computed from scratch)."""
    om = s * E + t - s
    P = np.empty((len(inputs), t))
    for i, Y in enumerate(inputs):
        A = sorted({H[y] for y in Y})
        k = len(A)
        P[i, :] = (om - E * k) / ((t - k) * om)
        P[i, A] = E / om
    return P


def sparse_inputs(d, s, min_size=1):
    """All sets of items (2j + sign) with at most one sign per coordinate, size min..s."""
    out = []
    for size in range(min_size, s + 1):
        for coords in itertools.combinations(range(d), size):
            for signs in itertools.product((0, 1), repeat=size):
                out.append(tuple(2 * c + b for c, b in zip(coords, signs)))
    return out


def l_stats(P, u, t):
    """max, min, max E[L^2] of L = t (P[x] - u P[x']) over ordered pairs x != x'."""
    L = t * (P[:, None, :] - u * P[None, :, :])
    m = P.shape[0]
    off = ~np.eye(m, dtype=bool)
    Lp = L[off]  # (pairs, t)
    means = Lp.mean(axis=1)
    assert np.allclose(means, 1 - u, rtol=0, atol=1e-12)
    return Lp.max(), Lp.min(), (Lp.max(axis=1) - Lp.min(axis=1)).max(), (Lp ** 2).mean(axis=1).max()


def e_pos_sum(values, probs, m):
    """E(sum_{i<=m} L_i)_+ for L discrete, exactly (multinomial enumeration)."""
    if m == 0:
        return 0.0
    tot = 0.0
    for combo in itertools.combinations_with_replacement(range(len(values)), m):
        c = Counter(combo)
        p = math.factorial(m)
        for j, cnt in c.items():
            p = p / math.factorial(cnt) * probs[j] ** cnt
        sval = sum(values[j] * cnt for j, cnt in c.items())
        if sval > 0:
            tot += p * sval
    return tot


def lemma_delta(values, probs, n, gamma):
    """(1/(gamma n)) E_{M~Bin(n,gamma)} E(sum_{i<=M} L_i)_+ (the blanket lemma, exact)."""
    tot = 0.0
    for m in range(1, n + 1):
        tot += math.comb(n, m) * gamma ** m * (1 - gamma) ** (n - m) * e_pos_sum(values, probs, m)
    return tot / (gamma * n)


def exact_shuffle_delta(others, row_x, row_xp, eps):
    P = histogram_law(list(others) + [row_x])
    Q = histogram_law(list(others) + [row_xp])
    u = math.exp(eps)
    return sum(max(p - u * Q.get(h, 0.0), 0.0) for h, p in P.items())


def krr_matrix(k, E):
    M = np.full((k, k), 1.0 / (E + k - 1))
    np.fill_diagonal(M, E / (E + k - 1))
    return M


# ============================================================================ quantities
@pytest.mark.parametrize("eps0", [0.3, 1.0, 2.5, 5.0])
@pytest.mark.parametrize("t", [2, 3, 7, 40])
@pytest.mark.parametrize("frac", [1e-4, 0.3, 0.9])
def test_collision_s1_equals_t_ary_randomized_response(eps0, t, frac):
    eps = frac * eps0
    E, u = math.exp(eps0), math.exp(eps)
    c = collision_rv(eps0, eps, 1, t)
    k = krr_rv(eps0, eps, t)
    # direct enumeration of t-ary RR: blanket = column minima, L over W ~ omega
    M = krr_matrix(t, E)
    inf = M.min(axis=0)
    gamma = inf.sum()
    omega = inf / gamma
    L = (M[0] - u * M[1]) / omega
    assert c.gamma == pytest.approx(gamma, rel=1e-13) == k.gamma
    assert c.max_l == pytest.approx(L.max(), rel=1e-12, abs=1e-14)
    assert c.min_l == pytest.approx(L.min(), rel=1e-12)
    assert c.range_l == pytest.approx(L.max() - L.min(), rel=1e-12)
    assert c.second_moment_l == pytest.approx(float(omega @ L ** 2), rel=1e-12)
    assert c.variance_l == pytest.approx(float(omega @ L ** 2) - float(omega @ L) ** 2, rel=1e-9,
                                         abs=1e-15)
    for f in ("gamma", "max_l", "min_l", "range_l", "second_moment_l", "variance_l"):
        assert getattr(c, f) == pytest.approx(getattr(k, f), rel=1e-12, abs=1e-15)
    # the formulas of Balle et al.'s RRMechanism, typed independently
    assert c.max_l == pytest.approx(gamma * (1 - u) + (1 - gamma) * t, rel=1e-12, abs=1e-14)
    assert c.range_l == pytest.approx((1 - gamma) * t * (u + 1), rel=1e-12)
    assert c.second_moment_l == pytest.approx(
        gamma * (2 - gamma) * (u - 1) ** 2 + (1 - gamma) ** 2 * t * (u * u + 1), rel=1e-12)


@pytest.mark.parametrize("d,s,t", [(2, 2, 3), (2, 2, 4), (2, 2, 5), (3, 2, 3), (3, 3, 4)])
def test_collision_quantities_by_brute_force(d, s, t):
    """All hash functions [2d] -> [t], all pairs of inputs (sizes 1..s): exact max/min/range,
    worst E[L^2]/Var over (hash, pair) equal the closed forms; blanket min prob = 1/Omega."""
    inputs = sparse_inputs(d, s)
    for eps0, frac in [(0.7, 0.5), (2.0, 0.1), (3.0, 0.95)]:
        E = math.exp(eps0)
        om = s * E + t - s
        us = [math.exp(frac * eps0), math.exp(0.5 * frac * eps0)]
        best = {u: [-np.inf, np.inf, -np.inf, -np.inf] for u in us}
        min_blanket = np.inf
        for H in itertools.product(range(t), repeat=2 * d):
            P = collision_prob_matrix(H, inputs, s, t, E)
            assert np.allclose(P.sum(axis=1), 1.0, atol=1e-13)
            assert P.max() / P.min() <= E * (1 + 1e-12)  # eps0-LDP given H
            min_blanket = min(min_blanket, P.min())
            assert P.min() >= 1 / om * (1 - 1e-12)
            for u in us:
                mx, mn, rg, m2 = l_stats(P, u, t)
                b = best[u]
                b[0], b[1], b[2], b[3] = max(b[0], mx), min(b[1], mn), max(b[2], rg), max(b[3], m2)
        assert min_blanket == pytest.approx(1 / om, rel=1e-12)
        for u in us:
            eps = math.log(u)
            q = collision_rv(eps0, eps, s, t)
            g = t / om
            assert q.gamma == pytest.approx(g, rel=1e-14)
            mx, mn, rg, m2 = best[u]
            # L was computed with omega uniform (gamma factor included: t P = gamma f)
            assert q.max_l == pytest.approx(mx, rel=1e-12)
            assert q.min_l == pytest.approx(mn, rel=1e-12)
            assert q.range_l == pytest.approx(rg, rel=1e-12)
            assert q.second_moment_l == pytest.approx(m2, rel=1e-12)
            assert q.variance_l == pytest.approx(m2 - (1 - u) ** 2, rel=1e-9)


def test_collision_second_moment_worst_case_over_all_configurations():
    """Closed form equals the max over every (k, k', j) configuration (proof check)."""
    for s in (1, 2, 3, 5, 8):
        for t in range(s + 1, 3 * s + 6):
            for eps0 in (0.1, 1.0, 3.0):
                E = math.exp(eps0)
                om = s * E + t - s
                g = lambda k: 1 + (s - k) * (E - 1) / (t - k)  # noqa: E731
                for frac in (0.01, 0.5, 0.99):
                    u = math.exp(frac * eps0)
                    best = -1.0
                    for k in range(0, s + 1):
                        for kp in range(0, s + 1):
                            for j in range(max(0, k + kp - t), min(k, kp) + 1):
                                v = (j * E * E * (1 - u) ** 2 + (k - j) * (E - u * g(kp)) ** 2
                                     + (kp - j) * (g(k) - u * E) ** 2
                                     + (t - k - kp + j) * (g(k) - u * g(kp)) ** 2)
                                best = max(best, (t / om) ** 2 / t * v)
                    q = collision_rv(eps0, math.log(u), s, t)
                    assert q.second_moment_l == pytest.approx(best, rel=1e-12)


def test_generic_quantities_bound_random_ldp_randomizers():
    rng = np.random.default_rng(1)
    for _ in range(300):
        m, K = rng.integers(2, 6), rng.integers(2, 7)
        R = rng.random((m, K)) ** rng.uniform(0.5, 4) + 1e-3
        R /= R.sum(axis=1, keepdims=True)
        eps0 = float(np.log((R[:, None, :] / R[None, :, :]).max()))
        inf = R.min(axis=0)
        gamma = inf.sum()
        omega = inf / gamma
        assert gamma >= math.exp(-eps0) * (1 - 1e-12)
        for frac in (0.05, 0.5, 0.95):
            eps = frac * eps0
            u = math.exp(eps)
            q = generic_ldp_rv(eps0, eps)
            for x in range(m):
                for xp in range(m):
                    if x == xp:
                        continue
                    L = (R[x] - u * R[xp]) / omega
                    assert L.max() <= q.max_l * (1 + 1e-12) + 1e-15
                    assert L.min() >= q.min_l * (1 + 1e-12) - 1e-15
                    assert L.max() - L.min() <= q.range_l * (1 + 1e-12)
                    assert float(omega @ L ** 2) <= q.second_moment_l * (1 + 1e-12)
                    assert float(omega @ L) == pytest.approx(1 - u, abs=1e-12)


def test_generic_quantities_match_reference_expressions():
    for eps0 in (0.5, 2.0):
        for eps in (0.01, 0.4):
            q = generic_ldp_rv(eps0, eps)
            e0, e = math.exp(eps0), math.exp(eps)
            assert q.gamma == math.exp(-eps0)
            assert q.max_l == pytest.approx(e0 * (1 - math.exp(eps - 2 * eps0)), rel=1e-14)
            assert q.range_l == pytest.approx((e + 1) * (e0 - 1 / e0), rel=1e-14)
            assert q.second_moment_l == pytest.approx(
                e0 * (math.exp(2 * eps) + 1) - 2 * math.exp(-eps0) * math.exp(eps - 2 * eps0),
                rel=1e-14)


# ============================================================================ delta(eps)
def mp_hoeffding(eps, n, gamma, b):
    a = mp.e ** mp.mpf(eps) - 1
    g = mp.mpf(gamma)
    b = mp.mpf(b)
    return sum(mp.binomial(n, m) * g ** m * (1 - g) ** (n - m) * b ** 2 / (4 * a)
               * mp.e ** (-2 * m * a ** 2 / b ** 2) for m in range(0, n + 1)) / (g * n)


def mp_bennett(eps, n, gamma, bp, c):
    a = mp.e ** mp.mpf(eps) - 1
    g, bp, c = mp.mpf(gamma), mp.mpf(bp), mp.mpf(c)
    alpha, beta = c / bp ** 2, a * bp / c
    phi = (1 + beta) * mp.log(1 + beta) - beta
    return sum(mp.binomial(n, m) * g ** m * (1 - g) ** (n - m) * mp.e ** (-m * alpha * phi)
               for m in range(1, n + 1)) * bp / (g * n * mp.log(1 + beta))


@pytest.mark.parametrize("n", [1, 7, 300, 2000])
@pytest.mark.parametrize("eps0,frac,gamma", [(1.0, 0.2, 0.6), (3.0, 0.05, 0.1), (0.2, 0.9, 0.95),
                                             (2.0, 1e-5, 0.3)])
def test_delta_expressions_against_mpmath_sums(n, eps0, frac, gamma):
    eps = frac * eps0
    q = generic_ldp_rv(eps0, eps)
    ref_h = mp_hoeffding(eps, n, gamma, q.range_l)
    ref_b = mp_bennett(eps, n, gamma, q.max_l, q.second_moment_l)
    assert blanket_log_delta_hoeffding(eps, n, gamma, q.range_l) == pytest.approx(
        float(mp.log(ref_h)), rel=1e-10, abs=1e-10)
    assert blanket_log_delta_bennett(eps, n, gamma, q.max_l, q.second_moment_l) == pytest.approx(
        float(mp.log(ref_b)), rel=1e-10, abs=1e-10)
    assert blanket_delta_hoeffding(eps, n, gamma, q.range_l) == pytest.approx(float(ref_h),
                                                                              rel=1e-9)
    assert blanket_delta_bennett(eps, n, gamma, q.max_l, q.second_moment_l) == pytest.approx(
        float(ref_b), rel=1e-9)


def test_bennett_log_delta_underflow_regime_and_gamma_one():
    # huge lambda: terms underflow in linear space; log space stays finite and matches
    lv = blanket_log_delta_bennett(2.0, 10**6, 0.5, 1e-3, 1e-4)
    assert math.isfinite(lv) and lv < -700
    assert math.isfinite(blanket_log_delta_bennett(0.5, 1000, 1.0, 1.0, 2.0))
    assert blanket_log_delta_bennett(0.5, 10, 0.5, -1.0, 1.0) == -math.inf


def _pair_distribution_collision(P_by_h, x, xp, u, t):
    vals, probs = [], []
    nh = len(P_by_h)
    for P in P_by_h:
        for z in range(t):
            vals.append(t * (P[x, z] - u * P[xp, z]))
            probs.append(1.0 / (nh * t))
    return vals, probs


def test_chain_exact_le_lemma_le_concentration_krr():
    """Exact shuffled delta <= blanket lemma <= Hoeffding / Bennett for 3-ary RR, n = 5."""
    k, n, eps0 = 3, 5, 1.5
    E = math.exp(eps0)
    M = krr_matrix(k, E)
    gamma = k / (E + k - 1)
    for eps in (0.2, 0.6, 1.0):
        u = math.exp(eps)
        L = k * (M[0] - u * M[1])
        vals, probs = list(L), [1.0 / k] * k
        lem = lemma_delta(vals, probs, n, gamma)
        worst = 0.0
        for others in itertools.combinations_with_replacement(range(k), n - 1):
            worst = max(worst, exact_shuffle_delta([M[i] for i in others], M[0], M[1], eps))
        assert worst <= lem * (1 + 1e-12)
        q = krr_rv(eps0, eps, k)
        a = u - 1
        for m in range(1, n + 1):
            epos = e_pos_sum(vals, probs, m)
            b = q.range_l
            assert epos <= b ** 2 / (4 * a) * math.exp(-2 * m * a * a / b ** 2) * (1 + 1e-12)
            beta = a * q.max_l / q.second_moment_l
            alpha = q.second_moment_l / q.max_l ** 2
            phi = (1 + beta) * math.log1p(beta) - beta
            assert epos <= q.max_l / math.log1p(beta) * math.exp(-m * alpha * phi) * (1 + 1e-12)
        assert lem <= blanket_delta_hoeffding(eps, n, gamma, q.range_l)
        assert lem <= blanket_delta_bennett(eps, n, gamma, q.max_l, q.second_moment_l)


def test_chain_exact_le_lemma_le_concentration_collision():
    """Collision (d=2, s=2, t=3) with a 2-function hash family, n = 4."""
    d, s, t, n, eps0 = 2, 2, 3, 4, 1.2
    E = math.exp(eps0)
    inputs = sparse_inputs(d, s)
    family = [(0, 1, 2, 0), (0, 0, 1, 2)]
    P_by_h = [collision_prob_matrix(H, inputs, s, t, E) for H in family]
    # output symbol (h, z): row = P_H(h) * P[z | x, h]
    rows = [np.concatenate([P[i] / len(family) for P in P_by_h]) for i in range(len(inputs))]
    gamma = collision_gamma(eps0, s, t)
    for eps in (0.3, 0.9):
        u = math.exp(eps)
        q = collision_rv(eps0, eps, s, t)
        worst_lemma = 0.0
        for x, xp in itertools.permutations(range(len(inputs)), 2):
            vals, probs = _pair_distribution_collision(P_by_h, x, xp, u, t)
            assert max(vals) <= q.max_l * (1 + 1e-12) and min(vals) >= q.min_l * (1 + 1e-12)
            lem = lemma_delta(vals, probs, n, gamma)
            worst_lemma = max(worst_lemma, lem)
            for o in range(len(inputs)):
                ex = exact_shuffle_delta([rows[o]] * (n - 1), rows[x], rows[xp], eps)
                assert ex <= lem * (1 + 1e-12) + 1e-15
        assert worst_lemma <= blanket_delta_hoeffding(eps, n, gamma, q.range_l)
        assert worst_lemma <= blanket_delta_bennett(eps, n, gamma, q.max_l, q.second_moment_l)


# ============================================================================ epsilon solver
S4 = 4


def t_star(eps0, s=S4):
    return int(math.floor(s * math.exp(eps0) + 2 * s - 1))


ALL = {
    "hoeffding_generic": lambda n, e, d: blanket_hoeffding_generic(n, e, d),
    "bennett_generic": lambda n, e, d: blanket_bennett_generic(n, e, d),
    "hoeffding": lambda n, e, d: blanket_hoeffding(n, e, d, S4, t_star(e)),
    "bennett": lambda n, e, d: blanket_bennett(n, e, d, S4, t_star(e)),
}


def _log_delta_fn(key, n, eps0):
    if key == "hoeffding_generic":
        return lambda e: blanket_log_delta_hoeffding(e, n, math.exp(-eps0),
                                                     generic_ldp_rv(eps0, e).range_l)
    if key == "bennett_generic":
        return lambda e: blanket_log_delta_bennett(e, n, math.exp(-eps0),
                                                   generic_ldp_rv(eps0, e).max_l,
                                                   generic_ldp_rv(eps0, e).second_moment_l)
    t = t_star(eps0)
    g = collision_gamma(eps0, S4, t)
    if key == "hoeffding":
        return lambda e: blanket_log_delta_hoeffding(e, n, g, collision_rv(eps0, e, S4, t).range_l)
    return lambda e: blanket_log_delta_bennett(e, n, g, collision_rv(eps0, e, S4, t).max_l,
                                               collision_rv(eps0, e, S4, t).second_moment_l)


@pytest.mark.parametrize("key", list(ALL))
@pytest.mark.parametrize("n", [10**4, 10**5])
@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0, 4.0])
def test_solver_certifies_target_and_is_tight(key, n, eps0):
    delta = 1e-6
    r = ALL[key](n, eps0, delta)
    assert r.applicable and r.delta == delta
    if r.reason is not None:
        assert "no amplification" in r.reason and r.epsilon == eps0 and r.achieved_delta == 0.0
        assert _log_delta_fn(key, n, eps0)(eps0 * (1 - 1e-9)) > math.log(delta)
        return
    ld = _log_delta_fn(key, n, eps0)
    assert 0 < r.epsilon < eps0
    assert r.achieved_delta <= delta
    assert math.exp(ld(r.epsilon)) == pytest.approx(r.achieved_delta, rel=1e-12)
    assert ld(r.epsilon * (1 - 2e-9)) > math.log(delta) - 1e-9  # within the tolerance of the root


@pytest.mark.parametrize("key", list(ALL))
def test_solver_agrees_with_independent_brentq(key):
    n, delta = 10**5, 1e-6
    for eps0 in (0.5, 1.0, 2.0):
        r = ALL[key](n, eps0, delta)
        if r.reason is not None:
            continue
        ld = _log_delta_fn(key, n, eps0)
        root = brentq(lambda e: ld(e) - math.log(delta), 1e-6 * eps0, r.epsilon * 1.5 if
                      r.epsilon * 1.5 < eps0 else eps0 * (1 - 1e-12), xtol=1e-15, rtol=1e-14)
        assert r.epsilon == pytest.approx(root, rel=2e-9)
        assert r.epsilon >= root * (1 - 1e-12)


def test_collision_s1_bound_equals_krr_bound():
    n, delta = 10**4, 1e-6
    for eps0 in (0.5, 2.0):
        for t in (2, 5, 20):
            for method in ("hoeffding", "bennett"):
                f = blanket_hoeffding if method == "hoeffding" else blanket_bennett
                r = f(n, eps0, delta, 1, t)
                ref = blanket_epsilon(n, delta, krr_rv(eps0, 0.1, t).gamma, eps0, method=method,
                                      range_l=lambda e: krr_rv(eps0, e, t).range_l,
                                      max_l=lambda e: krr_rv(eps0, e, t).max_l,
                                      second_moment_l=lambda e: krr_rv(eps0, e, t).second_moment_l)
                assert r.epsilon == pytest.approx(ref.epsilon, rel=1e-12)


def test_no_amplification_small_n():
    for key, f in ALL.items():
        r = f(10, 1.0, 1e-6)
        assert r.applicable and r.epsilon == 1.0
        assert "no amplification" in r.reason and "eps0 reported" in r.reason


@pytest.mark.parametrize("key", list(ALL))
def test_monotonicity(key):
    f = ALL[key]
    ns = [10**3, 10**4, 10**5, 10**6]
    deltas = [1e-10, 1e-8, 1e-6, 1e-4]
    eps0s = [0.25, 0.5, 1.0, 2.0, 3.0, 4.0]
    for eps0 in eps0s:
        for delta in deltas:
            vals = [f(n, eps0, delta).epsilon for n in ns]
            assert all(b <= a * (1 + 1e-9) for a, b in zip(vals, vals[1:])), (eps0, delta, vals)
        for n in ns:
            vals = [f(n, eps0, d).epsilon for d in deltas]
            assert all(b <= a * (1 + 1e-9) for a, b in zip(vals, vals[1:])), (eps0, n, vals)
    if key.endswith("generic"):  # for the Collision bounds t = t*(eps0) changes with eps0
        for n in ns:
            for delta in deltas:
                vals = [f(n, e, delta).epsilon for e in eps0s]
                assert all(b >= a * (1 - 1e-9) for a, b in zip(vals, vals[1:])), (n, delta, vals)
    else:
        for n in ns:
            vals = [blanket_bennett(n, e, 1e-6, 4, 30).epsilon if key == "bennett"
                    else blanket_hoeffding(n, e, 1e-6, 4, 30).epsilon for e in eps0s]
            assert all(b >= a * (1 - 1e-9) for a, b in zip(vals, vals[1:])), (n, vals)


def test_specific_bounds_tighter_than_generic_for_collision():
    for n in (10**4, 10**5):
        for eps0 in (0.5, 1.0, 2.0):
            assert (blanket_bennett(n, eps0, 1e-6, 4, t_star(eps0)).epsilon
                    < blanket_bennett_generic(n, eps0, 1e-6).epsilon)
            assert (blanket_hoeffding(n, eps0, 1e-6, 4, t_star(eps0)).epsilon
                    < blanket_hoeffding_generic(n, eps0, 1e-6).epsilon)


# ============================================================================ validation
@pytest.mark.parametrize("s,t,param", [(0, 3, "s"), (3, 3, "t"), (4, 2, "t"), (1.5, 4, "s"),
                                       (1, 2.5, "t"), (True, 3, "s"), (None, 3, "s")])
def test_validation_s_t(s, t, param):
    for f in (blanket_hoeffding, blanket_bennett):
        with pytest.raises(ValueError, match=param):
            f(1000, 1.0, 1e-6, s, t)


@pytest.mark.parametrize("args,param", [((0, 1.0, 1e-6), "n"), ((2.5, 1.0, 1e-6), "n"),
                                        ((100, 0.0, 1e-6), "eps0"), ((100, math.inf, 1e-6), "eps0"),
                                        ((100, 1.0, 0.0), "delta"), ((100, 1.0, 1.0), "delta")])
def test_validation_common(args, param):
    for f in (blanket_hoeffding_generic, blanket_bennett_generic):
        with pytest.raises(ValueError, match=param):
            f(*args)
    for f in (blanket_hoeffding, blanket_bennett):
        with pytest.raises(ValueError, match=param):
            f(*args, 4, 20)


def test_validation_solver():
    with pytest.raises(ValueError, match="gamma"):
        blanket_epsilon(100, 1e-6, 1.5, 1.0, method="hoeffding", range_l=lambda e: 1.0)
    with pytest.raises(ValueError, match="method"):
        blanket_epsilon(100, 1e-6, 0.5, 1.0, method="chernoff")
    with pytest.raises(ValueError, match="range_l"):
        blanket_epsilon(100, 1e-6, 0.5, 1.0, method="hoeffding")
    with pytest.raises(ValueError, match="max_l"):
        blanket_epsilon(100, 1e-6, 0.5, 1.0, method="bennett", range_l=lambda e: 1.0)


# ============================================================================ CoCo
def coco_prob_matrix(H1, H2, inputs, s, t, E):
    """P[z | x, H1, H2] of CoCo (main paper, Algorithm 1), averaged over RandomPermute."""
    om = (E + 1) * s + t - 2 * s
    half = t // 2
    P = np.zeros((len(inputs), t))
    for i, Y in enumerate(inputs):  # Y: tuple of (j, b) with b in {-1, +1}
        orders = list(itertools.permutations(Y))
        for order in orders:
            W = np.zeros(t)
            for j, b in order:
                h = H1[j] + (b * H2[j] + 1) // 2 * half
                W[h] = E
                W[2 * H1[j] + half - h] = 1.0
            w = (om - W.sum()) / (t - 2 * W.sum() / (E + 1))
            for k in range(half):
                if W[k] == 0 and W[k + half] == 0:
                    W[k] = W[k + half] = w
            assert W.sum() == pytest.approx(om, rel=1e-12)
            P[i] += W / om / len(orders)
    return P


@pytest.mark.parametrize("d,s,t", [(2, 2, 6), (3, 2, 6), (3, 2, 8)])
def test_coco_quantities_bounded_and_attained(d, s, t):
    inputs = [tuple(zip(coords, signs)) for coords in itertools.combinations(range(d), s)
              for signs in itertools.product((-1, 1), repeat=s)]
    eps0 = 1.3
    E = math.exp(eps0)
    om = s * E + t - s
    u = math.exp(0.4 * eps0)
    q = collision_rv(eps0, math.log(u), s, t)
    best = [-np.inf, np.inf, -np.inf, -np.inf]
    for H1 in itertools.product(range(t // 2), repeat=d):
        for H2 in itertools.product((-1, 1), repeat=d):
            P = coco_prob_matrix(H1, H2, inputs, s, t, E)
            assert P.min() >= 1 / om * (1 - 1e-12)
            mx, mn, rg, m2 = l_stats(P, u, t)
            best = [max(best[0], mx), min(best[1], mn), max(best[2], rg), max(best[3], m2)]
    assert best[0] == pytest.approx(q.max_l, rel=1e-12)
    assert best[1] == pytest.approx(q.min_l, rel=1e-12)
    assert best[2] == pytest.approx(q.range_l, rel=1e-12)
    assert best[3] == pytest.approx(q.second_moment_l, rel=1e-12)
