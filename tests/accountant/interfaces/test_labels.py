"""The label walk: every bound x every accountant command x text and --json, for each mechanism.

A label must never contradict the bound's kind in the registry (``BoundSpec.kind`` and
``proved_for``): a lower bound printed with "upper" or "<=", an upper bound with ">=", a bound
not proved for the mechanism printed as "proved" or "certified", a variation-ratio lower bound
printed "for the mechanism" (it is the worst randomizer of the class's).  The rules below are
written from the registry's data, not from :mod:`accountant.bounds.labels`, so that they check
the words rather than restate them.  The CLI is called in-process (``run`` then ``_human``,
which is what ``main`` prints), once per call, and both outputs are checked.
"""
from __future__ import annotations

import json

import pytest

from accountant.bounds.registry import BOUND_NAMES, REGISTRY
from accountant.interfaces.cli.main import _human, main, run

N, DELTA, EPS, EPS0 = "200", "1e-6", "0.5", "1"
MECHS = {
    "generic": ["--eps0", EPS0],
    "collision": ["--eps0", EPS0, "--mechanism", "collision", "--s", "1", "--d", "8"],
    "coco": ["--eps0", EPS0, "--mechanism", "coco", "--s", "1", "--d", "8"],
    "krr": ["--eps0", EPS0, "--mechanism", "krr", "--k", "4"],
    "rr": ["--eps0", EPS0, "--mechanism", "rr"],
    "olh": ["--eps0", EPS0, "--mechanism", "olh", "--k", "8"],
    "oue": ["--eps0", EPS0, "--mechanism", "oue", "--k", "4"],
    "variation-ratio": ["--mechanism", "variation-ratio", "--p", "2.718281828", "--beta", "0.4"],
}


def _no_eps0(args: list) -> list:
    """local-epsilon searches eps0: the mechanism's options without --eps0."""
    return [a for i, a in enumerate(args) if a != "--eps0" and (i == 0 or args[i - 1] != "--eps0")]


def _check_head(head: str, bound: str, mech: str, where: str) -> None:
    """One printed statement about ``bound`` (its value, relation and label) for ``mech``."""
    spec = REGISTRY[bound]
    proved = spec.proved(mech)
    low = head.lower()
    if spec.kind == "lower":
        assert ">=" in head and "<=" not in head, f"{where}: a lower bound printed without >=: {head!r}"
        assert "upper" not in low, f"{where}: a lower bound labelled upper: {head!r}"
        if proved:
            assert "certified lower bound" in low or "certified lower" in low, f"{where}: {head!r}"
            assert "not certified" not in low, f"{where}: {head!r}"
        else:
            assert "not certified" in low, f"{where}: an uncertified lower bound not said so: {head!r}"
        if bound == "lower" and mech in ("variation-ratio", "generic"):
            assert "worst randomizer of the class" in low and "for the mechanism" not in low, \
                f"{where}: {head!r}"
        if bound == "lower-worst-hash":
            assert "worst hash family" in low, f"{where}: {head!r}"
        return
    assert ">=" not in head, f"{where}: an upper bound printed with >=: {head!r}"
    assert "<=" in head, f"{where}: {head!r}"
    if spec.kind == "upper" and proved:
        assert "proved upper" in low and "not" not in low.replace("not applicable", ""), f"{where}: {head!r}"
    elif spec.kind == "exact" and proved:  # a proved upper bound certified to equal the truth
        assert "exact" in low and "proved" in low and "not" not in low.replace("not applicable", ""), \
            f"{where}: {head!r}"
    else:  # an upper bound not proved for the mechanism, or the paper's value
        assert "not a proved" in low or "not proved" in low, f"{where}: an unproved bound not said so: {head!r}"
        assert "proved upper" not in low and "certified" not in low, f"{where}: {head!r}"


def _check_json(out: dict, bound: str, mech: str, where: str) -> None:
    spec = REGISTRY[bound]
    assert out["kind"] == spec.kind, where
    assert out["relation"] == (">=" if spec.kind == "lower" else "<="), where
    applicable = out.get("applicable", True)
    assert out["certified"] is (spec.proved(mech) and spec.kind != "paper" and applicable), where
    if mech not in spec.applies_to:
        assert out["label"].startswith("not available") and not applicable, where
        return
    _check_head(f"{out['relation']} {out['label']}", bound, mech, where + " (JSON label)")


def _call(argv: list) -> tuple[dict, str]:
    out = run(argv)
    json.dumps(out)  # JSON-ready
    return out, _human(argv[0], out)


@pytest.mark.parametrize("mech", list(MECHS))
def test_labels_never_contradict_the_kind(mech):
    opts = MECHS[mech]
    seen = 0
    # compare: every bound of the registry on one call
    out, text = _call(["compare", "--n", N, "--delta", DELTA, *opts])
    rows = {line.split()[0]: line for line in text.splitlines()[1:]}
    for b, v in out["bounds"].items():
        _check_json({**v, "kind": v["kind"]}, b, mech, f"compare {mech} {b}")
        assert v["proved"] is REGISTRY[b].proved(mech)
        if v["applicable"]:
            _check_head(rows[b].split(None, 1)[1], b, mech, f"compare text {mech} {b}")
            seen += 1
    # the default (proved) delta: computed once, read below by every lower bound's check
    default_delta, default_delta_text = _call(["delta", "--n", N, "--eps", EPS, *opts])
    for b in BOUND_NAMES:
        spec = REGISTRY[b]
        if mech not in spec.applies_to:
            continue
        # epsilon --bound B: "B: eps_c REL VALUE at delta = D (LABEL); reason"
        out, text = _call(["epsilon", "--n", N, "--delta", DELTA, *opts, "--bound", b])
        _check_json(out, b, mech, f"epsilon {mech} {b}")
        if out["applicable"]:
            _check_head(text.split("; ")[0], b, mech, f"epsilon text {mech} {b}")
            seen += 1
        # delta --bound B where the bound has a delta form
        if spec.delta is not None:
            out, text = _call(["delta", "--n", N, "--eps", EPS, *opts, "--bound", b])
            _check_json(out, b, mech, f"delta {mech} {b}")
            _check_head(text.splitlines()[0], b, mech, f"delta text {mech} {b}")
            if spec.kind == "lower":  # the value is the certified lower end, below every proved upper end
                assert out["delta"] <= default_delta["delta"]
            seen += 1
    # the default (proved) epsilon: headline upper, then the lower bounds named by their kind
    out, text = _call(["epsilon", "--n", N, "--delta", DELTA, *opts])
    lines = text.splitlines()
    _check_head(lines[0].split(" (proved: ")[0] + f" (proved upper bound: {out['bound']})", out["bound"], mech,
                "epsilon proved")
    assert out["certified"] is True
    for line in lines:
        if line.startswith("eps_c >= "):
            b = "lower-worst-hash" if "worst hash family" in line else "lower"
            _check_head(line.split(": no bound")[0], b, mech, f"epsilon proved text {mech}")
            seen += 1
    # the default delta and local-epsilon (upper bounds only: its --bound choices)
    out, text = default_delta, default_delta_text
    _check_head(text.splitlines()[0], out["bound"], mech, f"delta proved {mech}")
    for line in text.splitlines()[2:]:
        if line.startswith("delta >= "):
            _check_head(line, "lower", mech, f"delta proved text {mech}")
    if mech != "variation-ratio":  # refused: eps0 = ln p is fixed (test_cli)
        # the proved inverse searches the exact blanket too (seconds for the hashed mechanisms)
        cheap = mech in ("generic", "rr", "krr")
        for b in (("proved",) if cheap else ()) + ("clone",) + (
                ("stronger-clone",) if mech in REGISTRY["stronger-clone"].applies_to else ()):
            # --rtol 0.01: the search's precision changes the number, not its label (the stronger
            # clone's search at the default rtol took seconds for the hashed mechanisms)
            argv = ["local-epsilon", "--n", N, "--eps", EPS, "--delta", DELTA, *_no_eps0(opts), "--bound", b,
                    "--rtol", "0.01"]
            out, text = _call(argv)
            _check_json(out, out["bound"] if out["bound"] in REGISTRY else "clone", mech, f"local-epsilon {mech} {b}")
            if out["bound"] in REGISTRY:
                _check_head(text.splitlines()[0].split(" <= ", 1)[1], out["bound"], mech,
                            f"local-epsilon text {mech} {b}")
            seen += 1
    assert seen >= 5


def test_the_issue_examples(capsys):
    """Issue 44 items 1 and 10, as printed by main."""
    assert main(["epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "rr",
                 "--bound", "lower"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("lower: eps_c >= 0.0246605360") and "upper" not in text.split(";")[0]
    assert "(certified lower bound for the mechanism)" in text
    assert main(["compare", "--n", "2", "--delta", "0.1", "--mechanism", "variation-ratio", "--p",
                 "12.1824939607", "--beta", "0.424141819979", "--q", "12.1824939607", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    low = out["bounds"]["lower"]
    assert low["epsilon"] > 1.88 and low["label"] == "certified lower bound for the worst randomizer of the class"
    assert out["bounds"]["lower-worst-hash"]["applicable"] is False
