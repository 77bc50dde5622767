"""Write docs/reference/cli.md, the command-line reference, from the argparse trees of both
command lines (``accountant.interfaces.cli.build_parser`` and
``mechanisms.interfaces.cli.build_parser``): every command, every option with its value,
default and help string, and the examples that end its ``--help``.

    python scripts/cli_reference.py           # write docs/reference/cli.md
    python scripts/cli_reference.py --check   # exit status 1 if the file is not up to date

tests/test_cli_reference.py fails when the committed file differs from what this writes, so
the reference cannot drift from the parsers.
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "reference", "cli.md")

HEAD = """# Command-line reference

Every command and option of both command lines, generated from their argparse trees by
`scripts/cli_reference.py` (do not edit this page: `tests/test_cli_reference.py` checks that it
equals the generated one). `python -m accountant` (console command `shuffle-dp`) answers the
privacy questions, `python -m mechanisms` (`shuffle-dp-mechanisms`) the error and planning
ones. The same text is printed by `--help`; what each output field means is on
[Commands and their output](../accountant.md), the ranges of the values on [Limits](../limits.md).
"""


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, no table or HTML syntax, no emphasis."""
    text = " ".join(str(text).split())
    for ch in ("\\", "|", "*", "_", "`", "["):
        text = text.replace(ch, "\\" + ch)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _help(action: argparse.Action, prog: str) -> str:
    """The help string as ``--help`` shows it (``%(default)s`` and the like expanded)."""
    text = action.help or ""
    if "%" in text:
        params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
        params["prog"] = prog
        if params.get("choices") is not None:
            params["choices"] = ", ".join(map(str, params["choices"]))
        text = text % params
    return text


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "(flag)"
    if action.choices is not None:
        return " \\| ".join(f"`{c}`" for c in action.choices)
    return f"`{action.metavar or action.dest.upper()}`"


def _default(action: argparse.Action) -> str:
    d = action.default
    if action.required:
        return "required"
    if d is None or d is False or d is argparse.SUPPRESS or action.nargs == 0:
        return ""
    return f"`{d}`"


def _options_table(sp: argparse.ArgumentParser) -> list[str]:
    lines = []
    for group in sp._action_groups:
        acts = [a for a in group._group_actions if a.help is not argparse.SUPPRESS
                and not isinstance(a, argparse._HelpAction)]
        if not acts:
            continue
        if group.title not in ("options", "optional arguments", "positional arguments"):
            lines += [f"*{_cell(group.title)}*", ""]
        lines += ["| option | value | default | what it is |", "|---|---|---|---|"]
        for a in acts:
            names = ", ".join(f"`{o}`" for o in a.option_strings) or f"`{a.dest}`"
            lines.append(f"| {names} | {_value(a)} | {_default(a)} | {_cell(_help(a, sp.prog))} |")
        lines.append("")
    exclusive = [[o for a in g._group_actions for o in a.option_strings[:1]]
                 for g in sp._mutually_exclusive_groups]
    for names in exclusive:
        lines += ["One of " + ", ".join(f"`{n}`" for n in names)
                  + " at most (they exclude each other).", ""]
    return lines


def _epilog(epilog: str | None) -> list[str]:
    """The examples of ``--help`` as a code block, the note after them as a paragraph."""
    if not epilog:
        return []
    head, _, note = epilog.partition("\n\n")
    examples = [ln.strip() for ln in head.splitlines()[1:] if ln.strip()]
    lines = []
    if examples:
        lines += ["Examples:", "", "```text", *examples, "```", ""]
    if note.strip():
        lines += [" ".join(note.split()), ""]
    return lines


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _section(module: str, parser: argparse.ArgumentParser, console: str) -> list[str]:
    sub = _subparsers(parser)
    helps = {c.dest: c.help for c in sub._choices_actions}
    lines = [f"## python -m {module}", "", f"{parser.description} Console command: `{console}`.",
             "", "| command | what it answers |", "|---|---|"]
    lines += [f"| [`{name}`](#{module}-{name}) | {_cell(helps.get(name, ''))} |"
              for name in sub.choices]
    lines.append("")
    for name, sp in sub.choices.items():
        lines += [f"### {module} {name}", "", _cell(helps.get(name, "")).rstrip() + ".", ""]
        if sp.description:
            lines += [" ".join(sp.description.split()), ""]
        lines += _options_table(sp)
        lines += _epilog(sp.epilog)
    return lines


def generate() -> str:
    """The text of docs/reference/cli.md."""
    sys.path.insert(0, ROOT)
    from accountant.interfaces.cli import build_parser as accountant_parser
    from mechanisms.interfaces.cli import build_parser as mechanisms_parser

    argv0 = sys.argv[0] if sys.argv else ""
    sys.argv[:1] = [__file__]  # the parsers name their program after it: the module form
    try:
        parsers = (("accountant", accountant_parser(), "shuffle-dp"),
                   ("mechanisms", mechanisms_parser(), "shuffle-dp-mechanisms"))
    finally:
        sys.argv[:1] = [argv0]
    lines = [HEAD]
    for module, parser, console in parsers:
        lines += _section(module, parser, console)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    text = generate()
    if argv[1:] == ["--check"]:
        with open(OUT, encoding="utf-8") as fh:
            same = fh.read() == text
        if not same:
            print(f"{os.path.relpath(OUT, ROOT)} is not up to date: "
                  "run python scripts/cli_reference.py")
        return 0 if same else 1
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
