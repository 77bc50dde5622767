"""Imports only where used: the command lines parse and refuse their arguments, and the
dashboard's Home page shows its text, before any numerics library or engine is imported.

Measured as module names in ``python -X importtime`` (what is imported, not its seconds: a
share that does not depend on the machine's load), in a fresh interpreter per command.  The
packages' lazy public names (``accountant``, ``mechanisms``, ``accountant.protocols.bib``: a
module ``__getattr__``) are checked against their ``TYPE_CHECKING`` imports, which the API
reference reads.
"""
from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

#: what a parse, a refusal or the Home page must not import: the numerics libraries and the
#: project's engines (and, but for the mechanisms' command line, numpy)
HEAVY = ("scipy", "mpmath", "accountant.engines.binomial", "accountant.engines.pair",
         "accountant.engines.blanket", "accountant.bounds.laws", "accountant.composition.compose")

COMMANDS = {
    "accountant --help": (["-m", "accountant", "--help"], 0),
    "accountant epsilon --help": (["-m", "accountant", "epsilon", "--help"], 0),
    "accountant epsilon --n -1": (["-m", "accountant", "epsilon", "--n", "-1", "--eps0", "1", "--delta", "1e-6"], 2),
    "accountant no command": (["-m", "accountant"], 2),
    "mechanisms --help": (["-m", "mechanisms", "--help"], 0),
    "mechanisms error --n -1": (["-m", "mechanisms", "error", "--mechanism", "collision", "--n", "-1", "--d", "8",
                                 "--s", "1", "--eps0", "1"], 2),
    "Home page": (["-c", "import runpy; runpy.run_path('app/Home.py', run_name='__main__')"], 0),
}


def imported_modules(argv: list, status: int) -> set:
    """The modules ``python -X importtime argv`` imports (run in the repository)."""
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    out = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=REPO_ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == status, out.stderr[-2000:]
    names = {ln.rsplit("|", 1)[-1].strip() for ln in out.stderr.splitlines() if ln.startswith("import time:")}
    assert "encodings" in names, "no -X importtime output read"
    return names


def heavy(names: set) -> list:
    return sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize("label", COMMANDS)
def test_parse_and_refuse_import_no_numerics(label):
    argv, status = COMMANDS[label]
    names = imported_modules(argv, status)
    assert not heavy(names), f"{label} imports {heavy(names)[:8]}"
    if label == "Home page":  # the page's words alone: no part of the two packages, no numpy
        assert not [n for n in names if n.split(".")[0] in ("numpy", "accountant", "mechanisms")]
    if label.startswith("accountant"):  # the accountant's parser and checks need no numpy either
        assert "numpy" not in names


def test_a_computation_still_imports_the_engines():
    # the check above can fail: a command that computes imports what it computes with
    names = imported_modules(["-m", "accountant", "epsilon", "--n", "1000", "--eps0", "1", "--delta", "1e-6",
                              "--mechanism", "krr", "--k", "4"], 0)
    assert "scipy" in names and "accountant.engines.blanket.engine" in names


@pytest.mark.parametrize("package", ["accountant", "mechanisms", "accountant.protocols.bib"])
def test_lazy_names_are_the_type_checking_imports(package):
    pkg = importlib.import_module(package)
    tree = ast.parse(open(pkg.__file__, encoding="utf-8").read())
    guarded = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING"]
    assert len(guarded) == 1
    static = {a.name: n.module for n in guarded[0].body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert static == pkg._HOME
    assert set(pkg.__all__) == set(static)
    for name, module in static.items():  # each name is the object of the module that defines it
        assert getattr(pkg, name) is getattr(importlib.import_module(module), name)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        getattr(pkg, "not_a_name")
