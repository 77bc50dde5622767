"""A new user's first commands: missing optional engines, no arguments, --help, the
console commands.  Each case is one line on stderr (or the usage), a known exit status,
no traceback, nothing written.

Missing packages are simulated in a subprocess by a stub module first on sys.path that
raises ImportError (what Python does when the package is not installed).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from accountant.interfaces import cli as acli
from mechanisms.interfaces import cli as mcli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(args, tmp_path, hide=(), timeout=120):
    """Run ``python ARGS`` with the modules in ``hide`` made uninstallable."""
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    for name in hide:
        (stubs / f"{name}.py").write_text(f'raise ImportError("No module named {name!r} (stub)")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(stubs), ROOT]),
               PYTHONDONTWRITEBYTECODE="1")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def _one_line(p, *words):
    assert "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def test_arb_without_python_flint(tmp_path):
    p = _run(["-m", "accountant", "delta", "--n", "100000", "--eps0", "4", "--eps", "3",
              "--bound", "stronger-clone", "--method", "arb", "--json"], tmp_path, hide=("flint",))
    assert p.returncode == 2 and p.stdout == ""
    _one_line(p, "--method arb", "python-flint", "pip install", "[certified]")


def test_arb_without_python_flint_epsilon_and_api(tmp_path):
    p = _run(["-m", "accountant", "epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6",
              "--method", "arb"], tmp_path, hide=("flint",))
    assert p.returncode == 2 and p.stdout == ""
    _one_line(p, "python-flint")
    # the library: a MissingDependency (an ImportError) naming the package, at construction
    code = ("from accountant.bounds.pair_accountant import PairAccountant\n"
            "from accountant.core.params import make_params\n"
            "from accountant.core.optional import MissingDependency\n"
            "try:\n"
            "    PairAccountant(make_params('generic', 4.0), 10**5, method='arb')\n"
            "except MissingDependency as e:\n"
            "    assert isinstance(e, ImportError)\n"
            "    print(e)\n")
    p = _run(["-c", code], tmp_path, hide=("flint",))
    assert p.returncode == 0 and "python-flint" in p.stdout and "[certified]" in p.stdout


def test_scheduler_without_dask(tmp_path):
    p = _run(["-m", "accountant", "table", "--n", "1000", "--eps0", "1", "--delta", "1e-6",
              "--out", "t.csv", "--scheduler", "tcp://127.0.0.1:1"], tmp_path,
             hide=("distributed",))
    assert p.returncode == 2 and p.stdout == ""
    _one_line(p, "--scheduler", "dask[distributed]", "[dask]")
    assert os.listdir(tmp_path / "work") == []


def test_dp_accounting_export_without_dp_accounting(tmp_path):
    code = ("from accountant.composition import pld\n"
            "from accountant.core.optional import MissingDependency\n"
            "try:\n"
            "    pld.to_dp_accounting(None)\n"
            "except MissingDependency as e:\n"
            "    print(e)\n")
    p = _run(["-c", code], tmp_path, hide=("dp_accounting",))
    assert p.returncode == 0, p.stderr
    assert "dp-accounting" in p.stdout and "[pld]" in p.stdout


@pytest.mark.parametrize("module, commands", [
    ("accountant", ("epsilon", "delta", "local-epsilon", "compare", "compose")),
    ("mechanisms", ("simulate", "error", "compare", "fe-table")),
])
def test_no_arguments_prints_usage_and_common_commands(tmp_path, module, commands):
    p = _run(["-m", module], tmp_path)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.startswith("usage: python -m " + module)
    examples = [ln.strip() for ln in p.stderr.splitlines()
                if ln.startswith(f"  python -m {module} ")]
    assert len(examples) == 5
    for c in commands:
        assert any(e.split()[3] == c for e in examples), c
    assert "generic" in p.stderr and "proved" in p.stderr


ACC_COMMANDS = sorted(acli.build_parser()._subparsers._group_actions[0].choices)
MECH_COMMANDS = sorted(mcli.build_parser()._subparsers._group_actions[0].choices)


HELP_CASES = ([(acli, "accountant", a) for a in [["--help"]] + [[c, "--help"] for c in ACC_COMMANDS]]
              + [(mcli, "mechanisms", a) for a in [["--help"]] + [[c, "--help"] for c in MECH_COMMANDS]])


@pytest.mark.parametrize("cli, module, argv", HELP_CASES,
                         ids=[f"{m}-{a[0]}" for _, m, a in HELP_CASES])
def test_help_ends_with_examples_and_defaults(cli, module, argv, capsys):
    with pytest.raises(SystemExit) as ei:
        cli.build_parser().parse_args(argv)
    assert ei.value.code == 0
    out = capsys.readouterr().out
    tail = out.split("examples:\n", 1)
    assert len(tail) == 2, out
    ex = [ln for ln in tail[1].splitlines() if ln.startswith(f"  python -m {module} ")]
    assert 2 <= len(ex) <= 3
    note = " ".join(tail[1].split())
    if module == "mechanisms":
        assert "generic eps0-LDP randomizer" in note
    elif argv[0] not in ("figure", "bib"):
        assert "--mechanism generic" in note and "--bound proved" in note


@pytest.mark.parametrize("cli, module", [(acli, "accountant"), (mcli, "mechanisms")])
def test_help_examples_run(cli, module, tmp_path):
    """The first example of each sub-command's help runs (exit 0), in a tmp dir."""
    for example in (ex[0] for ex in cli.EXAMPLES.values()):
        p = _run(["-m", module, *example.split()], tmp_path, timeout=300)
        assert p.returncode == 0, (example, p.stderr)
        assert "Traceback" not in p.stderr


def test_console_commands_declared():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        scripts = tomllib.load(fh)["project"]["scripts"]
    assert scripts == {"shuffle-dp": "accountant.interfaces.cli:main",
                       "shuffle-dp-mechanisms": "mechanisms.interfaces.cli:main"}
    import importlib

    for target in scripts.values():
        mod, func = target.split(":")
        assert callable(getattr(importlib.import_module(mod), func))


def test_console_command_prog_name(tmp_path):
    """Invoked as shuffle-dp (the console script's argv[0]), usage and examples say so."""
    code = ("import sys; sys.argv[0] = '/x/bin/shuffle-dp'; from accountant.interfaces.cli import main; "
            "sys.exit(main([]))")
    p = _run(["-c", code], tmp_path)
    assert p.returncode == 2 and p.stderr.startswith("usage: shuffle-dp ")
    assert "  shuffle-dp epsilon --n 1e5" in p.stderr


@pytest.mark.parametrize("argv, fmt, rows", [
    (["compare", "--n", "2000", "--d", "16", "--s", "2", "--eps0", "1", "--out", "t.md"], "md", 7),
    (["fe-table", "--n", "2000", "--B", "16", "--eps", "1,3", "--reps", "1", "--out", "fe.csv"],
     "csv", 2),
])
def test_mechanisms_table_json_summary(tmp_path, argv, fmt, rows):
    p = _run(["-m", "mechanisms", *argv, "--json"], tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    path = tmp_path / "work" / argv[argv.index("--out") + 1]
    assert out["path"] == argv[argv.index("--out") + 1] and path.exists()
    assert out["format"] == fmt and out["rows"] == rows and out["command"] == argv[0]
    assert "eps0" in out["columns"] or "eps" in out["columns"]
    assert out["parameters"]["reps"] == (1 if "--reps" in argv else 1 if argv[0] == "compare" else 5)
    if fmt == "csv":
        with open(path) as fh:
            lines = fh.read().splitlines()
        assert lines[0].split(",") == out["columns"] and len(lines) == rows + 1
