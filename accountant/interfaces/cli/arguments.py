"""Argument types and option groups shared by the sub-commands: the parser that raises
``UsageError``, the mechanism and method options, the variation-ratio argument, the bound
list and the Dask scheduler check.
"""
from __future__ import annotations
import argparse
from accountant.core import limits as L
from accountant.core.limits import float_arg, int_arg
from accountant.core.params import MECHANISM_SPECS, MECHANISMS


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


def add_mechanism_options(p: argparse.ArgumentParser) -> None:
    named = ", ".join(spec.cli for spec in MECHANISM_SPECS.values())
    p.add_argument("--mechanism", default="generic", choices=MECHANISMS + ("finite",),
                   help=f"randomizer: {named} or finite (any randomizer given as its probability matrix, "
                        "--matrix FILE, or a named one, --catalogue NAME --k K --eps0 E)")
    add_matrix_option(p)
    add_catalogue_options(p)
    p.add_argument("--s", type=int_arg("--s", 1, T_MAX), default=None,
                   help="sparsity s (collision, coco)")
    p.add_argument("--t", type=int_arg("--t", 1, T_MAX), default=None,
                   help="output size t (default: paper's t* for collision, Theorem 7 for coco)")
    p.add_argument("--k", type=int_arg("--k", 2, T_MAX), default=None,
                   help="number of values k >= 2 (krr, olh, oue: the domain size)")
    p.add_argument("--g", type=int_arg("--g", 2, T_MAX), default=None,
                   help="olh: hash range g >= 2 (default round(e^eps0) + 1, Wang et al. 2017)")
    p.add_argument("--d", type=int_arg("--d", 1, T_MAX), default=None,
                   help="dimension d >= s (collision, coco): the certified lower bounds use three inputs "
                        "on pairwise disjoint s-sets, which exist only for d >= 3s; without --d no lower "
                        "bound is reported for collision/coco (the upper bound does not depend on d)")
    p.add_argument("--p", type=vr_ratio_arg("--p"), default=None,
                   help="variation-ratio: likelihood ratio bound p > 1 between the two differing "
                        "users' outputs (e^eps0 for eps0-LDP); eps0 = ln p")
    p.add_argument("--beta", type=float_arg("--beta", 0.0, 1.0, lo_open=True), default=None,
                   help="variation-ratio: total variation bound 0 < beta <= (p-1)/(p+1)")
    p.add_argument("--q", type=vr_ratio_arg("--q"), default=None,
                   help="variation-ratio: ratio bound q > 1 of a differing user's output to any other "
                        "user's (default: p)")
    p.add_argument("--hash-model", dest="hash_model", default="any", choices=("any", "random"),
                   help="collision, coco, olh: 'any' (default) proves the bound for every hash family; "
                        "'random' proves it assuming each report's hash is a uniformly random "
                        "function (docs/explanation/hash-model.md: what a deployment must do)")
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
