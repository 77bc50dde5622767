"""The examples (``>>>``) in every module of ``accountant`` and ``mechanisms`` run without a
failure, private helpers included (``tests/test_public_api.py`` runs those of the public API;
an example on a search helper, ``composition.compose.composed_upper``, went stale unseen when
its default sampling changed). ``__main__`` modules are left out: importing one runs the CLI."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import accountant
import mechanisms

MODULES = sorted(m.name for pkg in (accountant, mechanisms)
                 for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
                 if not m.name.endswith("__main__"))


def test_the_modules_are_found():
    assert "accountant.composition.compose" in MODULES and "mechanisms.analysis.coco" in MODULES
    assert len(MODULES) > 100


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples failed in {name}"
