"""Issue 44 item 6: every option of both command lines says what it is in ``--help``;
``--hash-model`` names every mechanism it applies to (CoCo too); ``plan --help`` explains
``--d`` and ``--s``."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

from accountant.bounds.laws.random_hash import RANDOM_MECHANISMS
from accountant.interfaces.cli.parser import build_parser as accountant_parser
from mechanisms.interfaces.cli import build_parser as mechanisms_parser
from tests.paths import REPO_ROOT


def _subcommands(parser) -> dict:
    return dict(parser._subparsers._group_actions[0].choices)


def _options():
    for cli, build in (("accountant", accountant_parser), ("mechanisms", mechanisms_parser)):
        for command, sub in _subcommands(build()).items():
            for action in sub._actions:
                if action.option_strings and not isinstance(action, argparse._HelpAction):
                    yield cli, command, action


@pytest.mark.parametrize("cli,build", [("accountant", accountant_parser), ("mechanisms", mechanisms_parser)])
def test_every_option_of_every_command_has_a_help_text(cli, build):
    missing = [f"{cli} {command} {action.option_strings[-1]}" for c, command, action in _options()
               if c == cli and len((action.help or "").strip()) < 8]
    assert missing == []
    # and argparse shows it: each option's line in the command's --help carries words
    for command, sub in _subcommands(build()).items():
        text = sub.format_help()
        for action in sub._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction):
                first = (action.help or "").split()[0]
                assert first in text, (command, action.option_strings)


def test_hash_model_help_names_every_mechanism_with_a_random_hash_model():
    seen = []
    for cli, command, action in _options():
        if "--hash-model" in action.option_strings:
            seen.append(command)
            names = set(re.findall(r"[a-z]+", action.help.split(":")[0]))
            assert set(RANDOM_MECHANISMS) <= names, (command, action.help)
            assert "coco" in action.help
    assert {"epsilon", "delta", "compare", "local-epsilon", "table", "compose"} <= set(seen)


def test_plan_help_explains_d_and_s():
    r = subprocess.run([sys.executable, "-m", "mechanisms", "plan", "--help"], capture_output=True,
                       text=True, timeout=60, cwd=REPO_ROOT)
    assert r.returncode == 0 and r.stderr == ""
    text = re.sub(r"\s+", " ", r.stdout)
    assert re.search(r"--d D dimension d: each user holds an s-sparse vector over d items", text)
    assert re.search(r"--s S sparsity s in \[1, d\]: the number of nonzero items per user", text)
    assert re.search(r"--estimate \{mean,frequency\} what the error is measured on", text)
