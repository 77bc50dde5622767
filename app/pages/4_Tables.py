"""Tables: grids of bounds over n, s, eps0, delta; export as CSV, JSON, Markdown, LaTeX."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import streamlit as st  # noqa: E402

import common  # noqa: E402
from accountant import make_params
from accountant.bounds.published import published_bounds
from accountant.interfaces import tables
from accountant.interfaces.figure import bound_label
from accountant.bounds.laws.random_hash import ASSUMPTION, RANDOM_MECHANISMS

MAX_POINTS = 400
MAX_SECONDS = 45  # the page answers or refuses within a minute (docs/limits.md)

common.page_header(
    "Tables of bounds",
    "A grid of inputs (every combination of the lists below) with the central eps_c from each "
    "chosen bound, the amplification ratio log2(eps0/eps_c) and the saving of the mechanism's "
    "proved eps_c over the best published proved bound.")
common.explain()
st.caption("Lists: comma-separated values (1e4, 1e5) or start:stop:count (0.5:5:4).")

sb = st.sidebar
sb.header("Grid")
mechanism = sb.selectbox("Mechanism", list(common.MENU_MECHANISMS),
                         format_func=lambda m: common.MECH_LABEL[m], key="mechanism")
vr_mech = not common.MECHANISM_SPECS[mechanism].eps0_given  # variation-ratio: eps0 = ln p
ns = common.parse_list(sb.text_input("n values", "10000, 100000", key="ns"), int, "n", where=sb)
vr = None
hash_model = "any"
# the inputs of the mechanism's options (a list of s: the grid's); t rule and hash model below
form = common.mechanism_inputs(mechanism, sb, skip=("t", "d", "hash_model"), s={"as_list": True})
ss, k = form.get("s", [None]), form.get("k")
if vr_mech:  # one randomizer (p, beta, q), eps0 = ln p: the grid is over n and delta (as the CLI's)
    vr = (form["p"], form["beta"], form["q"])
    if common.call(make_params, mechanism, None, p=vr[0], beta=vr[1], q=vr[2], where=sb) is None:
        vr = None
eps0s = [None] if vr_mech else common.parse_list(sb.text_input("eps0 values", "0.5:4:4", key="eps0s"),
                                                  float, "eps0", where=sb)
deltas = common.parse_list(sb.text_input("delta values", "1e-6", key="deltas"), float, "delta", where=sb)
t_rule = "paper"
if common.takes(mechanism, "t"):
    rule = sb.selectbox("t rule", ["paper", "coco", "fixed"], key="t_rule",
                        help="paper: the mechanism's default rule (Collision t*, CoCo Theorem 7); "
                             "coco: Theorem 7's rule; fixed: one t for every row")
    if rule == "fixed":
        t_rule = f"fixed:{int(sb.number_input('t', min_value=2, value=66, key='t_fixed'))}"
    else:
        t_rule = rule
if mechanism in RANDOM_MECHANISMS:
    hash_model = common.hash_model_input(sb)
default_b = list(tables.paper_bounds(mechanism))  # the bounds of the paper columns, as the CLI
# one selection per mechanism (its default: the columns of the CLI's file for it)
chosen = sb.multiselect("bounds", list(common.BOUND_NAMES), default=default_b, key=f"bounds.{mechanism}",
                        help="; ".join(f"{b}: {bound_label(b)}" for b in common.BOUND_NAMES))
digits = int(sb.number_input("digits", min_value=1, max_value=tables.MAX_DIGITS, value=tables.DEFAULT_DIGITS,
                             key="digits", help="significant digits in the CSV, Markdown and LaTeX files: "
                                                "upper bounds round up, lower bounds down (JSON: full precision)"))
ok = common.check(bool(chosen), "choose at least one bound", where=sb)
if None in (ns, ss, eps0s, deltas) or not ok or (vr_mech and vr is None):
    st.warning("Fix the inputs marked in the sidebar to see the table.")
    st.stop()

ok = common.check(all(v <= common.MAX_N for v in ns),
                  f"n values must be at most {common.MAX_N:.0e} (docs/limits.md)", where=sb)
if not ok:
    st.warning("Fix the inputs marked in the sidebar to see the table.")
    st.stop()
if vr_mech:
    points = common.call(tables.build_grid, ns, ss, [], deltas, mechanism, vr=vr, where=sb)
else:
    points = common.call(common.grid, ns, ss, eps0s, deltas, mechanism, t_rule, k, hash_model=hash_model,
                         where=sb)
if points is None:
    st.stop()
cost = tables.estimate_seconds(points)
if not common.check(cost <= MAX_SECONDS,
                    f"this grid would take about {cost:.0f} s here (a row costs about "
                    f"{tables.SECONDS_PER_ROW:g} s, up to {tables.SECONDS_PER_DEEP_ROW:g} s at delta = 1e-300), "
                    f"over the page's budget of {MAX_SECONDS} s: use fewer points, or "
                    f"`python -m accountant table` (no time budget)", where=sb):
    st.stop()
if not common.check(len(points) <= MAX_POINTS,
                    f"the grid has {len(points)} points; at most {MAX_POINTS} here "
                    f"(use `python -m accountant table` for larger grids)", where=sb):
    st.stop()
# the chosen bounds, and every published proved bound: the rows' best published bound is their
# minimum (accountant.bounds.published), whichever bounds are shown
bounds = [b for b in common.BOUND_NAMES if b in chosen or b in published_bounds(mechanism)]
# validate each point's parameters before computing (e.g. an odd fixed t for CoCo)
bad = []
for p in points:
    try:
        p.params()
    except ValueError as exc:
        bad.append(str(exc))
if bad:
    sb.error(bad[0])
    st.warning("Fix the inputs marked in the sidebar to see the table.")
    st.stop()

rows = common.call(common.rows_with_progress, points, bounds, "Computing the table")
if rows is None:
    st.stop()
st.subheader(f"{len(rows)} rows")
if hash_model == "random":
    st.markdown(f"**Assumption: {ASSUMPTION['random']}** (hash model *random*): every row is proved under "
                "this assumption, not for a fixed hash family (the files' metadata say so).")
elif mechanism in RANDOM_MECHANISMS:
    st.caption(f"Hash model *any*: every row holds for {ASSUMPTION['any']}.")
if vr_mech:
    st.caption(f"Variation-ratio randomizer p = {common.fmt(points[0].p)}, beta = {common.fmt(points[0].beta)}, "
               f"q = {common.fmt(points[0].q)} (Wang et al., VLDB 2024): eps0 = ln p = "
               f"{common.fmt(points[0].eps0, 4)} is fixed, so the grid is over n and delta. Proved: the "
               "clone reduction with ratio p and mixing 1/q; lower: the exact divergence of one member "
               "of the class (Wang et al.'s pair). The paper's Theorem 5 does not apply ('–').")
summary = tables.saving_summary(rows)
if summary:
    st.caption("Saving of the proved eps_c over the best published proved bound (accountant.bounds."
               "published), in percent, rounded down: " +
               ", ".join(f"{k} = {common.fmt(v, digits, 'down')}" for k, v in summary.items()))
# the paper's columns (as `python -m accountant table` writes them), then each bound chosen
# beyond them; every field with the "All columns" toggle
columns = tables.default_columns(rows) + [b for b in bounds if b not in default_b and b in rows[0]]
bound_cols = [c for c in rows[0] if common.bound_column(c)[1]] if rows else []
common.table(rows, "table", help={c: common.bound_column(c)[1] for c in bound_cols},
             directions={c: common.bound_column(c)[0] for c in bound_cols}, as_text=bound_cols,
             short=columns, digits=digits)  # the files' digits and directions (tables.column_direction)

inputs = (f"p={points[0].p}, beta={points[0].beta}, q={points[0].q}" if vr_mech
          else f"s={ss}, eps0={eps0s}, t_rule={t_rule}" + (f", k={k}" if k is not None else ""))
# the hash model and its assumption in the files' metadata, as `python -m accountant table` writes them
extra = {"hash_model": hash_model, "assumption": ASSUMPTION[hash_model]} if mechanism in RANDOM_MECHANISMS else {}
meta = tables.provenance(
    f"dashboard Tables page: mechanism={mechanism}, n={ns}, {inputs}, delta={deltas}, "
    f"bounds={','.join(bounds)}", rtol=1e-9, method="float", **extra)
stem = f"bounds_{mechanism}" + ("_random_hash" if hash_model == "random" else "")
st.write("Download (the paper's columns, with provenance: in the JSON, Markdown and LaTeX "
         "files, and for the CSV in its sidecar .csv.json, as `python -m accountant table --out "
         "NAME.csv` writes it; LaTeX with its BibTeX)")
cols = st.columns(5)
cols[0].download_button("LaTeX + BibTeX (.zip)", tables.latex_zip(rows, stem, columns, digits, meta),
                        file_name=f"{stem}.zip", mime="application/zip", key="dl.zip")
for col, ext, mime, label in zip(cols[1:], (".csv", ".json", ".md"),
                                 ["text/csv", "application/json", "text/markdown"],
                                 ["CSV", "JSON", "Markdown"]):
    col.download_button(label, tables.render(rows, ext, columns if ext != ".json" else None, digits, meta),
                        file_name=f"{stem}{ext}", mime=mime, key=f"dl{ext}")
cols[4].download_button("CSV provenance (.csv.json)", tables.csv_sidecar(meta),
                        file_name=f"{stem}.csv.json", mime="application/json", key="dl.csv.json")
