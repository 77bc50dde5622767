"""The mix editor of the deployment controls (``--mix FILE`` on the command line): groups
of users with their own randomizer, from a table (``st.data_editor``) or the JSON file the CLI
takes.  Every group is checked by :func:`accountant.accounting.deployment_groups.parse_mix`, whose
message is shown beside the widget before any work; no formula lives here."""
from __future__ import annotations

import json
from typing import Optional

import pandas as pd
import streamlit as st

import common
from accountant.accounting import deployment_groups as G
from accountant.core import limits as L
from accountant.core.params import MECHANISMS

#: the table's first rows: two groups of binary RR (the round's profile is fast for binary RR)
DEFAULT_GROUPS = ({"count": 60_000, "mechanism": "rr", "eps0": 2.0},
                  {"count": 40_000, "mechanism": "rr", "eps0": 1.0})
#: the page's limit on the number of groups (each is one proved eps_c search, and over rounds the
#: exact profile of every group at about 100 points); the CLI takes more
MAX_GROUPS = 20
#: the largest mix file the page reads (as a compose schedule on the command line)
MAX_BYTES = L.MAX_SCHEDULE_BYTES
_INTEGER_KEYS = ("count", "s", "t", "d", "k", "g")
#: why a mix waits for a button before it is composed over rounds: the groups whose rounds are not
#: fast (``MechanismSpec.fast_rounds``: a profile in about a second) run the exact blanket at each of
#: about 100 eps of the profile
SLOW_NOTE = ("Composing this mix over rounds runs the exact privacy blanket of each group other than binary "
             "RR, generic and variation-ratio at about 100 values of eps (two k-RR groups of 1e4-1e5 users: "
             "1.5 to 2.5 minutes on this machine): press the button to compute it.")

_NUM, _SELECT = st.column_config.NumberColumn, st.column_config.SelectboxColumn
#: the table's columns, all narrow: the sidebar shows count, mechanism and eps0 without scrolling
_COLUMNS = {
    "count": _NUM("count", min_value=1, step=1, required=True, width="small", help="users in the group"),
    "mechanism": _SELECT("mechanism", options=list(MECHANISMS), required=True, width="small",
                         help="the group's randomizer"),
    "eps0": _NUM("eps0", min_value=0.0, width="small",
                 help="the group's local budget (variation-ratio: give p and beta instead)"),
    "k": _NUM("k", min_value=2, step=1, width="small", help="domain size (krr, olh, oue)"),
    "s": _NUM("s", min_value=1, step=1, width="small", help="non-zeros per user (collision, coco)"),
    "t": _NUM("t", min_value=1, step=1, width="small",
              help="hash range (collision, coco; empty: the paper's rule)"),
    "d": _NUM("d", min_value=1, step=1, width="small", help="dimension (collision, coco)"),
    "g": _NUM("g", min_value=2, step=1, width="small", help="OLH's hash range (empty: round(e^eps0) + 1)"),
    "p": _NUM("p", width="small", help="variation-ratio: likelihood ratio bound"),
    "beta": _NUM("beta", width="small", help="variation-ratio: total variation bound"),
    "q": _NUM("q", width="small", help="variation-ratio: ratio to other users (empty: q = p)"),
    "hash_model": _SELECT("hash_model", options=["any", "random"], width="small",
                          help="collision, coco, olh (empty: any)"),
}


def default_frame() -> pd.DataFrame:
    """The editor's table: one column per key parse_mix takes, the default groups in its rows."""
    frame = pd.DataFrame([{k: g.get(k) for k in G.MIX_KEYS} for g in DEFAULT_GROUPS], columns=list(G.MIX_KEYS))
    for k in G.MIX_KEYS:
        if k not in ("mechanism", "hash_model"):
            frame[k] = frame[k].astype("Int64" if k in _INTEGER_KEYS else "Float64")
    return frame


def _missing(v) -> bool:
    if v is None or (isinstance(v, str) and not v.strip()):
        return True
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def groups_from_rows(rows: list) -> list:
    """The table's rows as the CLI's JSON groups: empty cells left out, whole numbers in the
    integer columns as int, wholly empty rows (a row just added) dropped."""
    out = []
    for row in rows:
        g = {}
        for key in G.MIX_KEYS:
            v = row.get(key)
            if _missing(v):
                continue
            v = v.item() if hasattr(v, "item") else v  # numpy / pandas scalars
            if key in _INTEGER_KEYS and isinstance(v, float) and v.is_integer():
                v = int(v)
            g[key] = v
        if g:
            out.append(g)
    return out


def read_upload(name: str, data: bytes) -> list:
    """The groups of an uploaded mix file (the CLI's --mix FILE); ValueError naming the file."""
    if len(data) > MAX_BYTES:
        raise ValueError(f"mix: {name!r} has {len(data):,} bytes, beyond the page's limit of {MAX_BYTES:,}")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"mix: cannot read a JSON list from {name}: {exc}") from None


def editor(box) -> Optional[str]:
    """The mix's widgets in ``box``; the groups as canonical JSON text, or None (the reason shown
    in ``box``) until they are valid."""
    src = box.radio("groups from", ["table", "JSON file"], key="dep_mix_src", horizontal=True,
                    help="a table of groups, or the file python -m accountant epsilon --mix FILE takes")
    if src == "table":
        frame = box.data_editor(default_frame(), key="dep_mix_table", num_rows="dynamic", hide_index=True,
                                column_config=_COLUMNS)
        raw = groups_from_rows(frame.to_dict("records"))
    else:
        up = box.file_uploader("mix file: a JSON list of {count, mechanism, eps0, ...}", type=["json"],
                               key="dep_mix_file")
        if up is None:
            box.info("Upload a mix file (as docs/examples/mix.json) to use the mix.")
            return None
        raw = common.call(read_upload, up.name, up.getvalue(), where=box)
        if raw is None:
            return None
    count = len(raw) if isinstance(raw, list) else 0
    if not common.check(count <= MAX_GROUPS, f"mix: at most {MAX_GROUPS} groups on the dashboard, got "
                        f"{count} (python -m accountant epsilon --mix FILE takes more)", where=box):
        return None
    if common.call(G.parse_mix, raw, "mix", where=box) is None:
        return None
    text = json.dumps(raw, sort_keys=True)
    box.caption("Groups: " + describe(text) + (" (scroll the table sideways, or widen the sidebar, for eps0 "
                                               "and the parameters)" if src == "table" else ""))
    return text


def groups(text: str) -> list:
    """[(count, Params)] of the mix's JSON text (parse_mix)."""
    return G.parse_mix(json.loads(text), "mix")


def describe(text: str) -> str:
    """'60,000 x binary RR eps0 = 2; ...': the groups, as the page shows them."""
    return "; ".join(f"{c:,} x {common.MECH_LABEL.get(p.name, p.name)}"
                     + (f" (k = {common.MECHANISM_SPECS[p.name].values(p)['k']})" if common.takes(p.name, "k")
                        else "") + f" eps0 = {common.fmt(p.eps0)}"
                     for c, p in groups(text))


def page_n(dep: Optional[dict], n: int, where) -> int:
    """The page's n: the mix's total when a mix is given (said in ``where``), else ``n``."""
    if not dep or "mix" not in dep:
        return n
    total = sum(c for c, _ in groups(dep["mix"]))
    where.info(f"n = {total:,}: the mix's total number of users (the n input above is not used while "
               "the mix is on)")
    return total


def slow_rounds(dep: Optional[dict]) -> bool:
    """Whether composing the mix over rounds runs the exact blanket (SLOW_NOTE)."""
    return bool(dep) and "mix" in dep and any(not _fast_rounds(p) for _, p in groups(dep["mix"]))


def _fast_rounds(params) -> bool:
    """Whether a group's rounds compose fast (``MechanismSpec.fast_rounds``: RR, generic,
    variation-ratio); a finite randomizer's run the exact blanket."""
    spec = common.MECHANISM_SPECS.get(params.name)
    return spec is not None and spec.fast_rounds
