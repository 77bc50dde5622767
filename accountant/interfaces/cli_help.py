"""Help text shared by the two command lines (``accountant`` and ``mechanisms``):
examples at the end of every ``--help``, and the usage with the most common commands
printed when no command is given.
"""
from __future__ import annotations

import argparse
import os
import sys
import textwrap
from typing import Mapping, Sequence


def prog_name(module: str) -> str:
    """The name the user typed: the console command (``shuffle-dp...``) or ``python -m MODULE``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name.startswith("shuffle-dp") else f"python -m {module}"


def epilog(prog: str, examples: Sequence[str], note: str) -> str:
    return ("examples:\n" + "\n".join(f"  {prog} {e}" for e in examples) + "\n\n"
            + textwrap.fill(note, 79))


def add_help_examples(parser: argparse.ArgumentParser, sub, common: Sequence[tuple],
                      examples: Mapping[str, Sequence[str]], note: str,
                      notes: Mapping[str, str] = {}) -> None:
    """End the main help with the first three common examples and each sub-command's
    help with its own, followed by ``note`` (or ``notes[command]``)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = epilog(parser.prog, [e for _, e in common[:3]], note)
    for name, p in sub.choices.items():
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        p.epilog = epilog(parser.prog, examples.get(name, ()), notes.get(name, note))


def no_command_text(parser: argparse.ArgumentParser, common: Sequence[tuple], note: str) -> str:
    """Usage, the most common commands with an example each, where to find more."""
    prog = parser.prog
    lines = [parser.format_usage().rstrip(), "", "most common commands:"]
    lines += [f"  {prog} {example}" for _, example in common]
    lines += ["", f"{prog} COMMAND --help shows every option and more examples.",
              textwrap.fill(note, 79)]
    return "\n".join(lines)
