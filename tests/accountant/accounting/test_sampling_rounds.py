"""User sampling over rounds with each randomizer's own per-count bound (issue 43): the per-t
chord cache is on the safe side (above certified lower ends of the truth and of the convex bound
it reads), the composed upper bound is at least the exact two-round truth (enumeration of the
sampled shuffled outputs at n <= 3, every dataset, both relations) and the composed lower bound
below it, and the own bound over rounds is at most the clone over rounds."""
import functools
import itertools
import math

import pytest

from accountant import make_params
from accountant.accounting import deployments as D
from accountant.accounting import per_count as PC
from accountant.bounds.registry import bound_delta
from tests.accountant.accounting.test_deployments import krr_row, view_law

MECHS = {"rr": {}, "krr": {"k": 4}, "oue": {"k": 4}, "olh": {"k": 4}, "collision": {"s": 1, "t": 8},
         "coco": {"s": 1, "t": 8}}


def hs2(p, q, eps):
    """Exact delta at eps of two independent rounds, each the pair (p, q) of dicts."""
    u = math.exp(eps)
    return math.fsum(max(p[a] * p[b] - u * q.get(a, 0.0) * q.get(b, 0.0), 0.0) for a in p for b in p)


def sampled_pairs(k, eps0, n, q, relation):
    """Every pair of one round's sampled views: substitution (user 0 differs, others any input)
    or add/remove (D' = D plus user 0 with any input)."""
    def row(x):
        return [q * v for v in krr_row(x, k, eps0)]
    out = []
    for others in itertools.product(range(k), repeat=n - 1):
        rest = [row(o) for o in others]
        if relation == "substitute":
            out += [(view_law([row(x)] + rest, k), view_law([row(xp)] + rest, k))
                    for x, xp in itertools.permutations(range(k), 2)]
        else:
            out += [(view_law([row(x)] + rest, k), view_law(rest, k)) for x in range(k)]
    return out


def worst2(pairs, eps):
    return max(max(hs2(a, b, eps), hs2(b, a, eps)) for a, b in pairs)


@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
@pytest.mark.parametrize("relation,n,delta", [("substitute", 2, 0.02), ("substitute", 3, 0.02),
                                              ("add-remove", 3, 0.3)])  # add/remove at n = 2: eps infinite
def test_own_bound_over_two_rounds_brackets_the_exact_truth(mech, k, relation, n, delta):
    """upper (own per-count bound, composed) >= the exact two-round worst case >= lower, and the
    own bound over rounds <= the clone over rounds on the same grid."""
    eps0, q = 1.0, 0.5
    params = make_params(mech, eps0, **({"k": k} if mech == "krr" else {}))
    r = D.sampled_rounds_epsilon(params, n, delta, q, 2, neighbours=relation)
    clone = D.sampled_rounds_epsilon(params, n, delta, q, 2, neighbours=relation, mechanism=False, lower=False)
    pairs = sampled_pairs(k, eps0, n, q, relation)
    assert r.epsilon < 2 * eps0 and worst2(pairs, r.epsilon) <= delta, (r.epsilon, worst2(pairs, r.epsilon))
    assert r.epsilon <= clone.epsilon and clone.bound == "clone-sampled-pld"
    assert r.bound.endswith("-sampled-pld") and set(r.bound[:-len("-sampled-pld")].split("+")) <= (
        {"search", "blanket"} if mech == "rr" else {"blanket"}), r.bound
    if mech == "rr":  # the named pair's composed lower bound
        assert 0 < r.lower_epsilon < r.epsilon and worst2(pairs, r.lower_epsilon) > delta


@pytest.mark.parametrize("mech", sorted(MECHS))
def test_chord_cache_is_on_the_safe_side(mech):
    """The per-count value read through the chord cache is >= the certified lower end of the
    truth (the registry's lower bound at t users; binary RR: its exact bracket) and >= the lower
    end of the convex bound it interpolates, evaluated at e itself (no cache); on the finest
    level it is at most the old value at e rounded down to the grid (never looser)."""
    params = make_params(mech, 3.0, **MECHS[mech])
    checked = 0
    for t in (40, 300):
        for e in (0.011, 0.05, 0.13, 0.31, 0.52, 0.9, 1.37, 2.2):
            f, names = PC.chord_value(lambda tt, i: PC._grid_value(params, tt, i), t, e, PC.ROUNDS_LEVELS)
            lower = bound_delta("exact" if mech == "rr" else "lower", params, t, e)
            assert lower is None or f >= lower[0] * (1 - 1e-12), (t, e, f, lower)  # CoCo: no lower delta
            if len(names) == 1 and names[0] in ("blanket", "exact"):
                direct = bound_delta(names[0], params, t, e)
                assert f >= direct[0] * (1 - 1e-12), (t, e, f, direct)
                checked += 1
            fine = PC.chord_value(lambda tt, i: PC._grid_value(params, tt, i), t, e, (PC.E_FINE,))[0]
            assert fine <= PC._grid_value(params, t, PC._bracket(math.log(e), e, 1))[0], (t, e)
    assert checked >= 8, checked


def test_count_delta_chord_at_most_the_clone_and_zero_from_eps0():
    params = make_params("krr", 2.0, k=4)
    for t, e in ((30, 0.2), (500, 0.07), (500, 0.6)):
        own = D.count_delta(params, t, e, chord=PC.ROUNDS_LEVELS)
        clone = D.count_delta(params, t, e, mechanism=False, chord=PC.ROUNDS_LEVELS)
        assert 0 < own[0] <= clone[0] and own[1] == "blanket" and clone[1] == "clone"
    assert D.count_delta(params, 10, 2.0, chord=PC.ROUNDS_LEVELS) == (0.0, "post-processing")


@functools.cache
def _clone_over_rounds(eps0: float):
    """The clone over rounds (mechanism=False) of an eps0-LDP randomizer: the generic clone
    profile, a function of eps0 alone, so it is computed once for every randomizer below."""
    return D.sampled_rounds_epsilon(make_params("generic", eps0), 2000, 1e-5, 0.05, 10, mechanism=False,
                                    lower=False)


@pytest.mark.parametrize("mech", sorted(MECHS))
def test_own_bound_over_rounds_at_most_the_clone(mech):
    """Each named randomizer's own bound over rounds: at most the clone over rounds (same strata,
    same grid), strictly below it, and named in ``bound``."""
    params = make_params(mech, 3.0, **MECHS[mech])
    own = D.sampled_rounds_epsilon(params, 2000, 1e-5, 0.05, 10, lower=False)
    clone = _clone_over_rounds(params.eps0)
    assert own.epsilon < 0.99 * clone.epsilon, (own.epsilon, clone.epsilon)
    assert own.bound in (("search-sampled-pld", "search+blanket-sampled-pld") if mech == "rr" else
                         ("blanket-sampled-pld",)), own.bound
    assert "blanket" in own.statement or "search" in own.statement


def test_clone_over_rounds_where_the_own_bound_is_too_slow(monkeypatch):
    """OUE above n q = OUE_ROUNDS_MAX_T and finite matrices keep the clone over rounds: the same
    number as mechanism=False, and the bound says so."""
    from accountant.core.catalogue import subset_selection

    monkeypatch.setattr(PC, "OUE_ROUNDS_MAX_T", 50)
    for params in (make_params("oue", 3.0, k=4), subset_selection(6, 3.0, 2)):
        r = D.sampled_rounds_epsilon(params, 2000, 1e-5, 0.05, 10, lower=False)
        clone = D.sampled_rounds_epsilon(params, 2000, 1e-5, 0.05, 10, lower=False, mechanism=False)
        assert r.bound == "clone-sampled-pld" and r.epsilon == clone.epsilon


@pytest.mark.parametrize("eps0", [0.5, 1.0, 3.0])
def test_rr_search_over_rounds_brackets_the_truth_at_small_e(eps0):
    """Binary RR over rounds: the per-count value through the floor chord (e below
    exp(RR_FLOOR_I / E_FINE)) and the log grid is >= the brute-force maximum over every dataset
    of the certified lower end (t rounded down to both grids first, as count_delta does), and
    below the floor within a few per cent of it (the chord's slack, the search's tolerance)."""
    from accountant.engines.two_input import dataset_delta

    params = make_params("rr", eps0)
    for t in (60, 250):
        tt = PC.t_grid(PC.t_grid(t), PC.RR_T_GRID)
        for e in (0.0, 1e-4, 0.003, 0.02, 0.07, 0.2):
            f, names = D.count_delta(params, t, e, chord=PC.ROUNDS_LEVELS)
            truth = max(dataset_delta(tt, m, eps0, e).lower for m in range(tt))
            top = max(dataset_delta(tt, m, eps0, e).upper for m in range(tt))
            assert truth <= f, (t, e, f, truth, names)
            if e <= 0.003:  # far below the floor: its chord is tight (higher up the grid's chord can be looser)
                assert f <= 1.08 * top + 1e-12, (t, e, f, top, names)


def test_tolerant_delta_within_its_tolerance_of_the_brute_maximum():
    """binary_exact.tolerant_delta: lower <= the brute maximum over m <= upper <= (1 + tol) times
    it (plus the single evaluations' widths), and the trivial bound outside its range."""
    from accountant.bounds.binary_exact import HEADLINE_MAX_N, tolerant_delta
    from accountant.engines.two_input import dataset_delta

    for n, eps0, e in ((50, 1.0, 0.0), (50, 1.0, 0.3), (200, 3.0, 0.01), (200, 0.5, 0.05)):
        lo, up = tolerant_delta(n, eps0, e, 0.03)
        brute_lo = max(dataset_delta(n, m, eps0, e).lower for m in range(n))
        brute_up = max(dataset_delta(n, m, eps0, e).upper for m in range(n))
        assert lo <= brute_up and brute_lo <= up <= 1.03 * brute_up + 1e-12, (n, eps0, e, lo, up, brute_lo)
    assert tolerant_delta(10, 1.0, 1.0, 0.03) == (0.0, 0.0)
    with pytest.raises(ValueError, match="n: at most"):
        tolerant_delta(HEADLINE_MAX_N + 1, 1.0, 0.1, 0.03)
