"""Every option of every command of both command lines is used or refused, never dropped.

The walk introspects the argparse trees (``accountant.interfaces.cli.parser.build_parser`` and
``mechanisms.interfaces.cli.build_parser``): for every sub-command, every action and every
``--mechanism`` choice it runs the command in-process on cheap base arguments, once as is and
once with the option set to a value other than its default (another choice, another number in
range, the flag set, a small file).  The option is *used* when the printed output (and the file
written, for the commands with ``--out``) differs, and *refused* when the run exits with status 2
and names the option on stderr.  Anything else (same output: the option was accepted and
silently dropped; another exit status; a refusal that does not name the option) fails.

Options that apply to some mechanisms only (``MECHANISM_OPTIONS``) are walked for every
mechanism; the others for a few mechanisms whose code paths differ (``REDUCED``).  A new option
needs a value in ``VALUES`` (or is a choice or a flag): the walk fails until it has one.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re

import pytest

from tests.paths import REPO_ROOT

MATRIX = os.path.join(REPO_ROOT, "docs", "examples", "three-way.json")
TMP = "{tmp}"  # replaced by the session's temporary folder

# the randomizer options of `python -m accountant` per mechanism (cheap bases: n of 200 to 1000)
ACC_MECH = {
    "generic": ["--eps0", "1"],
    "collision": ["--eps0", "1", "--s", "2"],
    "coco": ["--eps0", "1", "--s", "2"],
    "krr": ["--eps0", "1", "--k", "4"],
    "rr": ["--eps0", "1"],
    "olh": ["--eps0", "1", "--k", "4"],
    "oue": ["--eps0", "1", "--k", "4"],
    "variation-ratio": ["--p", "2.7", "--beta", "0.3"],
    "duchi": ["--eps0", "1"],
    "piecewise": ["--eps0", "1"],
    "finite": ["--matrix", MATRIX],
    "pckv-grr": ["--eps0", "1", "--d", "4", "--s", "2"],
    "pckv-ue": ["--eps0", "1", "--d", "4", "--s", "2"],
    "pckv-agrr": ["--eps0", "1", "--d", "4", "--s", "2"],
    "privkv": ["--eps0", "1", "--d", "4", "--s", "2"],
    "laplace": ["--eps0", "1"],
    "gaussian": ["--sigma", "4"],
}
ACC_BASE = {
    "epsilon": ["--n", "200", "--delta", "1e-6"],
    "delta": ["--n", "200", "--eps", "0.5"],
    "compare": ["--n", "200", "--delta", "1e-6"],
    "local-epsilon": ["--n", "200", "--eps", "0.5", "--delta", "1e-6", "--rtol", "0.01"],
    "users": ["--eps", "0.9", "--delta", "1e-6"],
    "compose": ["--rounds", "2", "--n", "1000", "--delta", "1e-6", "--step", "0.05"],
    "table": ["--n", "1000", "--delta", "1e-6", "--bounds", "clone", "--out", f"{TMP}/t.json"],
    "figure": ["--out", f"{TMP}/f.html", "--n", "1000", "--s", "2", "--eps0", "1:2:2", "--bounds", "clone"],
    "bib": ["--m", "10", "--s", "1", "--n", "1000", "--rho", "2", "--delta", "1e-6"],
}
# (command, mechanism) -> the randomizer options where ACC_MECH does not fit
ACC_MECH_OVERRIDE = {
    ("local-epsilon", "finite"): ["--catalogue", "krr", "--k", "4"],  # a matrix fixes eps0
    ("local-epsilon", "variation-ratio"): None,  # refused as a whole (p fixes eps0)
    ("local-epsilon", "gaussian"): None,  # refused as a whole (no eps0: not pure LDP)
    ("table", "gaussian"): None,  # refused as a whole (its grid is over eps0)
    ("figure", "collision"): [],  # its base has --s and --eps0 lists
    ("figure", "finite"): None,  # refused as a whole (the x axis is eps0)
    # the key-value baselines need --d, which table and local-epsilon do not take: refused
    **{(c, m): None for c in ("table", "local-epsilon") for m in ("pckv-grr", "pckv-ue", "pckv-agrr", "privkv")},
}
# the options a refused (command, mechanism) is given where ACC_MECH's do not parse there
ACC_MECH_REFUSED = {(c, m): ["--s", "2"] + (["--eps0", "1"] if c == "table" else [])
                    for c in ("table", "local-epsilon") for m in ("pckv-grr", "pckv-ue", "pckv-agrr", "privkv")}
ACC_MECH_REFUSED[("table", "gaussian")] = []   # table takes no --sigma
MECH_BASE = {
    "simulate": ["--n", "1000"],
    "error": ["--n", "1000", "--d", "16", "--s", "2", "--eps0", "1"],
    "compare": ["--n", "500", "--d", "8", "--s", "2", "--eps0", "1", "--out", f"{TMP}/c.json"],
    "fe-table": ["--n", "500", "--B", "8", "--eps", "1", "--reps", "1", "--out", f"{TMP}/fe.json"],
    # eps 0.5: half the seconds of eps 1 (a smaller eps0 to calibrate), every option walked the same way
    "central": ["--n", "1000", "--d", "8", "--s", "2", "--eps", "0.5", "--delta", "1e-6", "--mechanisms", "collision"],
    "plan": ["--n", "1000", "--d", "8", "--s", "2", "--eps", "1", "--delta", "1e-6",
             "--mechanisms", "collision"],
}
MECH_SIM = {"fe0": ["--B", "8", "--eps", "1"], "fe1": ["--B", "8", "--eps", "1"]}
MECH_SIM_SPARSE = ["--d", "16", "--s", "2", "--eps0", "1"]

# the value an option is set to when the base does not give it: (command, option) first
VALUES = {
    "--n": "2000", "--eps0": "0.5", "--delta0": "1e-12", "--delta": "1e-5", "--log-delta": "-20", "--eps": "0.4",
    "--rtol": "0.01", "--s": "3", "--t": "9", "--k": "5", "--g": "3", "--d": "12", "--p": "2",
    "--beta": "0.2", "--q": "3", "--matrix": f"{TMP}/matrix.json", "--size": "2", "--rounds": "3",
    "--colluders": "10", "--n-min": "1000", "--dummies": "10", "--sampling": "0.5",
    "--reports": "2", "--mix": f"{TMP}/mix.json", "--schedule": f"{TMP}/schedule.json",
    "--step": "0.02", "--columns": "n,eps0,clone", "--digits": "6", "--out": f"{TMP}/other.json",
    "--workers": "1", "--scheduler": "tcp://127.0.0.1:9", "--width": "5", "--m": "12",
    "--rho": "3", "--target-eps": "1", "--bounds": "clone,blanket", "--t-rule": "coco",
    "--B": "10", "--b": "5", "--reps": "2", "--seed": "1", "--max-eps0": "0.8",
    "--mechanisms": "coco", "--postprocess": "simplex", "--data": "uniform", "--bound": "paper",
    "--range": "0,3", "--sigma": "3",
}
CMD_VALUES = {
    ("epsilon", "--n"): "300", ("compare", "--n"): "300", ("delta", "--n"): "300",
    ("local-epsilon", "--n"): "300",
    ("table", "--s"): "2,3", ("table", "--k"): "4,5", ("table", "--eps0"): "0.5,1",
    ("table", "--n"): "1000,2000", ("table", "--delta"): "1e-6,1e-5",
    ("figure", "--n"): "2000", ("figure", "--s"): "3", ("figure", "--eps0"): "1:2:3",
    ("figure", "--out"): f"{TMP}/other.html", ("figure", "--delta"): "1e-5",
    ("figure", "--bounds"): "clone,blanket",
    ("bib", "--p"): "0.5", ("bib", "--eps"): "0.5", ("bib", "--k"): "3", ("bib", "--s"): "2",
    ("compare", "--out"): f"{TMP}/other.json", ("fe-table", "--out"): f"{TMP}/other.json",
    ("compare", "--s"): "2,4", ("compare", "--eps0"): "0.5,1", ("fe-table", "--n"): "600",
    ("fe-table", "--B"): "10", ("fe-table", "--eps"): "0.5", ("fe-table", "--beta"): "0.2",
    ("simulate", "--q"): "13", ("simulate", "--beta"): "0.2", ("simulate", "--delta"): "1e-5",
    ("local-epsilon", "--rtol"): "0.001",  # finer than the base: the answer moves (coarser need not)
    ("plan", "--d"): "16", ("plan", "--s"): "1", ("simulate", "--b"): "3", ("simulate", "--t"): "14",
    ("error", "--t"): "14",
}
# an option given in place of others of the base (its alternatives)
REPLACES = {
    "--n-min": ("--n",), "--log-delta": ("--delta",), "--schedule": ("--rounds", "--n", "--eps0"),
    "--target-eps": ("--rho",),
    "--catalogue": ("--matrix",),
}
CMD_REPLACES = {("bib", "--eps"): ("--delta",), ("bib", "--p"): ("--rho",)}
# options that change no output by design, with the reason (the walk checks the output is the same)
EXEMPT = {
    ("accountant", "table", "--workers"): "worker processes: the same numbers, computed in parallel",
    ("accountant", "figure", "--workers"): "worker processes: the same numbers, computed in parallel",
}
# the options of one mechanism or a few: walked for every mechanism
MECHANISM_OPTIONS = {"--eps0", "--s", "--t", "--k", "--g", "--d", "--p", "--beta", "--q", "--delta0",
                     "--hash-model", "--matrix", "--catalogue", "--size", "--range", "--sigma"}
REPLACES["--mix"] = ("--n", "--mechanism") + tuple(MECHANISM_OPTIONS)  # the groups give them
# the other options: walked for mechanisms whose code paths differ
REDUCED = ("generic", "krr", "variation-ratio", "finite")
# epsilon's deployment options (seconds a run): a pure-LDP randomizer and one that has no eps0 input
DEPLOYMENT = ("--colluders", "--n-min", "--dummies", "--sampling", "--neighbours", "--reports", "--mix")
REDUCED_FOR = {o: ("generic", "variation-ratio") for o in DEPLOYMENT}
# output fields that differ from run to run
VOLATILE = {"seconds", "meta", "elapsed"}


def _subparsers(parser: argparse.ArgumentParser) -> dict:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    raise AssertionError("no sub-commands")


def _parsers() -> dict:
    from accountant.interfaces.cli.parser import build_parser as acc
    from mechanisms.interfaces.cli import build_parser as mech

    return {"accountant": _subparsers(acc()), "mechanisms": _subparsers(mech())}


def _name(action) -> str:
    return max(action.option_strings, key=len)


def _mechanisms(sub) -> tuple:
    for a in sub._actions:
        if "--mechanism" in a.option_strings:
            return tuple(a.choices)
    return (None,)


_PARSERS: dict = {}


def _sub(cli, cmd):
    if not _PARSERS:
        _PARSERS.update(_parsers())
    return _PARSERS[cli][cmd]


def _options(cli, cmd) -> set:
    return {o for a in _sub(cli, cmd)._actions for o in a.option_strings}


def base_argv(cli: str, cmd: str, mech):
    """The cheap base run of ``cmd`` with ``mech`` (None: the command refuses the mechanism)."""
    if cli == "accountant":
        extra = ACC_MECH_OVERRIDE.get((cmd, mech), ACC_MECH.get(mech, []))
        if extra is None:
            return None
        if "--eps0" not in _options(cli, cmd):  # local-epsilon: eps0 is what it computes
            extra = _strip(extra, {"--eps0"}, None)
        argv = [cmd] + ACC_BASE[cmd] + (["--mechanism", mech] if mech else []) + extra
        return argv + ["--json"]
    argv = [cmd] + MECH_BASE[cmd]
    if cmd in ("simulate", "error"):
        argv += ["--mechanism", mech] + (MECH_SIM.get(mech, MECH_SIM_SPARSE) if cmd == "simulate" else [])
    return argv + ["--json"]


def _value(cmd: str, opt: str, action, current):
    if (cmd, opt) in CMD_VALUES:
        return CMD_VALUES[(cmd, opt)]
    if opt in VALUES and VALUES[opt] != current:
        return VALUES[opt]
    if action.choices:
        for c in action.choices:
            if c != action.default and str(c) != current:
                return str(c)
    raise AssertionError(f"the walk has no value for {cmd} {opt}: add one to VALUES")


def _strip(argv: list, opts, sub) -> list:
    """``argv`` without the options ``opts`` (and their values)."""
    flags = {o for a in sub._actions for o in a.option_strings if a.nargs == 0} if sub else set()
    out, skip = [], False
    for x in argv:
        if skip:
            skip = False
            continue
        if x in opts:
            skip = x not in flags
            continue
        out.append(x)
    return out


def variant_argv(cmd: str, opt: str, action, sub, base: list) -> list:
    """``base`` with ``opt`` set to another value (a flag set; --json: left out)."""
    if opt == "--json":
        return [x for x in base if x != "--json"]
    current = base[base.index(opt) + 1] if opt in base and action.nargs != 0 else None
    drop = {opt} | set(CMD_REPLACES.get((cmd, opt), REPLACES.get(opt, ())))
    for grp in sub._mutually_exclusive_groups:
        names = {o for a in grp._group_actions for o in a.option_strings}
        if opt in names:
            drop |= names
    argv = _strip(base, drop, sub)
    if action.nargs == 0:
        return argv + [opt]
    return argv + [opt, _value(cmd, opt, action, current)]


def cases() -> list:
    out = []
    _sub("accountant", "epsilon")
    for cli, subs in _PARSERS.items():
        seen = set()
        for cmd, sub in subs.items():
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            mechs = _mechanisms(sub)
            for action in sub._actions:
                if not action.option_strings or isinstance(action, argparse._HelpAction):
                    continue
                opt = _name(action)
                if opt == "--mechanism":
                    continue
                runs = tuple(m for m in mechs if base_argv(cli, cmd, m) is not None)
                walk = runs if cli == "mechanisms" or opt in MECHANISM_OPTIONS \
                    else tuple(m for m in runs if m in REDUCED_FOR.get(opt, REDUCED)) or runs[:1]
                out += [(cli, cmd, mech, opt) for mech in walk]
    return out


CASES = cases()


def _files(tmp: str) -> None:
    with open(os.path.join(tmp, "matrix.json"), "w") as fh:
        json.dump([[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]], fh)
    with open(os.path.join(tmp, "mix.json"), "w") as fh:
        json.dump([{"count": 500, "mechanism": "generic", "eps0": 1},
                   {"count": 500, "mechanism": "generic", "eps0": 2}], fh)
    with open(os.path.join(tmp, "schedule.json"), "w") as fh:
        json.dump([{"n": 2000, "eps0": 1, "repeat": 2}], fh)


_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|clip[0-9a-f]+|"
                 r"id=\"[^\"]*\"|url\(#[^)]*\)|"
                 # a file's provenance: the command line that wrote it (every option appears there,
                 # so it would make each one look used), the date and the commit
                 r"python -m (?:accountant|mechanisms)[^\n\"\\]*|\d{4}-\d\d-\d\dT[0-9:.+-]+|"
                 r"\"git_commit\": \"[^\"]*\"")


def _clean(x):
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def execute(cli: str, argv: list, tmp: str) -> tuple:
    """(exit status, normalised output, stderr) of one in-process run."""
    from accountant.interfaces.cli import main as acc_main
    from mechanisms.interfaces.cli import main as mech_main

    argv = [a.replace(TMP, tmp) for a in argv]
    outs = [a for i, a in enumerate(argv) if i and argv[i - 1] == "--out"]
    for path in outs:
        if os.path.exists(path):
            os.remove(path)
    so, se = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
        rc = (acc_main if cli == "accountant" else mech_main)(argv)
    text = so.getvalue()
    try:
        out = _clean(json.loads(text))
    except ValueError:
        out = text
    files = []
    for path in outs:
        if os.path.exists(path):
            with open(path, "rb") as fh:
                files.append(_ID.sub("", fh.read().decode("utf-8", "replace")))
    return rc, (out, files, outs), se.getvalue()


@pytest.fixture(scope="module")
def walk_tmp(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("walk"))
    _files(tmp)
    return tmp


_BASE: dict = {}


def _base_run(cli, cmd, mech, tmp):
    key = (cli, cmd, mech)
    if key not in _BASE:
        _BASE[key] = execute(cli, base_argv(cli, cmd, mech), tmp)
    return _BASE[key]


def outcome(cli: str, cmd: str, mech, opt: str, tmp: str):
    """None when ``opt`` is used or refused (an ``EXEMPT`` option: used with the same output);
    else why the walk fails."""
    sub = _sub(cli, cmd)
    action = next(a for a in sub._actions if opt in a.option_strings)
    rc0, out0, err0 = _base_run(cli, cmd, mech, tmp)
    assert rc0 == 0, f"base run {base_argv(cli, cmd, mech)} failed: {err0.strip()}"
    argv = variant_argv(cmd, opt, action, sub, base_argv(cli, cmd, mech))
    rc, out, err = execute(cli, argv, tmp)
    shown = " ".join(argv).replace(TMP, "TMP")
    if rc == 2:
        return None if opt in err else f"{shown}: refused without naming {opt}: {err.strip()}"
    if rc != 0:
        return f"{shown}: exit status {rc}: {err.strip()[-300:]}"
    same = out[0] == out0[0] and out[1] == out0[1]
    if (cli, cmd, opt) in EXEMPT:  # changes how, not what: the very same output
        return None if same else f"{shown}: {EXEMPT[(cli, cmd, opt)]}, yet the output differs"
    if same:
        return f"{shown}: accepted and dropped (the same output as without {opt})"
    return None


@pytest.mark.parametrize("cli,cmd,mech,opt", CASES, ids=[" ".join(str(x) for x in c) for c in CASES])
def test_option_used_or_refused(cli, cmd, mech, opt, walk_tmp):
    why = outcome(cli, cmd, mech, opt, walk_tmp)
    assert why is None, why


def test_every_command_walked():
    """Every sub-command and every option of both command lines is in the walk."""
    walked = {(c, cmd, o) for c, cmd, _, o in CASES}
    for cli, subs in _parsers().items():
        for cmd, sub in subs.items():
            for a in sub._actions:
                if a.option_strings and not isinstance(a, argparse._HelpAction) and _name(a) != "--mechanism":
                    assert (cli, cmd, _name(a)) in walked, (cli, cmd, _name(a))


@pytest.mark.parametrize("cmd,mech", [k for k, v in ACC_MECH_OVERRIDE.items() if v is None])
def test_refused_mechanisms(cmd, mech, walk_tmp):
    """A command that does not take a mechanism refuses it (status 2, one line naming it)."""
    argv = [cmd] + ACC_BASE[cmd] + ["--mechanism", mech] + ACC_MECH_REFUSED.get((cmd, mech), ACC_MECH[mech]) + ["--json"]
    rc, _, err = execute("accountant", argv, walk_tmp)
    assert rc == 2 and mech in err and len(err.strip().splitlines()) == 1, err
