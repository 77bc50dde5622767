"""Shared pieces of the dashboard: explanations, input checks, cached library calls,
downloads.  No formula lives here: every number comes from ``accountant`` or
``mechanisms``; this module only adapts calls (caching, error capture) for Streamlit.
"""
from __future__ import annotations

import csv
import io
import math
import os
import sys
from typing import Callable, Optional, Sequence

# make the repository importable when run as ``streamlit run app/Home.py``
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402

from accountant.bounds import published as _published
from accountant.bounds import registry as _bounds
from accountant.bounds.laws import random_hash as _random_hash
from accountant.core import limits as _limits
from accountant.core import numfmt as _numfmt
from accountant.core.params import MECHANISM_SPECS, mechanism_names, mechanisms_with_option, menu_order
from accountant import ShuffleAccountant, make_params
from accountant.interfaces import tables as _tables
from mechanisms import analysis as _errors
from mechanisms import frequency as _frequency
from mechanisms import planning as _planner

from app.texts import (  # noqa: E402,F401  (the words of every page, re-exported)
    ERRATUM_CAPTION, EXPLANATIONS, explain, page_header)

MECH_LABEL = {name: spec.title for name, spec in MECHANISM_SPECS.items()}
#: the mechanisms whose accounting the library covers, in the order of the pages' menus
ACCOUNTED_MECHANISMS = menu_order(mechanism_names(ldp=True))
#: every named mechanism, in the order of the pages' menus
MENU_MECHANISMS = menu_order(MECHANISM_SPECS)
#: a table cell with no number, and what it means (in the column help)
DASH = "–"
DASH_HELP = "'–': not available (the bound does not apply at this point; see 'Bounds that do not apply')."


#: the help of the inputs of a variation-ratio randomizer (Wang et al., VLDB 2024), as the CLI's
VR_HELP = {"p": "likelihood ratio bound p > 1 between the two differing users' outputs (e^eps0 for an "
                "eps0-LDP randomizer); it fixes eps0 = ln p",
           "beta": "total variation bound between the two differing users' outputs, "
                   "0 < beta <= (p - 1)/(p + 1)",
           "q": "ratio bound q > 1 of a differing user's output to any other user's; empty: q = p"}
#: the labels of the hash models (Collision, CoCo, OLH)
HASH_MODEL_LABEL = {"any": "any hash family (proved for all)",
                    "random": "uniformly random hash (an assumption)"}


def takes(mechanism: str, option: str) -> bool:
    """Whether the menu's ``mechanism`` has ``option`` (its registry entry's ``options``; the hash
    model: a random-hash model); False for the pages' other choices (finite randomizers)."""
    return mechanism in mechanisms_with_option(option)


def mechanism_inputs(mechanism: str, where=None, skip: Sequence[str] = (), **page) -> dict:
    """The sidebar inputs of a named mechanism: one widget per option of its registry entry
    (``MechanismSpec.options``, then the hash model where it has a random-hash model), in that
    order, each from :data:`OPTION_INPUTS` (an option without a widget there, OLH's g which
    follows eps0, is not drawn; nor those in ``skip``).  ``page``: the arguments of an option's
    widget this page sets, e.g. ``s={"value": 8}``.  Returns the values by option name (the
    drawn ones) and ``"ok"``: False when an input's own check failed (its message is shown
    under it)."""
    spec = MECHANISM_SPECS[mechanism]
    got: dict = {"ok": True}
    for name in spec.options + (("hash_model",) if spec.random_hash else ()):
        if name in OPTION_INPUTS and name not in skip:
            got[name] = OPTION_INPUTS[name](where or st, spec, got, **page.get(name, {}))
    return got


def _s_input(w, spec, got, max_value=100_000, value=4, as_list=False):
    """s: a number, or (``as_list``) a list of them for a grid (None, with the message shown,
    when it does not parse)."""
    if as_list:
        return parse_list(w.text_input("s values", "4", key="ss"), int, "s", where=w)
    return int(w.number_input("s (non-zeros per user)", min_value=1, max_value=max_value, value=value, key="s"))


def _t_input(w, spec, got):
    """t: the paper's rule (None) or a fixed value, checked with s (CoCo: even, >= 2s + 2)."""
    mode = w.radio("t (hash range)", ["paper's rule", "fixed value"], key="t_mode",
                   help="Collision: t* = floor(s e^eps0 + 2s - 1); CoCo: Theorem 7's even t.")
    if mode != "fixed value":
        return None
    t = int(w.number_input("t value", min_value=1, max_value=2**31 - 2, value=4 * got["s"] + 2, key="t"))
    if call(make_params, spec.name, 1.0, s=got["s"], t=t, where=w) is None:
        got["ok"] = False
    return t


def _d_input(w, spec, got, help="only the certified lower bound depends on d: its datasets put three "
                                "users on pairwise disjoint s-sets, which needs d >= 3s"):
    """d: the data's dimension, at least s."""
    s = got["s"]
    d = int(w.number_input("d (dimension)", min_value=1, max_value=2**31 - 2, value=max(1000, 3 * s), key="d",
                           help=help))
    if not check(d >= s, f"d must be >= s = {s}, got {d}", where=w):
        got["ok"] = False
    return d


def _k_input(w, spec, got, max_value=2**31 - 2):
    """k: the domain size, with the help the registry gives for this mechanism."""
    return int(w.number_input("k (domain size)", min_value=2, max_value=max_value, value=10, key="k",
                              help=dict(spec.option_help).get("k")))


def _p_input(w, spec, got):
    return float(w.number_input("p (likelihood ratio bound)", value=3.0, step=0.1, format="%g", key="p",
                                help=VR_HELP["p"]))


def _beta_input(w, spec, got):
    return float(w.number_input("beta (total variation bound)", value=0.4, step=0.01, format="%g", key="beta",
                                help=VR_HELP["beta"]))


def _q_input(w, spec, got):
    """q: None (empty) is q = p.  No range on p, beta, q: the library checks them (its message,
    naming the parameter and its range, is shown by :func:`call`)."""
    q = w.number_input("q (ratio to other users; empty: q = p)", value=None, step=0.1, format="%g",
                       key="q", placeholder="q = p", help=VR_HELP["q"])
    return None if q is None else float(q)


def _hash_model_input(w, spec, got):
    return hash_model_input(w)


#: the pages' widget of each option of the named mechanisms (``accountant.core.params.OPTIONS``
#: holds its type and range for the library): ``fn(where, spec, values so far, **page)``
OPTION_INPUTS = {"s": _s_input, "t": _t_input, "d": _d_input, "k": _k_input, "p": _p_input,
                 "beta": _beta_input, "q": _q_input, "hash_model": _hash_model_input}


def hash_model_input(where=None) -> str:
    """The hash-model choice (Collision, CoCo, OLH): "any" or "random" (key "hash_model")."""
    return (where or st).selectbox(
        "Hash model", list(_random_hash.HASH_MODELS), key="hash_model", format_func=HASH_MODEL_LABEL.get,
        help="'any': the bounds hold for every hash family, the implementation's included. 'random': "
             "proved assuming each report's hash is a fresh uniformly random function "
             "(docs/explanation/hash-model.md: what a deployment must do); the blanket is then the "
             "random-hash one, never above 'any'.")


# the planner's command-line options and the sidebar widgets that set them on the Planner page
_CLI_WIDGETS = {"--max-eps0": ("cap the local eps0", "max local eps0")}


def in_page_words(text: str) -> str:
    """A library message in a dashboard user's words: a command-line option it names
    (``--max-eps0 5``, ``--max-eps0``) becomes the sidebar widget that sets it."""
    import re

    for flag, (box, field) in _CLI_WIDGETS.items():
        text = re.sub(re.escape(flag) + r"\s+([0-9][0-9.eE+-]*)",
                      lambda m: f"tick '{box}' in the sidebar and set '{field}' to {m.group(1)}", text)
        text = text.replace(flag, f"tick '{box}' in the sidebar and set '{field}'")
    return text


def call(fn: Callable, *args, where=None, **kwargs):
    """Run a library call; show a ValueError's message (in ``where`` or the page)
    instead of a traceback and return None."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, OverflowError, ZeroDivisionError) as exc:
        (where or st).error(f"{exc}")
        return None


#: the Amplification page's budget for its chart (tables.estimate_seconds of its points): it
#: answers or refuses within a minute (25 points x 4 curves took 176 s at delta = 1e-300)
CHART_MAX_SECONDS = 45


def delta_from_text(text: str, where=None, default: Optional[str] = None):
    """(ok, delta) from a text box: a number in (0, 1).  With ``default`` (e.g. "1/n^2"),
    an empty text or that text gives (True, None): the library's default delta."""
    if default is not None and text.strip().replace(" ", "") in ("", default):
        return True, None
    delta = call(_limits.check_delta, text, where=where)  # the one delta range of every command
    if delta is None:
        return False, None
    return True, delta


def check(cond: bool, message: str, where=None) -> bool:
    """Show ``message`` as an error when ``cond`` is false; return ``cond``."""
    if not cond:
        (where or st).error(message)
    return cond


def parse_list(text: str, kind=float, name: str = "value", where=None) -> Optional[list]:
    """'1,2,3' or 'start:stop:count' -> list (tables.parse_list), error shown on failure."""
    return call(_tables.parse_list, text, kind, name, where=where)


def check_sim_size(n: int, d: int, reps: int) -> bool:
    """limits.check_sim_size (raises ValueError with the limit); True if within."""
    _limits.check_sim_size(n, d, reps)
    return True


def ratio(eps0: float, eps_c: Optional[float]) -> str:
    """eps0 / eps_c for display; eps_c = 0 (e.g. n = 1e10 at small eps0) gives "inf".
    eps_c is an upper bound, so the amplification it proves is printed rounded down."""
    if eps_c is None:
        return "n/a"
    if eps_c <= 0:
        return "inf (eps_c = 0)"
    return fmt(eps0 / eps_c, 4, "down")


fmt = _numfmt.fmt  # the one formatter (accountant.core.numfmt), re-exported for the pages


def log_axis(title: str, values=None) -> dict:
    """Layout of a log axis (plotly ``xaxis=``/``yaxis=`` or ``update_*axes(**...)``).

    Labels are decades written as powers of ten (no SI prefixes such as "100u", no
    repeated minor labels such as "2" for both 0.2 and 2).  When ``values`` span less than
    1.5 decades, decades alone would leave the axis almost unlabelled: ticks then sit at
    1-2-5 multiples, each labelled in full with :func:`fmt`.
    """
    ax = dict(title=title, type="log", exponentformat="power", showexponent="all")
    vals = [float(v) for v in (values if values is not None else ())
            if v is not None and math.isfinite(float(v)) and float(v) > 0]
    if vals and max(vals) / min(vals) < 30.0:
        lo, hi = min(vals), max(vals)
        decades = range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
        ticks: list = []
        # the coarsest set of "nice" mantissas that puts at least 3 ticks inside the data
        for mants in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9),
                      tuple(1 + i / 10 for i in range(90))):
            ticks = [m * 10.0 ** k for k in decades for m in mants if lo <= m * 10.0 ** k <= hi]
            if len(ticks) >= 3:
                break
        ax.update(tickvals=ticks, ticktext=[_tick_text(v) for v in ticks])
    else:
        ax["dtick"] = 1
    return ax


def _tick_text(v: float) -> str:
    """A tick label: whole numbers below 1e6 with separators (2,000), else :func:`fmt`."""
    r = round(v)
    if 1 <= v < 1e6 and abs(v - r) < 1e-9 * v:
        return f"{int(r):,}"
    return fmt(v, 3)


def to_csv(rows: Sequence[dict]) -> str:
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    return buf.getvalue()


def download_csv(rows: Sequence[dict], filename: str, label: str = "Download CSV",
                 key: Optional[str] = None) -> None:
    st.download_button(label, to_csv(rows), file_name=filename, mime="text/csv",
                       key=key or f"dl-{filename}")


def flat(rows: Sequence[dict]) -> list[dict]:
    """Rows with nested dicts (reasons) rendered as text, for st.dataframe."""
    out = []
    for r in rows:
        out.append({k: ("; ".join(f"{a}: {b}" for a, b in v.items()) if isinstance(v, dict) else v)
                    for k, v in r.items()})
    return out


def readable_table(rows: Sequence[dict], columns: dict, digits: int = 4) -> tuple[list[dict], dict]:
    """(rows of text, column_config) for st.dataframe: every number through :func:`fmt`.

    ``columns`` maps a row key to ``(title, direction, help)``: ``direction`` "up" for upper
    bounds (printed rounded up), "down" for lower bounds, None otherwise, ``"text"`` for a
    name; missing values (None, NaN) print as :data:`DASH`, explained in the help."""
    out = []
    for r in rows:
        line = {}
        for key, (title, direction, _) in columns.items():
            v = r.get(key)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                line[title] = DASH
            elif direction == "text" or isinstance(v, str):
                line[title] = str(v)
            else:
                line[title] = fmt(v, digits if isinstance(v, float) else 6, direction)
        out.append(line)
    cfg = {title: st.column_config.TextColumn(title, help=f"{text} {DASH_HELP}")
           for title, _, text in columns.values()}
    return out, cfg


def bound_column(key: str) -> tuple:
    """(direction, help) of a column of table rows (tables.compute_row): upper bounds print
    rounded up, lower bounds down, an amplification ratio the other way round, savings down.
    The direction is the exported files' (tables.column_direction): one rounding for the
    page and its downloads."""
    direction, text = _bound_column_help(key)
    return _tables.column_direction(key), text


def _bound_column_help(key: str) -> tuple:
    """(direction, help) as first written for the page; only the help is used (the direction
    comes from tables.column_direction, see :func:`bound_column`)."""
    kinds = {b: _bounds.REGISTRY[b].kind for b in BOUND_NAMES}
    if key.startswith("log2_ratio[") and key[11:-1] in kinds:
        name = key[11:-1]
        return ("up" if kinds[name] == "lower" else "down",
                f"log2(eps0 / eps_c) of bound '{name}' (bits): the amplification.")
    if key in kinds:
        kind = kinds[key]
        return ("down" if kind == "lower" else "up",
                f"eps_c of bound '{key}' (nats); {_bounds.REGISTRY[key].reference}.")
    return {"proved_epsilon": ("up", "smallest proved upper bound on eps_c (nats), rounded up."),
            "lower_epsilon": ("down", "certified lower bound on the true eps_c (nats), rounded down."),
            "paper_epsilon": ("up", "the paper's Theorem 5 value (nats): not a proved bound."),
            "literature_epsilon": ("up", "the best previously published proved bound (nats), rounded up."),
            "proved_over_paper": (None, "proved eps_c / paper's value."),
            "proved_over_lower": ("up", "proved eps_c / certified lower bound (>= 1)."),
            "saving_percent": ("down", "how much smaller the proved eps_c is than the best published "
                                       "proved one, in percent, rounded down."),
            }.get(key, (None, ""))


def table(rows: Sequence[dict], key: str, help: Optional[dict] = None,
          directions: Optional[dict] = None, where=None, as_text: Sequence[str] = (),
          short: Optional[Sequence[str]] = None, digits: int = 4) -> None:
    """st.dataframe of ``rows`` with no "None"/"nan" cell: a column with a missing value is
    printed by :func:`fmt` (``directions[col]``: "up", "down" or None) with :data:`DASH`
    for the gaps, explained in the column help; the other numeric columns keep numbers
    (:func:`number_columns`) unless named in ``as_text`` (bounds: directed rounding).
    Nested dicts are flattened to text (:func:`flat`).  With ``short`` (column names), only
    those are shown unless the "All columns" toggle above the table is on."""
    rows = flat(rows)
    help, directions = help or {}, directions or {}
    cols = list(dict.fromkeys(k for r in rows for k in r))
    if short is not None and not (where or st).toggle(
            f"All columns ({len(cols)})", value=False, key=f"{key}_all_columns",
            help="the default shows the inputs and the main numbers; this adds every column"):
        cols = [c for c in short if c in cols]  # in the order asked for
        rows = [{c: r.get(c) for c in cols} for r in rows]

    def missing(v) -> bool:
        return v is None or (isinstance(v, float) and math.isnan(v))

    gappy = {c for c in cols if c in as_text or any(missing(r.get(c)) for r in rows)}
    columns = {c: (c, directions.get(c), help.get(c, "")) for c in gappy}
    text, text_cfg = readable_table(rows, columns, digits)
    out = [{c: (t[c] if c in gappy else r.get(c)) for c in cols} for r, t in zip(rows, text)]
    cfg = number_columns([{c: v for c, v in r.items() if c not in gappy} for r in rows])
    for c, col in cfg.items():
        if help.get(c):
            col["help"] = help[c]
    cfg.update(text_cfg)
    (where or st).dataframe(out, hide_index=True, key=key, column_config=cfg)


def number_columns(rows: Sequence[dict]) -> dict:
    """column_config: float columns with 4 significant digits (not rounded to 0), integer
    columns (counts: n, d, t, B) with thousands separators and no digit cut off."""
    floats = {k for r in rows for k, v in r.items() if isinstance(v, float)}
    ints = {k for r in rows for k, v in r.items()
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool)} - floats
    cfg = {k: st.column_config.NumberColumn(k, format="%.4g") for k in floats}
    cfg.update({k: st.column_config.NumberColumn(k, format="localized") for k in ints})
    return cfg


# --------------------------------------------------------------------------- cached calls
from app.rows import (  # noqa: E402,F401  (the row store and the progress bar, re-exported)
    CURVE_RTOL, Progress, store_put, prefetch_rows, rows_cached, rows_with_progress)


def grid(ns, ss, eps0s, deltas, mechanism: str, t_rule: str, k: Optional[int] = None,
         d: Optional[int] = None, hash_model: str = "any"):
    return _tables.build_grid(ns, ss, eps0s, deltas, mechanism, t_rule, ks=[k], d=d, hash_model=hash_model)


@st.cache_data(show_spinner=False, max_entries=500)
def epsilon_result(mechanism: str, n: int, eps0: float, delta: float, s: Optional[int],
                   t: Optional[int], k: Optional[int] = None, d: Optional[int] = None,
                   hash_model: str = "any", vr: Optional[tuple] = None) -> dict:
    """The headline numbers: proved eps_c, certified lower bound (its datasets need the
    dimension ``d`` for Collision/CoCo), paper's value (library call); ``hash_model``
    ``"random"`` (Collision, CoCo, OLH): proved assuming each report's hash is uniformly random;
    ``vr = (p, beta, q)``: the variation-ratio randomizer (``eps0`` is then ln p, unused)."""
    p, beta, q = vr if vr is not None else (None, None, None)
    eps0 = eps0 if MECHANISM_SPECS[mechanism].eps0_given else None  # variation-ratio: ln p
    params = make_params(mechanism, eps0, s=s, t=t, k=k, d=d, p=p, beta=beta, q=q, hash_model=hash_model)
    rep = ShuffleAccountant(params, n).epsilon_result(delta)
    # under "every hash family" the bracket's lower end is the worst hash family's floor
    worst = None
    if hash_model == "any" and mechanism in _bounds.REGISTRY["lower-worst-hash"].applies_to:
        worst = _bounds.compute_params_bound("lower-worst-hash", params, n, delta)
    best = _published.best_published_proved(params, n, delta)  # one definition (accountant.bounds)
    return {"epsilon": rep.epsilon, "bound": rep.bound, "achieved_delta": rep.achieved_delta,
            "lower_epsilon": rep.lower_epsilon, "lower_reason": rep.lower_reason,
            "lower_dataset": rep.lower_dataset, "lower_hash_model": rep.lower_hash_model,
            "paper_epsilon": rep.paper_epsilon, "paper_caveat": rep.paper_caveat, "t": params.t,
            "worst_hash_epsilon": None if worst is None or not worst.applicable
            else min(worst.epsilon, rep.epsilon),
            "worst_hash_reason": None if worst is None or worst.applicable else worst.reason,
            "worst_hash_dataset": worst.reason if worst is not None and worst.applicable else None,
            "published_name": None if best is None else best[0],
            "published_epsilon": None if best is None else best[1].epsilon}


@st.cache_resource
def _plan_store() -> dict:
    """Plans shared by every session of this server (the plan() cache)."""
    return {}


def plan(target_eps: float, delta: float, n: int, d: int, s: int, estimate: str,
         mechanisms: tuple, bound: str = "proved", rounds: int = 1,
         max_eps0: Optional[float] = None, progress=None) -> "_planner.Plan":
    """Cached :func:`mechanisms.planning.plan` (with the n/2 and 2n sensitivity);
    ``progress(done, total)`` is called while a plan is computed (a plain dict cache:
    st.cache_data cannot replay a progress bar created outside the cached function)."""
    key = (float(target_eps), float(delta), int(n), int(d), int(s), estimate, tuple(mechanisms), bound,
           int(rounds), None if max_eps0 is None else float(max_eps0))
    store = _plan_store()
    if key not in store:
        result = _planner.plan(target_eps, delta, n, d, s, estimate, mechanisms, bound=bound,
                               rounds=None if rounds == 1 else int(rounds), max_eps0=max_eps0,
                               progress=progress)
        store_put(store, [(key, result)], 200)
    return store[key]


@st.cache_data(show_spinner=False, max_entries=200)
def optimal_t(mechanism: str, estimator: str, d: int, s: int, eps0: float) -> tuple:
    return _errors.optimal_t(mechanism, estimator, d, s, eps0)


BOUND_NAMES = _bounds.BOUND_NAMES
# the exact blanket and the certified lower bound cost up to seconds per point (docs/BENCHMARKS.md):
# grids draw them on request, headline numbers always
EXACT_BOUNDS = tuple(b for b in BOUND_NAMES if _bounds.REGISTRY[b].engine == "exact")
FAST_BOUNDS = tuple(b for b in BOUND_NAMES if b not in EXACT_BOUNDS)
# formulas and one-dimensional roots (about a millisecond a point): a chart draws these
# first and adds the engine-based curves when they are done
CLOSED_FORM_BOUNDS = tuple(b for b in BOUND_NAMES if _bounds.REGISTRY[b].engine == "closed-form")


# --------------------------------------------------------------------------- frequency (FE0/FE1)
FE_LABEL = {"fe0": "FE0", "fe1": "FE1"}
RHO_LABEL = {"paper": "paper's rho (Theorem 2.1)",
             "exact": "exact rho (balls-into-bins accounting)"}
PAPER_EPS_MAX = _frequency.PAPER_EPS_MAX
PAPER_NOT_AVAILABLE = f"not available: Theorem 2.1 needs eps <= {PAPER_EPS_MAX:g}"
#: the eps grid of the messages-per-user chart
FE_EPS_GRID = tuple(_tables.parse_list("0.25:3:12", float, "eps"))
#: the accountant's largest n (docs/limits.md): the widgets' max_value
MAX_N = _limits.MAX_N
MAX_BASELINE_D = _limits.MAX_BASELINE_D
MAX_SIM_CELLS = _limits.MAX_SIM_CELLS


@st.cache_data(show_spinner=False, max_entries=500)
def fe_protocol(mechanism: str, n: int, B: int, eps: float, delta: Optional[float], rho: str,
                b: Optional[int]):
    """frequency.make_protocol (delta None = 1/n^2; b None = default_b for FE1)."""
    return _frequency.make_protocol(mechanism, n, B, eps, delta, rho=rho, b=b)


@st.cache_data(show_spinner=False, max_entries=500)
def fe_summary(mechanism: str, n: int, B: int, eps: float, delta: Optional[float], rho: str,
               b: Optional[int], beta: float) -> dict:
    """The numbers the Frequency page shows for one protocol instance."""
    p = fe_protocol(mechanism, n, B, eps, delta, rho, b)
    fe1 = isinstance(p, _frequency.FE1)
    return {"rho_source": rho, "protocol": FE_LABEL[mechanism], "n": p.n, "B": p.B,
            "b": p.b if fe1 else None, "q": p.q if fe1 else None,
            "p_col": p.p_col if fe1 else None, **p.privacy(),
            "rho": p.rho, "blanket_per_user_fixed": p.blanket_floor,
            "blanket_extra_p": p.blanket_extra_p, "messages_per_user": p.messages_per_user,
            "bits_per_message": p.bits_per_message,
            "beta": beta, "alpha": p.alpha(beta),
            "alpha_proof": p.alpha(beta, form="proof") if fe1 else None,
            "std": p.std(0)}


def fe_saving(paper: dict, exact: dict) -> dict:
    """Fractions of the blanket messages and of all messages the exact rho saves."""
    return {"blanket": 1.0 - exact["rho"] / paper["rho"],
            "messages": 1.0 - exact["messages_per_user"] / paper["messages_per_user"]}


@st.cache_data(show_spinner=False, max_entries=200)
def fe_curve(mechanism: str, n: int, B: int, delta: Optional[float], b: Optional[int],
             eps_values: tuple) -> list[dict]:
    """rho and messages per user, paper's and exact, for every eps (paper: None above 3)."""
    rows = []
    for e in eps_values:
        ex = fe_protocol(mechanism, n, B, float(e), delta, "exact", b)
        pa = (fe_protocol(mechanism, n, B, float(e), delta, "paper", b)
              if e <= PAPER_EPS_MAX else None)
        rows.append({"eps": float(e), "rho_paper": pa.rho if pa else None, "rho_exact": ex.rho,
                     "messages_paper": pa.messages_per_user if pa else None,
                     "messages_exact": ex.messages_per_user})
    return rows


def fe_sim_refusal(mechanism: str, n: int, B: int, eps: float, delta: Optional[float], rho: str,
                   b: Optional[int], reps: int = 1) -> Optional[str]:
    """Why a simulation of this instance would be too large (None: small enough)."""
    label = RHO_LABEL[rho].split(" (")[0]
    p = fe_protocol(mechanism, n, B, eps, delta, rho, b)
    cost = p.simulation_cost()
    why = _limits.fe_refusal(cost)  # the per-run limits, in the words of the command line
    if why is not None:
        return f"Not simulated with the {label}: {why}."
    if cost["messages"] * reps > _limits.MAX_SIM_MESSAGES_TOTAL:
        return (f"Not simulated with the {label}: {reps} run(s) would generate about "
                f"{cost['messages'] * reps:.3g} messages in total, more than the limit of "
                f"{_limits.MAX_SIM_MESSAGES_TOTAL:.0e}. Lower the repetitions or n.")
    return None


def fe_simulate(mechanism: str, n: int, B: int, eps: float, delta: Optional[float], rho: str,
                b: Optional[int], reps: int, seed: int, data: str, beta: float,
                progress=None) -> dict:
    """frequency.simulate_frequency (not cached: it runs on the button, its result is kept
    in the session; ``progress(done, reps)`` drives the page's progress bar)."""
    return _frequency.simulate_frequency(mechanism, n, B, eps, delta, rho=rho, b=b, reps=reps,
                                         seed=seed, data=data, beta=beta, progress=progress)
