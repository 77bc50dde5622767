"""The argparse tree of ``python -m accountant``: every sub-command with its options, ranges,
defaults, examples and notes (the help text is built here, the checks come from core.limits).
"""
from __future__ import annotations
import argparse
from accountant.interfaces import cli_help
from accountant.core import limits as L
from accountant.bounds.registry import ALIASES, BOUND_NAMES, REGISTRY
from accountant.core.limits import float_arg, int_arg
from accountant.core.params import MECHANISMS
from accountant.interfaces.cli.arguments import (DEFAULT_MECHANISM, T_MAX, UsageParser, add_mechanism_options,
                                                add_method_option, add_option_args)
from accountant.interfaces.cli.arguments import add_catalogue_options, add_matrix_option

BOUND_CHOICES = ("proved",) + BOUND_NAMES + tuple(ALIASES)
INVERSE_CHOICES = ("proved",) + tuple(b for b in BOUND_NAMES if REGISTRY[b].kind != "lower") + tuple(ALIASES)
BIB_RHO_MAX = 1e6
N_ARG = L.n_arg()
EPS0_ARG = L.eps0_arg()
DELTA_ARG = L.delta_arg()
RTOL_ARG = float_arg("--rtol", 1e-15, 0.1)


LOG_DELTA_ARG = float_arg("--log-delta", L.LOG_DELTA_MIN, 0.0, hi_open=True)


DEFAULTS_NOTE = ("Defaults: --mechanism generic (any eps0-LDP randomizer: the bound holds for every "
                 "one) and --bound proved (the smallest proved upper bound; 'paper' is Theorem 5, "
                 "not proved).")

# (command, example) -- the five most common first: printed when no command is given
COMMON = (
    ("epsilon", "epsilon --n 1e5 --eps0 2 --delta 1e-6"),
    ("delta", "delta --n 1e5 --eps0 2 --eps 0.05"),
    ("local-epsilon", "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8"),
    ("compare", "compare --n 1e5 --eps0 1 --delta 1e-6"),
    ("compose", "compose --rounds 100 --n 1e5 --eps0 4 --delta 1e-6"),
)
EXAMPLES = {
    "epsilon": ("epsilon --n 1e5 --eps0 2 --delta 1e-6",
                "epsilon --n 1e5 --eps0 2 --delta 1e-6 --mechanism collision --s 4 --json",
                "epsilon --n 1e6 --eps0 1 --delta 1e-8 --mechanism krr --k 8"),
    "delta": ("delta --n 1e5 --eps0 2 --eps 0.05",
              "delta --n 1e5 --eps0 4 --eps 3 --bound stronger-clone --method arb --json"),
    "local-epsilon": ("local-epsilon --n 1e6 --eps 0.1 --delta 1e-8",
                      "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8 --mechanism collision --s 8",
                      "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8 --mechanism finite --catalogue "
                      "hadamard-response --k 100"),
    "compare": ("compare --n 1e5 --eps0 1 --delta 1e-6",
                "compare --n 1e5 --eps0 2 --delta 1e-6 --mechanism krr --k 8 --json"),
    "compose": ("compose --rounds 100 --n 1e5 --eps0 4 --delta 1e-6",
                "compose --rounds 100 --n 1e5 --eps0 4 --mechanism collision --s 4 --delta 1e-6",
                "compose --rounds 10 --n 1e5 --delta 1e-6 --mechanism finite --matrix docs/examples/three-way.json"),
    "table": ("table --n 10000 --eps0 0.5,1 --delta 1e-6 --out t.csv",
              "table --n 10000,100000 --s 4,64 --eps0 0.1:5.0:10 --delta 1e-6 --mechanism collision "
              "--out t.md"),
    "figure": ("figure --out fig2.html --n 10000 --s 4 --eps0 0.5:5:10",
               "figure --out fig2.html"),
    "users": ("users --eps0 2 --eps 0.1 --delta 1e-6 --mechanism krr --k 4 --json",
              "users --eps0 0.5 --eps 0.06 --delta 1e-6 --mechanism rr"),
    "bib": ("bib --m 100 --s 1 --n 10000 --rho 2 --delta 1e-6",
            "bib --m 100 --s 1 --n 10000 --target-eps 1 --delta 1e-6"),
}


NOTES = {  # commands whose defaults differ from DEFAULTS_NOTE
    "figure": "Defaults: mechanism collision (the paper's Figure 2) and every bound of the "
              "comparison set (--bounds all); the proved bound is marked as such.",
    "bib": "bib is its own mechanism (balls into bins, Luo, Wang, Yi); its delta is the exact "
           "divergence, an upper bound, with the paper's condition shown beside it.",
}


def no_command_text() -> str:
    """Usage and the five most common commands (``python -m accountant`` alone)."""
    return cli_help.no_command_text(build_parser(), COMMON, DEFAULTS_NOTE)


def _add_epsilon(sub) -> None:
    """The ``epsilon`` command's options."""
    from accountant.interfaces.cli.deployments import add_options as _deployment_options

    p = sub.add_parser("epsilon", help="central eps_c for a target delta")
    p.add_argument("--n", type=N_ARG, default=None, help="number of users (required unless --n-min)")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; for variation-ratio give --p instead)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--delta", type=DELTA_ARG, help="target delta in [1e-300, 1)")
    g.add_argument("--log-delta", type=LOG_DELTA_ARG,
                   help="target natural log of delta in [-10000, 0) (pair bounds below log(1e-300))")
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-9, help="relative tolerance on eps_c")
    add_method_option(p)
    p.add_argument("--bound", default="proved", choices=BOUND_CHOICES,
                   help="which bound (default 'proved': the smallest proved upper bound; 'paper' is "
                        "Theorem 5, not proved)")
    add_mechanism_options(p)
    _deployment_options(p)  # --colluders, --n-min, --dummies, --sampling


def _add_compare(sub) -> None:
    """The ``compare`` command's options."""
    p = sub.add_parser("compare", help="every bound of the comparison set on the same inputs")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; for variation-ratio give --p instead)")
    p.add_argument("--delta", type=DELTA_ARG, required=True, help="target delta in [1e-300, 1)")
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-9, help="relative tolerance on eps_c (default 1e-9)")
    add_mechanism_options(p)


def _add_table(sub) -> None:
    """The ``table`` command's options."""
    p = sub.add_parser("table", help="grid of bounds exported as .csv/.json/.md/.tex (docs/tables.md)")
    p.add_argument("--n", required=True, help="list, e.g. 10000,100000")
    add_option_args(p, ("s", "k"), lists=("s", "k"), helps={"s": "list of s (collision, coco)",
                                                            "k": "list of k, the domain size (krr, olh, oue)"})
    p.add_argument("--eps0", default=None,
                   help="list or start:stop:count, e.g. 0.1:5.0:50 (required; variation-ratio: --p)")
    p.add_argument("--delta", required=True, help="list of delta")
    p.add_argument("--mechanism", default=DEFAULT_MECHANISM, choices=MECHANISMS + ("finite",),
                   help="randomizer (as for epsilon; default generic eps0-LDP)")
    add_matrix_option(p)
    add_catalogue_options(p, with_g=True)
    add_option_args(p, ("p", "beta", "q"), helps={
        "p": "variation-ratio: likelihood ratio bound p > 1 (one value; eps0 = ln p)",
        "q": "variation-ratio: ratio bound q > 1 (default: p)"})
    p.add_argument("--t-rule", default="paper", help="paper | coco | fixed:T")
    add_option_args(p, ("hash_model",), helps={
        "hash_model": "collision, coco, olh: 'any' (default, every hash family) or 'random' (proved assuming "
                      "each report's hash is a uniformly random function; said in the file)"})
    p.add_argument("--bounds", default=None,
                   help="bounds to compute: all or a comma-separated list (default: those the columns need)")
    p.add_argument("--columns", default=None,
                   help="comma-separated fields and bound names (default: n, s/t/delta where they vary, "
                        "eps0, proved_epsilon, lower_epsilon, paper_epsilon, best_literature, "
                        "literature_epsilon, saving_percent)")
    p.add_argument("--all-bounds", action="store_true",
                   help="every bound and every field (the wide table; LaTeX: landscape longtable)")
    p.add_argument("--long", action="store_true",
                   help="tidy long format: one row per point and bound")
    p.add_argument("--digits", type=int_arg("--digits", 1, 17), default=4,
                   help="significant digits in csv/md/tex (upper bounds round up, lower bounds down; "
                        "JSON keeps full precision)")
    p.add_argument("--out", required=True, help="output file; format from the extension (.tex also writes .bib)")
    p.add_argument("--workers", type=int_arg("--workers", 1, L.MAX_WORKERS), default=None, help="worker processes (default: cores)")
    p.add_argument("--scheduler", default=None,
                   help="Dask distributed scheduler address, e.g. tcp://host:8786 (refused in one line "
                        "if nothing answers within 3 s)")
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-9, help="relative tolerance on eps_c (default 1e-9)")
    p.add_argument("--json", action="store_true", help="print a JSON summary of what was written")


def _add_figure(sub) -> None:
    """The ``figure`` command's options."""
    p = sub.add_parser("figure", help="Figure 2 layout (amplification ratio vs eps0) with Plotly")
    p.add_argument("--out", required=True, help="FILE.html, .png, .pdf or .svg")
    p.add_argument("--n", default="10000,100000", help="list of n, one panel each (default 10000,100000)")
    p.add_argument("--s", default="4,64", help="list of s, one panel each (default 4,64)")
    p.add_argument("--eps0", default="0.1:5.0:50",
                   help="list or start:stop:count, the x axis (default 0.1:5.0:50)")
    p.add_argument("--delta", type=DELTA_ARG, default=1e-6, help="delta in [1e-300, 1) (default 1e-6)")
    p.add_argument("--bounds", default="all",
                   help="bounds to draw: all (default) or a comma-separated list of names")
    p.add_argument("--mechanism", default="collision", choices=("collision", "finite"),
                   help="collision (Figure 2, the default); finite is refused with the reason: the x axis "
                        "is eps0, which a matrix fixes (use table --mechanism finite)")
    add_matrix_option(p)
    add_catalogue_options(p)
    p.add_argument("--width", type=float_arg("--width (inches)", 1.0, 20.0), default=None,
                   help="figure width in inches (default 3.5: one column of a two-column paper)")
    p.add_argument("--workers", type=int_arg("--workers", 1, L.MAX_WORKERS), default=None,
                   help="worker processes (default: cores)")
    p.add_argument("--json", action="store_true", help="print a JSON summary of what was written")


def _add_delta(sub) -> None:
    """The ``delta`` command's options."""
    from accountant.interfaces.cli.deployments import add_options as _deployment_options

    p = sub.add_parser("delta", help="certified delta at a central epsilon")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; for variation-ratio give --p instead)")
    p.add_argument("--eps", type=L.eps_arg(), required=True,
                   help="central epsilon in [0, 30] (at 0: the total variation distance)")
    p.add_argument("--bound", default="proved", choices=BOUND_CHOICES,
                   help="which bound (default 'proved': the smallest proved upper bound)")
    add_method_option(p)
    add_mechanism_options(p)
    _deployment_options(p, delta=True)  # --colluders, --dummies, --sampling


def _add_local_epsilon(sub) -> None:
    """The ``local-epsilon`` command's options."""
    p = sub.add_parser("local-epsilon", help="largest eps0 meeting a central (eps, delta)")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    # the answer is at least the target (eps_c <= eps0): the target lies in the eps0 range
    p.add_argument("--eps", type=float_arg("--eps (central epsilon)", L.EPS0_MIN, L.EPS_MAX), required=True,
                   help="target central epsilon, in [1e-10, 30] (the answer eps0 is at least it)")
    p.add_argument("--delta", type=DELTA_ARG, required=True, help="target delta in [1e-300, 1)")
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-6, help="relative tolerance on eps0")
    p.add_argument("--bound", default="proved", choices=INVERSE_CHOICES,
                   help="invert the smallest proved bound (default) or a named upper bound "
                        "('paper' = Theorem 5, not proved)")
    add_mechanism_options(p)


def _add_users(sub) -> None:
    """The ``users`` command's options."""
    p = sub.add_parser("users", help="smallest n whose proved eps_c meets (eps, delta): the minimum batch size")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; not with --mechanism finite --matrix)")
    p.add_argument("--eps", type=float_arg("--eps (central epsilon)", 0.0, L.EPS_MAX, lo_open=True), required=True, help="target central epsilon")
    p.add_argument("--delta", type=DELTA_ARG, required=True, help="target delta of the central guarantee")
    p.add_argument("--rounds", type=int_arg("--rounds", 1, L.MAX_ROUNDS), default=1, help="rounds T composed (default 1)")
    add_mechanism_options(p)
    from accountant.interfaces.cli.deployments import add_options as _deployment_options

    _deployment_options(p, rounds=False)  # the deployment's smallest n: epsilon's options (--n-min, --mix refused)


def _add_bib(sub) -> None:
    """The ``bib`` command's options."""
    p = sub.add_parser("bib", help="balls-into-bins mechanism M^BIB (Luo, Wang, Yi, Theorem 2.1)")
    p.add_argument("--m", type=int_arg("--m", 1, T_MAX), required=True, help="number of bins (paper's m or B)")
    p.add_argument("--s", type=int_arg("--s", 1, T_MAX), required=True, help="size of the input set S")
    p.add_argument("--k", type=int_arg("--k", 0, L.MAX_N), default=0, help="fixed noise balls")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--p", type=float_arg("--p", 0.0, 1.0), default=None, help="per-user blanket probability p")
    g.add_argument("--rho", type=float_arg("--rho", 0.0, BIB_RHO_MAX), default=None,
                   help="expected blanket balls per user (rho > 1: floor(rho) balls + one with prob. frac(rho), Section 2.3)")
    p.add_argument("--eps", type=float_arg("--eps", 0.0, L.EPS_MAX), default=None, help="epsilon -> delta")
    p.add_argument("--delta", type=DELTA_ARG, default=None, help="delta -> epsilon (or with --target-eps: rho)")
    p.add_argument("--target-eps", type=float_arg("--target-eps", 0.0, L.EPS_MAX, lo_open=True), default=None, help="with --delta and no p/rho: smallest rho")
    p.add_argument("--rtol", type=RTOL_ARG, default=None, help="relative tolerance of the search")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog=cli_help.prog_name("accountant"),
                     description="Privacy amplification by shuffling: exact accounting.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=UsageParser)
    _add_epsilon(sub)
    _add_compare(sub)
    _add_table(sub)
    _add_figure(sub)
    _add_delta(sub)
    _add_local_epsilon(sub)
    _add_users(sub)
    _add_bib(sub)
    from accountant.interfaces.compose_cli import add_compose_parser

    add_compose_parser(sub)
    cli_help.add_help_examples(parser, sub, COMMON, EXAMPLES, DEFAULTS_NOTE, NOTES)
    return parser
