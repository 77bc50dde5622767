"""Every dotted ``accountant.*`` / ``mechanisms.*`` name written in the package code, the
tests, the benchmarks and the docs imports: a module, or an attribute reached from one.

A rename that leaves a docstring, a printed note or a page naming the old path fails here.
"""
from __future__ import annotations

import importlib
import pathlib
import re

from tests.paths import REPO_ROOT

DOTTED = re.compile(r"(?<![\w./-])((?:accountant|mechanisms)(?:\.[A-Za-z_]\w*)+)")
SUFFIXES = (".py", ".md", ".toml", ".yml")
FOLDERS = ("accountant", "mechanisms", "app", "tests", "benchmarks", "docs", "scripts")
NOT_NAMES = (".py", ".md", ".json", ".csv", ".tex", ".bib", ".png", ".npy")


def resolves(name: str) -> bool:
    """True when ``name`` is a module or an attribute chain from the longest importable
    module prefix.  Entry points (``__main__``) are not imported: they run the command."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def dotted_names(paths, root=REPO_ROOT) -> dict:
    """name -> the ``path:line`` places (relative to ``root``) it is written."""
    out: dict = {}
    for p in paths:
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in DOTTED.finditer(line):
                name = m.group(1)
                if name.endswith(NOT_NAMES) or "__main__" in name:
                    continue
                out.setdefault(name, []).append(f"{p.relative_to(root)}:{i}")
    return out


def _files():
    root = pathlib.Path(REPO_ROOT)
    yield root / "README.md"
    for folder in FOLDERS:
        for p in sorted((root / folder).rglob("*")):
            if p.suffix in SUFFIXES and "__pycache__" not in p.parts and p.name != "test_dotted_names.py":
                yield p


def test_every_dotted_name_imports():
    stale = {n: where for n, where in dotted_names(_files()).items() if not resolves(n)}
    assert not stale, "dotted names that do not import:\n" + "\n".join(
        f"{n}  ({', '.join(w[:3])})" for n, w in sorted(stale.items()))


def test_the_check_sees_a_stale_name(tmp_path):
    f = tmp_path / "x.md"
    f.write_text("see accountant.core.params.make_params and accountant.nowhere.thing,\n"
                 "`mechanisms.planning`, the file accountant/core/params.py, python -m accountant.__main__\n")
    names = dotted_names([f], root=tmp_path)
    assert names == {"accountant.core.params.make_params": ["x.md:1"], "accountant.nowhere.thing": ["x.md:1"],
                     "mechanisms.planning": ["x.md:2"]}
    assert [resolves(n) for n in names] == [True, False, True]
