"""The public API: every name of ``accountant.__all__`` and ``mechanisms.__all__`` imports,
and every example in its docstring runs.

* each name of ``__all__`` exists (``from pkg import *`` works) and is listed once;
* the package docstrings and the docstring of every public object (its methods included,
  :class:`doctest.DocTestFinder` on the object) run under :mod:`doctest` without a failure;
* every public function and class shows at least one example (``>>>``);
* the interfaces (command line, tables, figures) are not re-exported (they sit above the
  packages, ``tests/test_architecture.py``).
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import re

import pytest

import accountant
import mechanisms

PACKAGES = (accountant, mechanisms)


def _obj(pkg: str, name: str):
    return getattr(importlib.import_module(pkg), name)


def _is_callable_api(obj) -> bool:
    return inspect.isclass(obj) or inspect.isroutine(obj)


PUBLIC = [(pkg.__name__, name) for pkg in PACKAGES for name in pkg.__all__]
CALLABLE = [(p, n) for p, n in PUBLIC if _is_callable_api(_obj(p, n))]
DATA = [(p, n) for p, n in PUBLIC if not _is_callable_api(_obj(p, n))]


def _run(obj, name: str, module) -> tuple[int, int]:
    """(failures, examples) of the doctests found on ``obj``."""
    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, name, module=module, globs={})
    for t in tests:
        runner.run(t)
    res = runner.summarize(verbose=False)
    return res.failed, sum(len(t.examples) for t in tests)


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.__name__)
def test_all_has_no_duplicates_and_every_name_exists(pkg):
    names = pkg.__all__
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    missing = [n for n in names if not hasattr(pkg, n)]
    assert not missing, missing
    ns: dict = {}
    exec(f"from {pkg.__name__} import *", ns)
    assert set(names) <= set(ns)


def test_the_required_names_are_public():
    required = {
        accountant: """ShuffleAccountant EpsilonReport DeltaReport make_params GenericLDP
            CollisionParams CoCoParams KRRParams OLHParams OUEParams VariationRatioParams Params
            MECHANISMS local_epsilon compose_rounds compose_schedule RoundSpec CompositionResult
            parse_schedule compute_bound compare proved_epsilon status best_proved REGISTRY
            BOUND_NAMES BoundSpec BoundResult PairAccountant DominatingPair
            hockey_stick_divergence blanket_exact_epsilon blanket_law lower_bound_epsilon
            bib_epsilon bib_delta""",
        mechanisms: """Collision CoCo SparseVectors PrivKV PCKVUE PCKVGRR PCKVAGRR Succinct
            FE0 FE1 collision_mse coco_mse optimal_t analytic_errors simulate compare plan Plan
            oue_perturb olh_perturb""",
    }
    for pkg, names in required.items():
        assert set(names.split()) <= set(pkg.__all__), set(names.split()) - set(pkg.__all__)


def test_reexports_are_the_defined_objects():
    # a public name is the object of the module that defines it, not a copy
    from accountant.accounting.shuffle import ShuffleAccountant
    from accountant.core.params import make_params
    from mechanisms.randomizers.collision import Collision

    assert accountant.ShuffleAccountant is ShuffleAccountant
    assert accountant.make_params is make_params
    assert mechanisms.Collision is Collision


def test_interfaces_are_not_reexported():
    for pkg in PACKAGES:
        for name in pkg.__all__:
            mod = getattr(_obj(pkg.__name__, name), "__module__", "") or ""
            assert ".interfaces" not in mod, f"{pkg.__name__}.{name} comes from {mod}"


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.__name__)
def test_package_docstring_examples_run(pkg):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(pkg, pkg.__name__, globs={})
    assert sum(len(t.examples) for t in tests) >= 2, "the package docstring shows an example"
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("pkg,name", CALLABLE, ids=[f"{p}.{n}" for p, n in CALLABLE])
def test_docstring_examples_run(pkg, name):
    obj = _obj(pkg, name)
    failed, examples = _run(obj, f"{pkg}.{name}", inspect.getmodule(obj))
    assert examples >= 1, f"{pkg}.{name}: its docstring has no example (>>>)"
    assert failed == 0, f"{pkg}.{name}: {failed} doctest example(s) failed (run with -s to see)"


def test_data_names_are_shown_in_the_package_examples():
    # constants and type aliases carry no runtime docstring of their own: the package
    # docstring's examples (run above) show each of them in use
    assert DATA, "the packages export data (REGISTRY, MECHANISMS, ...)"
    for pkg, name in DATA:
        doc = importlib.import_module(pkg).__doc__
        shown = [ln for ln in doc.splitlines() if ln.lstrip().startswith((">>>", "..."))]
        assert any(re.search(rf"\b{name}\b", ln) for ln in shown), \
            f"{pkg}.{name} appears in no example of {pkg}"
