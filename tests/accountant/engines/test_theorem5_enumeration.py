"""Exact enumeration check of Theorem 5 / Theorem 6 (Wang et al. (numerical vector analyses)) on tiny instances.

What is checked
---------------
(d, s, eps0, t)-Collision (Definition 5); a report is (H, z), H uniform over a finite
hash family, the analyst sees the multiset of the n reports.  The exact hockey-stick
divergence D_{e^eps}(S(D) || S(D')), D = (x1, x2..xn), D' = (x1', x2..xn), is computed
by ``accountant.engines.enumeration`` (exact class alphabet + enumeration of all multisets;
both reductions are validated here against the raw (H, z) alphabet and against
ordered-tuple enumeration).  It is compared with the pair value D(P_a || Q_a) of
``PairAccountant`` (a = min(s, t - s) / Omega, NOTES-accounting.md section 1).

Findings (these tests assert them)
----------------------------------
* THEOREM 5 IS FALSE AS USED BY THE ACCOUNTANT whenever a < 1/(e^eps0 + 1), i.e.
  t != 2s (the regime of the Feldman-McMillan-Talwar 2023 erratum to Lemma 3.5).
  Counterexamples exist for the uniform family of ALL functions Y -> [t], with the
  smallest one: d = 1, s = 1, t = 6, n = 2, eps0 = 0.5, eps = 0.3,
  x1 = {1-}, x1' = {1+}, x2 = {1-} (the other user holds x1's value):
      exact shuffled divergence = 0.0077406934166941
      D(P_a || Q_a)             = 0.0067607537539114 (certified upper 0.00676075375459)
  (ratio 1.1449; confirmed by an independent 40-digit mpmath enumeration over the raw
  (H, z) alphabet below).  Every violation found on the grid has x2 = ... = xn = x1.
  Mechanism: the others' reports land in H(Y_x1) with probability e^eps0/Omega, but
  the pair only counts a = 1/Omega of it as "clone" mass; the event "every report
  lands in H(Y_x1)" has likelihood ratio e^eps0 under both, with mass ~ (e^eps0/Omega)^n
  for the mechanism versus e^eps0/Omega^n for the pair.
* The violation changes epsilon at practical delta for small n: n = 10, eps0 = 1,
  t = 3 (the paper's t*), delta = 1e-6: the accountant certifies eps = 0.9412 but the
  exact divergence there is 3.99e-6 (true eps about 0.986).
* At t = 2s (a = 1/(e^eps0 + 1), outside the erratum regime) no violation was found
  (asserted below on a subset).
* Theorem 6 (t >= 3s): with a hash family injective on Y_x1 u Y_x1' u Y_x* (the
  family its proof needs; d = 2, s = 1 is the only tiny case with three disjoint
  inputs) the lower bound exact >= D(P_a || Q_a) holds, with equality at t = 3s = 3
  but STRICT inequality at t >= 4 for eps near eps0: there the Theorem 6 construction
  itself exceeds the Theorem 5 bound, so "tight" is not an equality.  For the family of
  all functions, the worst case over inputs is far BELOW the pair value at small eps
  (hash collisions), so Theorem 6 says nothing about that family.

Run time: a few seconds.
"""
import itertools
import math

import numpy as np
import pytest

from accountant.engines.pair.law import DominatingPair
from accountant.engines.pair.divergence import hockey_stick_bruteforce
from accountant.engines.enumeration import (
    all_hash_functions,
    collision_alphabet,
    collision_shuffled_divergence,
    injective_hash_functions,
    input_orbit_representatives,
    shuffled_hockey_stick,
    shuffled_hockey_stick_common_others,
    symmetry_group,
    worst_case_divergence,
)
from accountant import CollisionParams, PairAccountant
from mechanisms.randomizers.collision import collision_output_distribution

EPS_FRACTIONS = (0.0, 0.1, 0.3, 0.6, 0.9)


def pair_value(s, t, eps0, n, eps):
    acc = PairAccountant(CollisionParams(s=s, eps0=eps0, t=t), n)
    return hockey_stick_bruteforce(acc.pair, eps), acc.get_delta(eps)


def raw_rows(d, t, eps0, xs):
    """Per-user laws on the raw alphabet (H, z), H over all functions (independent code)."""
    H = all_hash_functions(d, t)
    return np.array([np.concatenate([collision_output_distribution(h[list(x)], eps0, t) for h in H])
                     / len(H) for x in xs])


def ordered_tuple_divergence(rows_D, rows_Dp, eps):
    """sum over ordered tuples of max(0, Psym_D - e^eps Psym_D') (brute force)."""
    n, K = rows_D.shape

    def sym(rows):
        tot = 0.0
        for perm in itertools.permutations(range(n)):
            T = np.ones([K] * n)
            for i in range(n):
                shape = [1] * n
                shape[i] = K
                T = T * rows[perm[i]].reshape(shape)
            tot = tot + T
        return tot / math.factorial(n)

    P, Q = sym(rows_D), sym(rows_Dp)
    return np.array([np.maximum(P - math.exp(e) * Q, 0).sum() for e in eps])


# --------------------------------------------------------------------------- engine checks


@pytest.mark.parametrize("d,s,t,n,eps0", [(1, 1, 3, 3, 1.0), (2, 1, 2, 3, 2.0), (2, 2, 3, 2, 1.0)])
def test_class_alphabet_matches_raw_alphabet(d, s, t, n, eps0):
    eps = [0.0, 0.3, 0.7]
    A = collision_alphabet(d, s, t, eps0)
    X = A.inputs
    row = dict(zip(X, raw_rows(d, t, eps0, X)))
    for x1, x1p in itertools.permutations(X, 2):
        for others in itertools.combinations_with_replacement(X, n - 1):
            red = collision_shuffled_divergence(A, x1, x1p, others, eps)
            raw = shuffled_hockey_stick(np.array([row[x] for x in (x1, *others)]),
                                        np.array([row[x] for x in (x1p, *others)]), eps)
            np.testing.assert_allclose(red, raw, rtol=1e-12, atol=1e-15)


def test_multiset_enumeration_matches_ordered_tuples():
    rng = np.random.default_rng(1)
    for n, K in ((2, 6), (3, 5), (4, 4)):
        rD = rng.dirichlet(np.ones(K), size=n)
        rDp = rD.copy()
        rDp[0] = rng.dirichlet(np.ones(K))
        eps = [0.0, 0.2, 0.5]
        np.testing.assert_allclose(shuffled_hockey_stick(rD, rDp, eps),
                                   ordered_tuple_divergence(rD, rDp, eps), rtol=1e-12, atol=1e-16)


@pytest.mark.parametrize("d,s,t,n", [(2, 1, 4, 3), (2, 2, 4, 2), (1, 1, 5, 3)])
def test_symmetry_pruning_is_exact(d, s, t, n):
    eps0 = 1.0
    eps = [f * eps0 for f in EPS_FRACTIONS]
    H = all_hash_functions(d, t)
    A = collision_alphabet(d, s, t, eps0, hashes=H)
    reps = input_orbit_representatives(A.inputs, n, symmetry_group(A.inputs, H, d))
    full, _ = worst_case_divergence(A, n, eps)
    pruned, _ = worst_case_divergence(A, n, eps, combos=reps)
    np.testing.assert_allclose(full, pruned, rtol=1e-13, atol=1e-17)


def test_common_others_histogram_matches_enumeration():
    A = collision_alphabet(2, 1, 5, 1.0)
    x0, x1 = A.inputs[0], A.inputs[1]
    law, _ = A.restrict([0, 1])
    for n in (2, 3, 4):
        a = shuffled_hockey_stick_common_others(law[0], law[1], law[0], n, [0.0, 0.5, 0.9])
        b = collision_shuffled_divergence(A, x0, x1, [x0] * (n - 1), [0.0, 0.5, 0.9])
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-16)


@pytest.mark.parametrize("k,n,eps0", [(3, 3, 1.0), (3, 4, 2.0), (5, 4, 2.0), (6, 3, 0.5)])
def test_engine_equals_pair_when_counts_are_sufficient(k, n, eps0):
    """Sanity: user 1 runs k-RR with x1 = 0 (D) or x1' = 1 (D'); each other user
    reports 0 and 1 with probability a = 1/(e^eps0 + k - 1) and is uniform on the k - 2
    remaining symbols otherwise.  All users are then exchangeable on {2..k-1}, so
    (count of 0, count of 1) is sufficient and has exactly the law P_a (resp. Q_a)
    with r = (k - 2) a.  For k = 3 the others are exactly k-RR with input 2.
    (For k >= 4, k-RR with input 2 is NOT of this form and exceeds the pair: see the
    Theorem 6 test.)"""
    E = math.exp(eps0)
    a = 1.0 / (E + k - 1)

    def rr(x):
        v = np.full(k, a)
        v[x] = E * a
        return v

    other = np.full(k, (1 - 2 * a) / (k - 2))
    other[:2] = a
    if k == 3:
        np.testing.assert_allclose(other, rr(2), rtol=1e-15)
    pair = DominatingPair.stronger_clone(n, eps0, a, r=(k - 2) * a)
    eps = [f * eps0 for f in EPS_FRACTIONS]
    got = shuffled_hockey_stick(np.array([rr(0)] + [other] * (n - 1)),
                                np.array([rr(1)] + [other] * (n - 1)), eps)
    want = [hockey_stick_bruteforce(pair, e) for e in eps]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)


def test_binary_rr_against_binomial_formula():
    """Sanity: binary RR, D = (0, 1^(n-1)), D' = (1, 1^(n-1)); the shuffled output is the
    number of 1-reports, a sum of Bernoullis (computed here by convolution)."""
    from scipy.stats import binom

    n, eps0 = 4, 1.0
    p = math.exp(eps0) / (1 + math.exp(eps0))
    rows0 = np.array([[p, 1 - p]] + [[1 - p, p]] * (n - 1))
    rows1 = np.array([[1 - p, p]] * n)
    base = binom.pmf(np.arange(n), n - 1, p)  # ones among the others
    P = np.convolve(base, [p, 1 - p])  # user 1 adds a 1 w.p. 1 - p under D
    Q = np.convolve(base, [1 - p, p])
    for eps in (0.0, 0.3, 0.8):
        want = np.maximum(P - math.exp(eps) * Q, 0).sum()
        got = shuffled_hockey_stick(rows0, rows1, [eps])[0]
        assert abs(got - want) < 1e-14


# --------------------------------------------------------------------------- Theorem 5


def test_theorem5_counterexample_smallest():
    """d = 1, s = 1, t = 6, n = 2, eps0 = 0.5, eps = 0.3 (all-functions hash family)."""
    A = collision_alphabet(1, 1, 6, 0.5)
    x_minus, x_plus = (0,), (1,)
    exact = collision_shuffled_divergence(A, x_minus, x_plus, [x_minus], [0.3])[0]
    pair, upper = pair_value(1, 6, 0.5, 2, 0.3)
    assert exact == pytest.approx(0.0077406934166941, rel=1e-12)
    assert pair == pytest.approx(0.0067607537539114, rel=1e-12)
    assert upper < 0.0067607537546
    assert exact > 1.14 * upper  # Theorem 5 violated by 14 %
    # the same numbers for d = 2 (x1 = {1-}, x1' = {1+}, x2 = {1-})
    A2 = collision_alphabet(2, 1, 6, 0.5)
    exact2 = collision_shuffled_divergence(A2, (0,), (1,), [(0,)], [0.3])[0]
    assert exact2 == pytest.approx(exact, rel=1e-12)


def test_theorem5_counterexample_independent_mpmath():
    """40-digit enumeration over the raw (H, z) alphabet, no shared code."""
    import mpmath as mp

    with mp.workdps(40):
        t, eps0, eps = 6, mp.mpf("0.5"), mp.mpf("0.3")
        E = mp.e ** eps0
        Om = E + t - 1
        Hs = list(itertools.product(range(t), repeat=2))

        def law(y):
            return {(h, z): (E / Om if z == h[y] else 1 / Om) / len(Hs) for h in Hs for z in range(t)}

        L0, L1 = law(0), law(1)
        syms = list(L0)
        ee = mp.e ** eps
        tot = mp.mpf(0)
        for i, u in enumerate(syms):
            for v in syms[i:]:
                # multiset {u, v}: D = (x1, x1) with x1 = {1-}; D' = ({1+}, {1-})
                if u == v:
                    P, Q = L0[u] * L0[u], L1[u] * L0[u]
                else:
                    P, Q = 2 * L0[u] * L0[v], L1[u] * L0[v] + L1[v] * L0[u]
                tot += max(mp.mpf(0), P - ee * Q)
        assert abs(tot - mp.mpf("0.007740693416694118407855087")) < mp.mpf("1e-25")


@pytest.mark.parametrize("d,s,t,n,eps0,frac,exact_val,pair_val", [
    (1, 1, 3, 2, 1.0, 0.9, 0.014037989268646384, 0.011619647206470726),
    (1, 1, 4, 3, 2.0, 0.9, 0.02751354417598327, 0.012229250275493717),
    (2, 1, 5, 3, 0.5, 0.8, 0.0012115112856607053, 0.0008704884662924933),
    (2, 2, 3, 2, 2.0, 0.9, 0.005453363534661533, 0.005380256914470569),  # t < 2s
])
def test_theorem5_counterexamples_worst_case(d, s, t, n, eps0, frac, exact_val, pair_val):
    """Worst case over all inputs (all-functions family) exceeds the certified pair bound."""
    eps = frac * eps0
    H = all_hash_functions(d, t)
    A = collision_alphabet(d, s, t, eps0, hashes=H)
    reps = input_orbit_representatives(A.inputs, n, symmetry_group(A.inputs, H, d))
    best, arg = worst_case_divergence(A, n, [eps], combos=reps)
    pair, upper = pair_value(s, t, eps0, n, eps)
    assert best[0] == pytest.approx(exact_val, rel=1e-9)
    assert pair == pytest.approx(pair_val, rel=1e-9)
    assert best[0] > upper * (1 + 1e-6)
    x1, x1p, others = arg[0]
    assert all(o == x1 for o in others)  # the violating datasets have x2 = ... = xn = x1


def test_violation_moves_certified_epsilon():
    """n = 10, eps0 = 1, t = t* = 3: the accountant's eps at delta = 1e-6 is not private."""
    eps0, t, n, delta = 1.0, 3, 10, 1e-6
    acc = PairAccountant(CollisionParams(s=1, eps0=eps0, t=t), n)
    eps_c = acc.get_epsilon(delta)
    assert eps_c == pytest.approx(0.9412, abs=1e-3)
    A = collision_alphabet(1, 1, t, eps0)
    law, _ = A.restrict([0, 1])
    exact = shuffled_hockey_stick_common_others(law[0], law[1], law[0], n, [eps_c])[0]
    assert exact == pytest.approx(3.99116851e-06, rel=1e-6)
    assert exact > 3.9 * delta


@pytest.mark.parametrize("d,s,t", [(1, 1, 2), (2, 1, 2), (2, 2, 4)])
def test_theorem5_holds_when_t_equals_2s(d, s, t):
    """a = 1/(e^eps0 + 1): the regime where FMT23 Lemma 3.5 is not affected."""
    for n in (2, 3):
        H = all_hash_functions(d, t)
        for eps0 in (0.5, 1.0, 2.0, 3.0):
            A = collision_alphabet(d, s, t, eps0, hashes=H)
            reps = input_orbit_representatives(A.inputs, n, symmetry_group(A.inputs, H, d))
            eps = [f * eps0 for f in EPS_FRACTIONS]
            best, _ = worst_case_divergence(A, n, eps, combos=reps)
            for e, b in zip(eps, best):
                _, upper = pair_value(s, t, eps0, n, e)
                assert b <= upper * (1 + 1e-9) + 1e-15, (d, s, t, n, eps0, e, b, upper)


# --------------------------------------------------------------------------- Theorem 6


@pytest.mark.parametrize("t", [3, 4, 5, 6])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_theorem6_lower_bound_with_injective_family(t, n):
    """x1 = {1-}, x1' = {1+}, x* = {2-}, family injective on {1-, 1+, 2-}: exact >= pair;
    equality at t = 3; strictly above (a Theorem 5 violation) near eps0 for t >= 4."""
    Hf = injective_hash_functions(2, t, support=(0, 1, 2))
    strict = False
    for eps0 in (0.5, 1.0, 2.0, 3.0):
        A = collision_alphabet(2, 1, t, eps0, hashes=Hf)
        eps = [f * eps0 for f in EPS_FRACTIONS]
        ex = collision_shuffled_divergence(A, (0,), (1,), [(2,)] * (n - 1), eps)
        for e, v in zip(eps, ex):
            pair, upper = pair_value(1, t, eps0, n, e)
            assert v >= pair * (1 - 1e-10) - 1e-16
            if t == 3:
                assert v == pytest.approx(pair, rel=1e-10, abs=1e-16)
            strict |= v > upper * (1 + 1e-6)
    assert strict == (t >= 4)


@pytest.mark.parametrize("t", [3, 4, 6])
def test_all_functions_family_is_below_pair_at_small_eps(t):
    """With hash collisions the worst case over inputs is well below D(P_a||Q_a) at eps = 0."""
    n, eps0 = 3, 1.0
    H = all_hash_functions(2, t)
    A = collision_alphabet(2, 1, t, eps0, hashes=H)
    reps = input_orbit_representatives(A.inputs, n, symmetry_group(A.inputs, H, 2))
    best, _ = worst_case_divergence(A, n, [0.0], combos=reps)
    pair, _ = pair_value(1, t, eps0, n, 0.0)
    assert best[0] < 0.9 * pair
