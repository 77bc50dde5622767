"""The command lines and the pages ask the mechanism registry: no comparison against a mechanism's
name in ``accountant/interfaces`` or ``app``, every option a registered mechanism takes is an option
of the mechanism commands (generated from ``OPTIONS``), and a parameter object's options read back."""
from __future__ import annotations

import argparse
import ast
import pathlib

import pytest

from accountant.core.params import MECHANISM_SPECS, MECHANISMS, OPTIONS, make_params, mechanisms_with_option
from tests.paths import REPO_ROOT


def _names() -> set:
    from mechanisms.planning.plan import MECHANISMS as PLANNED

    return set(MECHANISMS) | set(PLANNED)


def _literals(node) -> list:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [v for e in node.elts for v in _literals(e)]
    return []


def name_comparisons(path: pathlib.Path, names: set) -> list:
    """The lines of ``path`` comparing something with a mechanism name written as a literal."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            lits = _literals(node.left) + [v for c in node.comparators for v in _literals(c)]
            if any(v in names for v in lits):
                out.append(node.lineno)
    return out


def test_the_check_sees_a_comparison(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('if x == "krr":\n    pass\ny = m in ("collision", "coco")\nz = {"olh": 1}\n')
    assert name_comparisons(f, _names()) == [1, 3]


def test_no_mechanism_name_comparison_in_the_interfaces_and_pages():
    root = pathlib.Path(REPO_ROOT)
    files = sorted(root.glob("accountant/interfaces/**/*.py")) + sorted(root.glob("app/**/*.py"))
    found = {str(f.relative_to(root)): lines for f in files if (lines := name_comparisons(f, _names()))}
    assert found == {}, "ask the registry (accountant.core.params) instead: " + repr(found)


def _sub(command: str) -> argparse.ArgumentParser:
    from accountant.interfaces.cli.parser import build_parser

    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]


@pytest.mark.parametrize("command", ["epsilon", "delta", "compare", "local-epsilon", "users", "compose"])
def test_every_option_of_a_registered_mechanism_is_an_option_of_the_command(command):
    flags = {o for a in _sub(command)._actions for o in a.option_strings}
    # compose: the options of the mechanisms that compose over rounds (gaussian's sigma is not one)
    taken = [OPTIONS[o].flag for o in OPTIONS if mechanisms_with_option(o) and (
        command != "compose" or any(MECHANISM_SPECS[m].composes for m in mechanisms_with_option(o)))]
    assert taken and set(taken) <= flags


def test_the_generated_options_carry_the_registry_ranges():
    from accountant.interfaces.cli.arguments import UsageError

    sub = _sub("epsilon")
    for name, option in OPTIONS.items():
        action = next(a for a in sub._actions if option.flag in a.option_strings)
        assert action.dest == name
        if option.choices:
            assert tuple(action.choices) == option.choices and action.default == option.choices[0]
        elif option.kind is int:
            assert action.type(str(option.lo)) == option.lo
            with pytest.raises((argparse.ArgumentTypeError, UsageError, ValueError)):
                action.type(str(option.lo - 1))


_SMALL = {"s": 3, "t": 12, "d": 20, "k": 5, "g": 3, "p": 3.0, "beta": 0.4, "q": 4.0, "range": "0.0,3.0",
          "delta0": 1e-9, "sigma": 3.0}


@pytest.mark.parametrize("name", MECHANISMS)
def test_values_read_the_options_back(name):
    spec = MECHANISM_SPECS[name]
    kw = {o: _SMALL[o] for o in spec.options}
    params = make_params(name, 1.0 if spec.eps0_given else None, **kw)
    assert spec.values(params) == kw
    assert make_params(name, 1.0 if spec.eps0_given else None, **spec.values(params)) == params


def test_mechanisms_with_option():
    assert mechanisms_with_option("s") == ("collision", "coco", "pckv-grr", "pckv-ue", "pckv-agrr", "privkv")
    assert mechanisms_with_option("hash_model") == tuple(n for n, s in MECHANISM_SPECS.items() if s.random_hash)
    assert set(mechanisms_with_option("k")) == {"krr", "olh", "oue"}
    with pytest.raises(ValueError, match="option must be one of"):
        mechanisms_with_option("x")


def test_default_t_is_the_rule_the_parameter_type_applies():
    for name in mechanisms_with_option("t"):
        spec = MECHANISM_SPECS[name]
        for s, eps0 in ((1, 0.5), (4, 2.0), (32, 5.0)):
            assert spec.default_t(s, eps0) == make_params(name, eps0, s=s).t
