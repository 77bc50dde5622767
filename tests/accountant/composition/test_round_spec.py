"""A round is (parameter object, n) with a repeat count: any parameter object composes, the name
form builds the same round, a repeat count is that many identical rounds, and every type the
registry says composes has a kind of round (profile, support, source) registered."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from accountant import GenericLDP, OLHParams, RoundSpec, compose_rounds, compose_schedule, make_params
from accountant.composition.compose import composed_upper, round_source
from accountant.composition.profile import ROUND_KINDS, profile_support, round_kind, round_profile
from accountant.composition.rounds import ROUND_MECHANISMS, round_options
from accountant.core.catalogue import krr as matrix_krr
from accountant.core.limits import MAX_ROUNDS
from accountant.core.params import MECHANISM_SPECS, mechanism_spec

# small parameters of every named mechanism (its required options)
OPTIONS = {"collision": dict(s=2), "coco": dict(s=2), "krr": dict(k=4), "olh": dict(k=4, g=3),
           "oue": dict(k=4), "variation-ratio": dict(p=3.0, beta=0.4),
           **{kv: dict(d=4, s=2) for kv in ("pckv-grr", "pckv-ue", "pckv-agrr", "privkv")}}


def _params(name: str):
    eps0 = None if not mechanism_spec(name).eps0_given else 1.0
    return make_params(name, eps0, **OPTIONS.get(name, {}))


@pytest.mark.parametrize("name", ROUND_MECHANISMS)
def test_every_composing_mechanism_has_a_kind_of_round(name):
    params = _params(name)
    spec = RoundSpec(params, 1000)
    assert round_kind(type(params)) in ROUND_KINDS.values()
    assert spec.params() is params and spec.mechanism == name and spec.eps0 == params.eps0
    eps0 = 1.0 if mechanism_spec(name).eps0_given else None
    assert spec == RoundSpec.named(name, 1000, eps0, **OPTIONS.get(name, {}))
    assert isinstance(round_source(spec), str) and round_source(spec) == round_source(name)
    assert 0.0 < profile_support(spec) <= spec.eps0
    lo, up = round_profile(spec)(0.1)
    assert 0.0 <= lo <= up <= 1.0


def test_the_registry_says_every_named_mechanism_composes():
    assert set(ROUND_MECHANISMS) == {n for n, s in MECHANISM_SPECS.items() if s.composes}


def test_an_unregistered_type_has_no_kind_of_round():
    class Other:
        pass

    with pytest.raises(ValueError, match="no round profile for a Other"):
        round_kind(Other)
    with pytest.raises(ValueError, match="mechanism must be one of"):
        RoundSpec(1000, 1.0, "no-such-mechanism")


def test_the_name_form_and_the_parameter_object_are_the_same_round():
    olh = OLHParams(1.0, k=10, g=2)
    assert RoundSpec(olh, 1000) == RoundSpec(1000, 1.0, "olh", k=10, g=2)
    assert RoundSpec(olh, 1000) == RoundSpec.named("olh", 1000, 1.0, k=10, g=2)
    assert RoundSpec(olh, 1000) != RoundSpec(1000, 1.0, "olh", k=10)  # g is the round's
    assert RoundSpec(olh, 1000).options == {"k": 10, "g": 2}
    spec = RoundSpec(1000, 2.0, "collision", s=4, d=64, hash_model="random")
    assert spec.randomizer == make_params("collision", 2.0, s=4, d=64, hash_model="random")
    assert (spec.s, spec.t, spec.d, spec.k, spec.g, spec.hash_model) == (4, 36, 64, None, None, "random")
    assert RoundSpec(1000, 1.0, "krr", k=4).s is None  # an option the mechanism does not take
    assert round_options(matrix_krr(3, 1.0)) == {}
    with pytest.raises(AttributeError):
        spec.no_such_field  # noqa: B018


def test_a_round_of_a_matrix():
    R = matrix_krr(3, 1.0)
    assert RoundSpec(R, 500) == RoundSpec.finite(R, 500) == RoundSpec(500, None, "finite", randomizer=R)
    assert RoundSpec(R, 500).randomizer is R and RoundSpec(R, 500).mechanism == "finite"


def test_a_round_is_a_value():
    spec = RoundSpec(OLHParams(1.0, k=10, g=2), 1000, repeat=2)
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert hash(spec) == hash(RoundSpec(spec.randomizer, 1000, 2))
    assert dataclasses.replace(spec, n=10) == RoundSpec(spec.randomizer, 10, repeat=2)
    one = spec.single
    assert one == RoundSpec(spec.randomizer, 1000) and one.single is one
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.n = 5


@pytest.mark.parametrize("repeat", [0, MAX_ROUNDS + 1, 1.5, True, "2"])
def test_repeat_is_checked(repeat):
    with pytest.raises(ValueError, match="repeat must be an integer in"):
        RoundSpec(GenericLDP(1.0), 1000, repeat=repeat)


def test_a_repeat_count_is_that_many_identical_rounds():
    a, b = GenericLDP(1.0), make_params("krr", 1.5, k=4)
    blocks = [RoundSpec(a, 2000, repeat=2), RoundSpec(b, 3000)]
    flat = [RoundSpec(a, 2000)] * 2 + [RoundSpec(b, 3000)]
    assert compose_schedule(blocks, 1e-6, adaptive=False) == compose_schedule(flat, 1e-6, adaptive=False)
    r = compose_rounds(RoundSpec(b, 3000, repeat=3), 2, 1e-6, adaptive=False)
    assert r == compose_rounds(RoundSpec(b, 3000), 6, 1e-6, adaptive=False) and r.rounds == 6
    assert composed_upper(RoundSpec(b, 3000, repeat=3), 2, 1e-6) == \
        composed_upper(RoundSpec(b, 3000), 6, 1e-6)
    with pytest.raises(ValueError, match="rounds must be an integer in"):
        compose_schedule([RoundSpec(a, 2000, repeat=MAX_ROUNDS), RoundSpec(a, 2000)], 1e-6)
    with pytest.raises(ValueError, match="rounds must be an integer in"):
        compose_rounds(RoundSpec(a, 2000, repeat=2), MAX_ROUNDS, 1e-6)


def test_options_that_fix_eps0():
    spec = RoundSpec.named("variation-ratio", 1000, p=3.0, beta=0.4)
    assert RoundSpec.named("variation-ratio", 1000, spec.eps0, p=3.0, beta=0.4) == spec
    with pytest.raises(ValueError, match="eps0 does not apply to mechanism 'variation-ratio'"):
        RoundSpec.named("variation-ratio", 1000, 1.0, p=3.0, beta=0.4)
    with pytest.raises(ValueError, match="s does not apply to mechanism 'generic'"):
        RoundSpec.named("generic", 1000, 1.0, s=4)  # an option is used or refused


def test_a_schedule_round_uses_or_refuses_each_field():
    from accountant import parse_schedule

    with pytest.raises(ValueError, match="round 0: s does not apply to mechanism 'generic'"):
        parse_schedule([{"n": 1000, "eps0": 1.0, "s": 4}])  # was accepted and dropped
    with pytest.raises(ValueError, match="round 0: mechanism must be one of .*variation-ratio, .*finite, "
                                         "got 'no-such-mechanism'"):
        parse_schedule([{"n": 1000, "eps0": 1.0, "mechanism": "no-such-mechanism"}])
    specs = parse_schedule([{"n": 1000, "eps0": 1.0, "mechanism": "olh", "k": 10, "g": 2, "repeat": 2}])
    assert specs == [RoundSpec(OLHParams(1.0, k=10, g=2), 1000)] * 2
