"""Issue 44 item 16: every ``--json`` output of both command lines (and every JSON file they
write) parses with a strict parser; an infinity or NaN becomes null with a ``<key>_reason``
beside it, from the one encoder :mod:`accountant.interfaces.jsonout`.  An unreachable
``--scheduler`` is bad input: one line naming it, exit 2, within seconds."""
from __future__ import annotations

import json
import math
import os
import time

import numpy as np
import pytest

from accountant.interfaces import jsonout
from accountant.interfaces.cli import main as acli_main
from accountant.interfaces.cli.parser import build_parser as accountant_parser
from mechanisms.interfaces import cli as mcli


def strict(text: str):
    def reject(constant):
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=reject)


def test_encoder_turns_non_finite_numbers_into_null_with_a_reason():
    obj = {"log_delta": -math.inf, "epsilon": math.inf, "x": float("nan"), "ok": 0.25,
           "v": [1.0, math.inf, np.float64(2.5)], "nested": {"achieved_log_delta": np.float64(-np.inf)},
           "arr": np.array([0.5, np.nan]), "i": np.int64(3), "lower_reason": None}
    text = jsonout.dumps(obj)
    data = strict(text)
    assert data["log_delta"] is None and data["log_delta_reason"].startswith("-infinity (delta is exactly 0)")
    assert data["epsilon"] is None and data["epsilon_reason"].startswith("+infinity (no finite bound)")
    assert data["x"] is None and data["x_reason"].startswith("not a number")
    assert data["ok"] == 0.25 and data["i"] == 3 and data["lower_reason"] is None
    assert data["v"] == [1.0, None, 2.5] and data["v_reason"].startswith("entries set to null: [1] +infinity")
    assert data["nested"] == {"achieved_log_delta": None,
                              "achieved_log_delta_reason": data["nested"]["achieved_log_delta_reason"]}
    assert "achieved delta is exactly 0" in data["nested"]["achieved_log_delta_reason"]
    assert data["arr"] == [0.5, None] and "[1] not a number" in data["arr_reason"]
    # a reason the caller already gave is kept
    assert strict(jsonout.dumps({"epsilon": math.inf, "epsilon_reason": "mine"}))["epsilon_reason"] == "mine"
    # finite input: byte-identical to json.dumps
    plain = {"a": 1, "b": [0.1, 2e-300], "c": {"d": None, "e": "x"}}
    assert jsonout.dumps(plain) == json.dumps(plain)
    with pytest.raises(ValueError):
        jsonout.strict_loads('{"a": -Infinity}')


# (command line, argv, {field: None expected with a reason}) -- the edge inputs of the
# issue (delta = 0 exactly, n = 1, eps0 = 30, a composition without a finite total) and
# the smallest ordinary call of every other command
ACCOUNTANT = [
    ("users --eps0 2 --eps 0.1 --delta 1e-6 --mechanism krr --k 4 --json", set()),
    ("delta --n 1000 --eps0 1 --eps 30 --json", {"log_delta"}),
    ("epsilon --n 1 --eps0 0.3 --delta 1e-12 --json", {"achieved_log_delta"}),
    ("epsilon --n 1 --eps0 30 --delta 1e-300 --json", {"achieved_log_delta"}),
    ("epsilon --n 1000 --eps0 1 --log-delta -2000 --json", set()),
    ("compare --n 1 --eps0 0.3 --delta 1e-12 --json", set()),
    ("compare --n 1000 --eps0 30 --delta 0.5 --json", set()),
    ("local-epsilon --n 1 --eps 0.3 --delta 1e-12 --json", set()),
    ("local-epsilon --n 1e10 --eps 30 --delta 0.5 --json", set()),
    ("compose --n 1000 --eps0 10 --rounds 2 --delta 1e-12 --json", set()),
    ("compose --n 1 --eps0 0.3 --rounds 1 --delta 1e-12 --json", set()),
    ("bib --m 100 --s 1 --n 10000 --rho 2 --delta 1e-6 --json", set()),
    ("bib --m 100 --s 1 --n 10000 --p 0 --delta 1e-6 --json", set()),
    ("table --n 1 --eps0 0.3,30 --delta 1e-12 --out t.json --json --workers 1", set()),
    ("table --n 1 --eps0 0.3 --delta 1e-12 --out t.csv --json --workers 1", set()),
    ("figure --n 1000 --s 4 --eps0 0.5,30 --delta 1e-6 --bounds clone,paper --out f.html --json --workers 1",
     set()),
]
MECHANISMS = [
    ("error --mechanism coco --n 1 --d 1 --s 1 --eps0 0.001 --json", set()),
    ("error --mechanism collision --n 1 --d 2 --s 1 --eps0 20 --json", set()),
    ("simulate --mechanism collision --n 1 --d 1 --s 1 --eps0 0.01 --json", set()),
    ("simulate --mechanism fe0 --n 2 --B 2 --eps 0.01 --json", set()),
    ("plan --n 1 --d 1 --s 1 --eps 0.01 --delta 1e-6 --json", set()),
    ("plan --n 1000 --d 1 --s 1 --eps 20 --delta 0.5 --json", set()),
    ("compare --n 1 --d 4 --s 1 --eps0 0.01,20 --out c.json --json", set()),
    ("fe-table --n 2 --B 2 --eps 0.01 --reps 1 --out fe.json --json", set()),
    ("central --n 1 --d 2 --s 1 --eps 0.01 --delta 1e-6 --mechanisms collision,succinct --json", set()),
]


def _commands(parser) -> set:
    return set(parser._subparsers._group_actions[0].choices)


def test_the_cases_cover_every_command_of_both_command_lines():
    assert _commands(accountant_parser()) == {a.split()[0] for a, _ in ACCOUNTANT}
    assert _commands(mcli.build_parser()) == {a.split()[0] for a, _ in MECHANISMS}
    assert all("--json" in a for a, _ in ACCOUNTANT + MECHANISMS)


def _run(main, argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("cli,case", [("accountant", c) for c in ACCOUNTANT] +
                         [("mechanisms", c) for c in MECHANISMS], ids=lambda x: x if isinstance(x, str) else x[0])
def test_every_json_output_is_strict_json(tmp_path, monkeypatch, capsys, cli, case):
    monkeypatch.chdir(tmp_path)
    argv, nulls = case[0].split(), case[1]
    rc, out, err = _run(acli_main if cli == "accountant" else mcli.main, argv, capsys)
    assert rc == 0, err
    data = strict(out)
    assert isinstance(data, dict)
    for field in nulls:
        assert data[field] is None and "infinity" in data[f"{field}_reason"], data
    # every JSON file written (a table, a mechanisms table) is strict too
    for name in os.listdir(tmp_path):
        if name.endswith(".json"):
            strict((tmp_path / name).read_text())


def test_compose_without_a_finite_total_says_why(capsys):
    rc, out, err = _run(acli_main, "compose --n 1000 --eps0 10 --rounds 2 --delta 1e-12 --json".split(), capsys)
    data = strict(out)
    assert rc == 0 and "Infinity" not in out and "NaN" not in out
    for key, value in data.items():  # a null number that was infinite carries its reason
        if key + "_reason" in data and value is None:
            assert "infinity" in data[key + "_reason"] or "not a number" in data[key + "_reason"]


def test_unreachable_scheduler_is_refused_in_one_line_quickly(tmp_path, capsys):
    out = tmp_path / "t.csv"
    for address in ("tcp://127.0.0.1:1", "127.0.0.1:1", "not an address:::", "tcp://:8786"):
        t0 = time.perf_counter()
        rc, so, err = _run(acli_main, ["table", "--n", "1000", "--eps0", "1", "--delta", "1e-6",
                                       "--out", str(out), "--scheduler", address], capsys)
        elapsed = time.perf_counter() - t0
        lines = err.strip().splitlines()
        assert rc == 2 and so == "" and len(lines) == 1 and "--scheduler" in lines[0], (address, err)
        assert elapsed < 8 and not out.exists()


def test_a_listening_scheduler_passes_the_check(tmp_path, capsys):
    """The connect check does not refuse a real scheduler: the table is computed on it."""
    from dask.distributed import LocalCluster

    out = tmp_path / "t.csv"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                      protocol="tcp", dashboard_address=None) as cluster:
        rc, so, err = _run(acli_main, ["table", "--n", "1000", "--eps0", "0.5,1", "--delta", "1e-6",
                                       "--bounds", "clone", "--out", str(out), "--json",
                                       "--scheduler", cluster.scheduler_address], capsys)
    assert rc == 0, err
    assert strict(so)["rows"] == 2 and len(out.read_text().splitlines()) == 3
