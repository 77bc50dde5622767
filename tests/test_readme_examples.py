"""Every command example and Python example in README.md and docs/**/*.md runs and prints what
it shows.

A command example is a fenced block with language ``console``: each line starting with
``$ `` is a command (a trailing backslash continues it on the next line), the lines after
it up to the next ``$ `` line or the end of the block are its expected standard output.
Output matches when the text is equal after normalising whitespace, ``...`` in the
expected text standing for any text, and every number matches to the digits shown: the
shown number equals the real one rounded to the shown number's last digit.  An HTML
comment ``<!-- example: no-output -->`` right above a block checks only exit status 0.

A Python example is a fenced block with language ``python``: it is written to a file and run as
a script; when the next fenced block (only blank lines between) has language ``text``, that
block is its expected standard output, compared as a command's output is.  ``<!-- example:
no-output -->`` above it checks only exit status 0; ``<!-- example: not-run -->`` above it
leaves it out (a computation of minutes, said beside it).

Commands run in a temporary directory (``--out X`` writes there; ``docs/examples/`` is
copied in for input files), with ``python`` replaced by this interpreter and the console
commands ``shuffle-dp`` / ``shuffle-dp-mechanisms`` by ``python -m accountant`` /
``python -m mechanisms``, so that the examples test this checkout.
"""
from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
NO_OUTPUT = "<!-- example: no-output -->"
NOT_RUN = "<!-- example: not-run -->"
TIMEOUT = 120


def example_files() -> list[str]:
    files = [os.path.join(ROOT, "README.md")]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    return files


def console_blocks(path: str) -> list[dict]:
    """The ``console`` blocks of a Markdown file: line, no_output flag, [(command, expected)]."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start = i
        prev = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        examples: list = []
        k = 0
        while k < len(body):
            if not body[k].startswith("$ "):
                k += 1  # text before the first command: not part of any output
                continue
            cmd = body[k][2:]
            while cmd.endswith("\\") and k + 1 < len(body):
                k += 1
                cmd = cmd[:-1].rstrip() + " " + body[k].strip()
            k += 1
            out = []
            while k < len(body) and not body[k].startswith("$ "):
                out.append(body[k])
                k += 1
            examples.append((cmd.strip(), "\n".join(out)))
        blocks.append({"file": os.path.relpath(path, ROOT), "line": start + 1,
                       "no_output": prev == NO_OUTPUT, "examples": examples})
    return blocks


def _fence(lines: list[str], i: int) -> tuple[list[str], int]:
    """The body of the fenced block opening at line ``i``, and the line after its end."""
    body, i = [], i + 1
    while i < len(lines) and lines[i].strip() != "```":
        body.append(lines[i])
        i += 1
    return body, i + 1


def python_blocks(path: str) -> list[dict]:
    """The ``python`` blocks of a Markdown file: line, flags, source, expected output or None."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() != "```python":
            i += 1
            continue
        start = i
        prev = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        source, i = _fence(lines, i)
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        expected = None
        if j < len(lines) and lines[j].strip() == "```text":
            body, i = _fence(lines, j)
            expected = "\n".join(body)
        blocks.append({"file": os.path.relpath(path, ROOT), "line": start + 1,
                       "no_output": prev == NO_OUTPUT, "not_run": prev == NOT_RUN,
                       "source": "\n".join(source) + "\n", "expected": expected})
    return blocks


def _pattern(expected: str) -> tuple[re.Pattern, list[str]]:
    """A regex for the whitespace-normalised output, and the numbers shown in order."""
    text = " ".join(expected.split())
    parts, shown, pos = [], [], 0
    for m in re.finditer(NUMBER + r"|\.\.\.|\s+", text):
        parts.append(re.escape(text[pos:m.start()]))
        tok = m.group(0)
        if tok == "...":
            parts.append(r".*?")
        elif tok.isspace():
            parts.append(r"\s+")
        else:
            parts.append(f"({NUMBER})")
            shown.append(tok)
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts), re.DOTALL), shown


def number_matches(shown: str, real: str) -> bool:
    """The real number rounded to the last digit of the shown one equals the shown one."""
    s, r = Decimal(shown), Decimal(real)
    quantum = Decimal(1).scaleb(s.as_tuple().exponent)
    try:
        return r.quantize(quantum, rounding=ROUND_HALF_EVEN) == s
    except ArithmeticError:  # quantum out of Decimal's range: compare exactly
        return r == s


def output_matches(expected: str, actual: str) -> tuple[bool, str]:
    """Whether ``actual`` prints what ``expected`` shows; with the reason when not."""
    pattern, shown = _pattern(expected)
    m = pattern.fullmatch(" ".join(actual.split()))
    if m is None:
        return False, "the text differs"
    for want, got in zip(shown, m.groups()):
        if not number_matches(want, got):
            return False, f"number {got} does not round to the shown {want}"
    return True, ""


def _argv(cmd: str) -> list[str]:
    argv = shlex.split(cmd, comments=True)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    elif argv and argv[0] == "shuffle-dp":
        argv[:1] = [sys.executable, "-m", "accountant"]
    elif argv and argv[0] == "shuffle-dp-mechanisms":
        argv[:1] = [sys.executable, "-m", "mechanisms"]
    return argv


BLOCKS = [b for f in example_files() for b in console_blocks(f)]
PY_BLOCKS = [b for f in example_files() for b in python_blocks(f)]


def test_the_readme_has_examples():
    readme = [b for b in BLOCKS if b["file"] == "README.md"]
    assert readme and all(b["examples"] for b in readme)
    assert all(expected.strip() for b in readme for _, expected in b["examples"])
    snippets = [b for b in PY_BLOCKS if b["file"] == "README.md"]
    assert snippets and all(b["expected"] and not b["not_run"] for b in snippets)


def _workdir(tmp_path) -> dict:
    """Copy docs/examples/ into ``tmp_path``; the environment the examples run in."""
    examples_dir = os.path.join(ROOT, "docs", "examples")
    if os.path.isdir(examples_dir):
        shutil.copytree(examples_dir, tmp_path / "docs" / "examples")
    return dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                PYTHONDONTWRITEBYTECODE="1", COLUMNS="200")


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b['file']}:{b['line']}" for b in BLOCKS])
def test_example_block(block, tmp_path):
    env = _workdir(tmp_path)
    for cmd, expected in block["examples"]:
        p = subprocess.run(_argv(cmd), cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, f"{cmd}\nexit {p.returncode}\n{p.stderr[-2000:]}"
        assert "Traceback" not in p.stderr, f"{cmd}\n{p.stderr[-2000:]}"
        if block["no_output"]:
            continue
        ok, why = output_matches(expected, p.stdout)
        assert ok, f"{cmd}: {why}\n--- shown ---\n{expected}\n--- printed ---\n{p.stdout}"


RUN_PY = [b for b in PY_BLOCKS if not b["not_run"]]


@pytest.mark.parametrize("block", RUN_PY, ids=[f"{b['file']}:{b['line']}" for b in RUN_PY])
def test_python_block(block, tmp_path):
    env = _workdir(tmp_path)
    script = tmp_path / "example.py"
    script.write_text(block["source"], encoding="utf-8")
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    where = f"{block['file']}:{block['line']}"
    assert p.returncode == 0, f"{where}\nexit {p.returncode}\n{p.stderr[-2000:]}"
    if block["no_output"] or block["expected"] is None:
        return
    ok, why = output_matches(block["expected"], p.stdout)
    assert ok, f"{where}: {why}\n--- shown ---\n{block['expected']}\n--- printed ---\n{p.stdout}"


# The comparison itself, so that a broken comparator cannot pass every example.
@pytest.mark.parametrize("shown, real, ok", [
    ("0.0239129", "0.02391293572", True),
    ("0.0239129", "0.0239139", False),
    ("0.02391294", "0.02391293572", True),  # rounded, not truncated
    ("0.02391293", "0.02391293572", False),
    ("9.99982e-07", "9.999817e-07", True),
    ("9.99982e-07", "9.99972e-07", False),
    ("100000", "100000", True),
    ("100000", "100001", False),
    ("1e-06", "1e-06", True),
    ("-1557.19693", "-1557.196930922", True),
    ("-1557.19693", "-1557.19694", False),
])
def test_number_matches(shown, real, ok):
    assert number_matches(shown, real) is ok


def test_output_matches_text_numbers_and_ellipsis():
    exp = "eps_c <= 0.0239129 at delta = 1e-06 (proved: blanket)\nn = 100000"
    assert output_matches(exp, "eps_c <= 0.02391293572 at delta = 1e-06 (proved: blanket)\n"
                               "n = 100000\n")[0]
    assert not output_matches(exp, "eps_c <= 0.02391293572 at delta = 1e-06 (proved: clone)\n"
                                   "n = 100000\n")[0]
    assert not output_matches(exp, "eps_c <= 0.0249 at delta = 1e-06 (proved: blanket)\n"
                                   "n = 100000\n")[0]
    assert not output_matches(exp, "eps_c <= 0.02391293572 at delta = 1e-06 (proved: blanket)\n")[0]
    assert output_matches('{"a": 1, ... "log_delta": -1557.19693, ...}',
                          '{"a": 1, "b": 2, "log_delta": -1557.1969309221838, "c": null}')[0]
    assert not output_matches('{"a": 1, ... "log_delta": -1557.19693, ...}',
                              '{"a": 1, "b": 2, "log_delta": -1557.1979309221838, "c": null}')[0]


def test_python_blocks_are_parsed(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("```python\nprint(1)\n```\n\n```text\n1\n```\n\n<!-- example: not-run -->\n"
                  "```python\nslow()\n```\n\ntext between\n\n```text\nnot an output\n```\n")
    b = python_blocks(str(md))
    assert [(x["source"], x["expected"], x["not_run"]) for x in b] == [
        ("print(1)\n", "1", False), ("slow()\n", None, True)]


def test_blocks_are_parsed(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("text\n\n<!-- example: no-output -->\n```console\n$ python -m a \\\n  --b 1\n"
                  "out 1\nout 2\n$ python -m c\n```\n\n```console\n$ python -m d\nx\n```\n")
    b = console_blocks(str(md))
    assert [x["no_output"] for x in b] == [True, False]
    assert b[0]["examples"] == [("python -m a --b 1", "out 1\nout 2"), ("python -m c", "")]
    assert b[1]["examples"] == [("python -m d", "x")]
