"""Argument types and option groups shared by the sub-commands: the parser that raises
``UsageError``, the mechanism options generated from the registry's ``OPTIONS``
(:func:`add_option_args`), the method option, the variation-ratio argument, the bound list
and the Dask scheduler check.
"""
from __future__ import annotations
import argparse
from accountant.core import limits as L
from accountant.core.limits import float_arg, int_arg
from accountant.core.params import MECHANISM_SPECS, MECHANISMS, OPTIONS, OptionSpec, mechanisms_with_option


class UsageError(Exception):
    """Bad command-line input (reported in one line, exit status 2)."""


class UsageParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise UsageError(L.short_message(message))

    def _check_value(self, action, value):  # a long rejected choice is cut, not echoed whole
        L.check_choice(action, value)


T_MAX = L.T_MAX
VR_P_MAX = L.VR_RATIO_MAX  # variation-ratio p, q: e^eps0 with eps0 in [1e-10, 30]
VR_P_MIN = L.VR_RATIO_MIN


def vr_ratio_arg(name: str):
    """--p / --q of variation-ratio: a number in [e^1e-10, e^30] (ln p is eps0), the range
    of :class:`accountant.core.params.VariationRatioParams` in the option's name."""
    def parse(text: str) -> float:
        try:  # a number, short enough, in (1, e^30] (the message of every float option) ...
            x = L.check_float(name, text, 1.0, VR_P_MAX, lo_open=True)
            return L.check_vr_ratio(name, x)  # ... and at least e^1e-10
        except ValueError:
            raise argparse.ArgumentTypeError(f"{L.vr_ratio_range(name)}, got {text[:40]!r}") from None
    return parse


def add_method_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", default="float", choices=("float", "mpmath", "arb"),
                   help="pair engine: float (fast), mpmath (checked reference), arb (certified)")


def add_matrix_option(p: argparse.ArgumentParser) -> None:
    """--matrix FILE of --mechanism finite."""
    p.add_argument("--matrix", default=None, metavar="FILE",
                   help="finite: the randomizer's probability matrix, rows inputs, columns outputs "
                        "(.json: a list of rows or {\"matrix\": rows, \"inputs\": [...], \"outputs\": "
                        "[...]}; .csv without a header; .npy); eps0 is computed from it (docs/finite.md)")


def add_catalogue_options(p: argparse.ArgumentParser, with_g: bool = False, g_help: str = "") -> None:
    """--catalogue NAME and --size of --mechanism finite (a named matrix of
    accountant.core.catalogue, with --k inputs at --eps0; local hashing takes --g, whose help
    ``g_help`` replaces where --g is olh's too)."""
    from accountant.core.catalogue import CATALOGUE

    p.add_argument("--catalogue", default=None, choices=sorted(CATALOGUE),
                   help="finite: a named randomizer written as its matrix, with --k inputs at --eps0 "
                        "(instead of --matrix; docs/finite.md)")
    p.add_argument("--size", type=int_arg("--size", 1, T_MAX), default=None,
                   help="finite --catalogue subset-selection: the subset size (default ceil(k / (e^eps0 + 1)))")
    if with_g:
        p.add_argument("--g", type=int_arg("--g", 2, T_MAX), default=None,
                       help=g_help or "finite --catalogue local-hashing: hash range g >= 2 (default "
                                      "round(e^eps0) + 1)")


#: ``--mechanism`` when it is not given: any eps0-LDP randomizer
DEFAULT_MECHANISM = "generic"

#: the command line's help of a mechanism option where it says more than ``OPTIONS``' help
CLI_HELP = {
    "d": "dimension d >= s (collision, coco): the certified lower bounds use three inputs on pairwise "
         "disjoint s-sets, which exist only for d >= 3s; without --d no lower bound is reported for "
         "collision/coco (the upper bound does not depend on d)",
    "p": "variation-ratio: likelihood ratio bound p > 1 between the two differing users' outputs "
         "(e^eps0 for eps0-LDP); eps0 = ln p",
    "q": "variation-ratio: ratio bound q > 1 of a differing user's output to any other user's (default: p)",
    "hash_model": "collision, coco, olh: 'any' (default) proves the bound for every hash family; 'random' "
                  "proves it assuming each report's hash is a uniformly random function "
                  "(docs/explanation/hash-model.md: what a deployment must do)",
}


def option_type(option: OptionSpec):
    """The argparse type of a mechanism option, its range from :data:`OPTIONS`: an integer in
    [lo, T_MAX], a number in (lo, hi], or (no upper end: the likelihood-ratio bounds p, q) a
    ratio in [e^1e-10, e^30]."""
    if option.kind is int:
        return int_arg(option.flag, option.lo, T_MAX)
    if option.kind is str:   # text the parameter type reads (a range LO,HI), checked by make_params
        return str
    if option.hi is None:
        return vr_ratio_arg(option.flag)
    return float_arg(option.flag, option.lo, option.hi, lo_open=option.lo_open, hi_open=option.hi_open)


def add_option_args(p: argparse.ArgumentParser, names=None, helps=None, lists=()) -> None:
    """The mechanism options ``names`` (default: every option of :data:`OPTIONS` that a
    registered mechanism takes, in its order) as ``--NAME``: the type and range from
    ``OPTIONS``, the help from :data:`CLI_HELP` or ``OPTIONS`` unless ``helps`` gives the
    command's own; ``lists``: options taken as text (a list, parsed by the command)."""
    for name in names if names is not None else [o for o in OPTIONS if mechanisms_with_option(o)]:
        option = OPTIONS[name]
        kw: dict = {"default": option.choices[0] if option.choices else None,  # hash model: "any"
                    "help": (helps or {}).get(name) or CLI_HELP.get(name) or option.help}
        if option.choices:
            kw["choices"] = option.choices
        elif name not in lists:
            kw["type"] = option_type(option)
        p.add_argument(option.flag, dest=name, **kw)


def add_mechanism_options(p: argparse.ArgumentParser) -> None:
    """--mechanism (a registered name or finite), the finite randomizer's inputs and every
    mechanism option (:func:`add_option_args`), and --json."""
    named = ", ".join(spec.cli for spec in MECHANISM_SPECS.values())
    p.add_argument("--mechanism", default=DEFAULT_MECHANISM, choices=MECHANISMS + ("finite",),
                   help=f"randomizer: {named} or finite (any randomizer given as its probability matrix, "
                        "--matrix FILE, or a named one, --catalogue NAME --k K --eps0 E)")
    add_matrix_option(p)
    add_catalogue_options(p)
    add_option_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


SCHEDULER_CONNECT_SECONDS = 3.0


def check_scheduler(address: str, timeout: float = SCHEDULER_CONNECT_SECONDS) -> str:
    """Refuse an unusable ``--scheduler`` before any work, in one line (ValueError, exit 2):
    an address that is not ``[tcp://]host:port``-shaped, or a tcp address where nothing
    accepts a connection within ``timeout`` seconds (Dask's own client waits 10 s and more).
    Other protocols (tls://, inproc://, ucx://) are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    text = (address or "").strip()
    example = "an address such as tcp://host:8786"
    if not text:
        raise ValueError(f"--scheduler must be {example}, got {address!r}")
    scheme = text.split("://", 1)[0].lower() if "://" in text else "tcp"
    if scheme != "tcp":
        return text
    try:
        parts = urlsplit(text if "://" in text else "tcp://" + text)
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None:
        raise ValueError(f"--scheduler must be {example}, got {address!r}")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        if isinstance(exc, socket.timeout):
            why = "no answer"
        raise ValueError(f"--scheduler: cannot connect to {text!r} within {timeout:g} s ({why}); "
                         f"start a Dask scheduler there or drop --scheduler") from None
    return text


def bound_list(text: str) -> tuple:
    from accountant.bounds.registry import BOUND_NAMES

    if text == "all":
        return BOUND_NAMES
    from accountant.bounds.registry import ALIASES

    names = tuple(ALIASES.get(x.strip(), x.strip()) for x in text.split(",") if x.strip())
    bad = [b for b in names if b not in BOUND_NAMES]
    if bad or not names:
        raise ValueError(f"bounds must be 'all' or names from {', '.join(BOUND_NAMES)}, got {text!r}")
    return names
