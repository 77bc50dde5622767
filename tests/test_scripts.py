"""The two set-up commands: syntax, the CI entry point, and that a re-run with nothing
changed does not reinstall (scripts/_venv.sh's stamp)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = ["scripts/run.sh", "scripts/test.sh", "scripts/_venv.sh", ".ci/run"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_bash_syntax(script):
    p = subprocess.run(["bash", "-n", os.path.join(ROOT, script)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_ci_runs_the_readme_test_command():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)
    assert commands == ["bash scripts/run.sh", "bash scripts/test.sh"]
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as fh:
        last = [ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")][-1]
    assert last == commands[1]


def _fake_venv(tmp_path):
    """A checkout copy with a fake .venv whose python logs its arguments."""
    work = tmp_path / "co"
    (work / "scripts").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "scripts", "_venv.sh"), work / "scripts")
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), work)
    (work / "constraints").mkdir()
    (work / "constraints" / "minimum.txt").write_text("numpy==2.0.0\n")
    py = work / ".venv" / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/../calls.log"\n')
    py.chmod(0o755)
    return work


def _pip(work, *args):
    cmd = ". scripts/_venv.sh && ensure_venv .venv && pip_install .venv " + " ".join(args)
    p = subprocess.run(["bash", "-c", cmd], cwd=work, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    log = work / ".venv" / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_rerun_installs_only_when_something_changed(tmp_path):
    work = _fake_venv(tmp_path)
    # ensure_venv probes the interpreter ("-c import sys"), then pip runs once
    first = [c for c in _pip(work, "-e", "'.[test]'") if "pip install" in c]
    assert len(first) == 1 and first[0].endswith("-e .[test]")
    again = [c for c in _pip(work, "-e", "'.[test]'") if "pip install" in c]
    assert len(again) == 1  # nothing changed: no second install
    other = [c for c in _pip(work, "-e", ".") if "pip install" in c]
    assert len(other) == 2  # other arguments: install
    back = [c for c in _pip(work, "-e", "'.[test]'") if "pip install" in c]
    assert len(back) == 2  # run.sh then test.sh again: each keeps its own stamp
    with open(work / "pyproject.toml", "a") as fh:
        fh.write("\n# changed\n")
    changed = [c for c in _pip(work, "-e", ".") if "pip install" in c]
    assert len(changed) == 3  # pyproject.toml changed: install
    (work / "constraints" / "minimum.txt").write_text("numpy==2.0.1\n")
    assert len([c for c in _pip(work, "-e", ".") if "pip install" in c]) == 4
