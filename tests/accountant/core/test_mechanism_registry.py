"""The mechanism registry (accountant.core.params.MECHANISM_SPECS): each entry's data is true of
the parameter object it builds, and every name list, option check and eps0 range comes from it."""
from __future__ import annotations

import pytest

from accountant.core import catalogue
from accountant.core.params import (MECHANISM_SPECS, MECHANISMS, OPTIONS, make_params, mechanism_names,
                                    mechanism_spec, menu_order)

# the smallest options each entry needs, and a value for every option it takes
REQUIRED = {"collision": {"s": 2}, "coco": {"s": 2}, "krr": {"k": 3}, "olh": {"k": 5}, "oue": {"k": 4},
            "variation-ratio": {"p": 2.0, "beta": 0.3}, "gaussian": {"sigma": 2.0},
            **{kv: {"d": 8, "s": 2} for kv in ("pckv-grr", "pckv-ue", "pckv-agrr", "privkv")}}
ONE_VALUE = {"s": 2, "t": 12, "d": 8, "k": 5, "g": 3, "p": 2.0, "beta": 0.3, "q": 2.5, "sigma": 3.0}


def _build(name: str, **extra):
    kw = dict(REQUIRED.get(name, {}), **extra)
    eps0 = None if not MECHANISM_SPECS[name].eps0_given else 1.0
    return make_params(name, eps0, **kw)


@pytest.mark.parametrize("name", MECHANISMS)
def test_an_entry_builds_its_type_with_its_name(name):
    spec = MECHANISM_SPECS[name]
    params = _build(name)
    assert type(params) is spec.type and params.name == name
    assert set(spec.options) <= set(OPTIONS) and {o for o, _ in spec.required} <= set(spec.options)


@pytest.mark.parametrize("name", MECHANISMS)
def test_options_outside_the_entry_are_refused_and_inside_are_used(name):
    spec = MECHANISM_SPECS[name]
    for option, value in ONE_VALUE.items():
        if option in spec.options:
            if name == "coco" and option == "t":
                value = 6  # even, >= 2s + 2
            params = _build(name, **{option: value})
            field = {"g": "t", "k": "d"}.get(option, option) if name == "olh" else option
            assert getattr(params, field) == value, (name, option)
        else:
            with pytest.raises(ValueError, match=f"^{option} does not apply to mechanism '{name}'"):
                _build(name, **{option: value})
    for option, words in spec.required:
        kw = {o: v for o, v in REQUIRED[name].items() if o != option}
        with pytest.raises(ValueError, match=f"^{option} is required for mechanism '{name}'"):
            make_params(name, 1.0, **kw)


@pytest.mark.parametrize("name", MECHANISMS)
def test_capabilities_are_true_of_the_object(name):
    spec = MECHANISM_SPECS[name]
    params = _build(name)
    assert (params.t is not None and params.s is not None) == spec.hashed
    assert spec.keyed == ("k" in spec.options)  # a domain of k values the user chooses (rr: k = 2)
    assert not spec.keyed or (params.d if name == "olh" else params.k) == REQUIRED[name]["k"]
    if spec.random_hash:
        assert _build(name, hash_model="random").hash_model == "random"
    else:
        with pytest.raises(ValueError, match="hash_model 'random' is available for collision, coco and olh"):
            _build(name, hash_model="random")
    assert hasattr(params, "mixture_weight") or not spec.paper_pair
    if spec.composes:
        from accountant.composition.rounds import ROUND_MECHANISMS

        assert name in ROUND_MECHANISMS


def test_queries_and_menu():
    assert mechanism_names(keyed=True) == ("krr", "olh", "oue")
    assert mechanism_names(hashed=True, keyed=False) == ("collision", "coco", "rr", "duchi")
    assert mechanism_names(two_valued=True) == ("rr", "duchi")
    assert mechanism_names() == MECHANISMS
    assert sorted(menu_order(MECHANISMS)) == sorted(MECHANISMS)
    assert menu_order(MECHANISMS)[0] == "collision"
    with pytest.raises(ValueError, match="capability must be one of the boolean fields"):
        mechanism_names(label=True)
    with pytest.raises(ValueError, match="^mechanism must be one of generic, collision"):
        mechanism_spec("x" * 100_000)
    # the message names the choices and a bounded prefix of the input, not the whole input
    assert len(str(pytest.raises(ValueError, mechanism_spec, "x" * 100_000).value)) < len(", ".join(MECHANISMS)) + 100


@pytest.mark.parametrize("eps0", [1e-12, 0.0, 31.0, float("nan"), True])
def test_one_eps0_range_for_the_registry_and_the_catalogue(eps0):
    msg = r"^eps0 must be a number in \[1e-10, 30\]"
    for name in mechanism_names(eps0_given=True):
        with pytest.raises(ValueError, match=msg):
            make_params(name, eps0, **REQUIRED.get(name, {}))
    for name, (build, _) in catalogue.CATALOGUE.items():
        with pytest.raises(ValueError, match=msg):
            build(4, eps0)
