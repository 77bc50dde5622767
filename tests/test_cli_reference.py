"""The command-line reference (docs/reference/cli.md) is the one scripts/cli_reference.py
generates from the argparse trees of both command lines: an option added, renamed or given
another help string fails here until the page is regenerated
(``python scripts/cli_reference.py``)."""
from __future__ import annotations

import argparse
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _generator():
    path = os.path.join(ROOT, "scripts", "cli_reference.py")
    spec = importlib.util.spec_from_file_location("cli_reference", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_reference_is_the_generated_one():
    gen = _generator()
    with open(gen.OUT, encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == gen.generate(), \
        "docs/reference/cli.md is not up to date: run python scripts/cli_reference.py"


def test_reference_names_every_command_and_option():
    from accountant.interfaces.cli import build_parser as accountant_parser
    from mechanisms.interfaces.cli import build_parser as mechanisms_parser

    text = _generator().generate()
    parsers = (("accountant", accountant_parser()), ("mechanisms", mechanisms_parser()))
    for module, parser in parsers:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for name, sp in sub.choices.items():
            section = text.split(f"### {module} {name}\n", 1)[1].split("\n### ", 1)[0]
            for action in sp._actions:
                if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                    continue
                for opt in action.option_strings:
                    assert f"`{opt}`" in section, f"{module} {name}: {opt} missing"


def test_cell_escapes_table_syntax():
    cell = _generator()._cell
    assert cell("a | b") == "a \\| b"
    assert cell("x <tag> y") == "x &lt;tag&gt; y"
    assert cell("two\n  lines") == "two lines"
