"""Amplification: central eps_c against local eps0 (the proved bound, its certified lower
bound, the paper's value and the literature; Figure 2).  A variation-ratio randomizer (p, beta,
q) and an uploaded finite matrix have their eps0 fixed: their chart is over n."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402
import deployment_controls  # noqa: E402  (sampling, colluders, dummies, n >= N, reports, mix)
import mix_input  # noqa: E402  (mixed randomizers; the mix's total is the page's n)
import finite_input  # noqa: E402  (finite randomizers: catalogue or uploaded matrix)
from accountant.bounds.registry import REGISTRY
from accountant.interfaces.figure import (
    CURVE_LABELS,
    bound_color,
    bound_label,
    build_figure,
    default_curve_bounds,
    draft_indices,
    draft_worth_drawing,
    literature_epsilon,
)
from accountant import make_params
from accountant.bounds.laws.random_hash import ASSUMPTION
from accountant.interfaces import tables

common.page_header(
    "Amplification by shuffling",
    "How much privacy the shuffler adds: the central eps_c of n shuffled reports against each "
    "user's local eps0, from the mechanism's own bound and from every bound in the literature.")
common.explain()
st.caption(common.ERRATUM_CAPTION)

sb = st.sidebar
sb.header("Inputs")
mechanism = sb.selectbox("Mechanism", list(common.MENU_MECHANISMS) + list(finite_input.CHOICES),
                         format_func=lambda m: common.MECH_LABEL.get(m) or finite_input.LABELS[m], key="mechanism")
n = int(sb.number_input("n (users)", min_value=1, max_value=common.MAX_N, value=100_000, step=10_000,
                        key="n"))
delta_text = sb.text_input("delta", value="1e-6", key="delta")
delta_ok, delta = common.delta_from_text(delta_text, where=sb)
s = t = k = d = vr = fin = None
t_ok = True
hash_model = "any"
if mechanism in finite_input.CHOICES:  # a catalogue member (eps0 free) or an uploaded matrix (fixed)
    fin = finite_input.sidebar(mechanism, sb)
    t_ok = fin is not None
else:  # a named mechanism: the inputs of its options (accountant.core.params.MECHANISM_SPECS)
    form = common.mechanism_inputs(mechanism, sb)
    s, t, d, k = (form.get(o) for o in ("s", "t", "d", "k"))
    hash_model = form.get("hash_model", "any")
    t_ok = form["ok"]
    if not common.MECHANISM_SPECS[mechanism].eps0_given:  # variation-ratio: eps0 = ln p, the chart is over n
        vr = (form["p"], form["beta"], form["q"])
        vr_params = common.call(make_params, mechanism, None, p=vr[0], beta=vr[1], q=vr[2], where=sb)
        t_ok = vr_params is not None
    if hash_model == "random" and common.takes(mechanism, "s"):  # s <= (COCO_)RANDOM_HASH_MAX_S
        t_ok = common.call(make_params, mechanism, 1.0, s=s, hash_model="random", where=sb) is not None \
            and t_ok
over_n = vr is not None or mechanism == finite_input.UPLOAD_CHOICE  # eps0 fixed: the chart is over n
if over_n:
    pts = int(sb.number_input("points", min_value=2, max_value=200, value=25, key="pts",
                              help="values of n on the chart, from n/1000 to 1000 n (log-spaced)"))
    range_ok = True
    e_ref = vr_params.eps0 if vr is not None and vr_params is not None else \
        fin["randomizer"].eps0 if fin is not None else 1.0  # the library's eps0 (ln p; the matrix's)
else:
    c1, c2, c3 = sb.columns(3)
    e_min = c1.number_input("eps0 min", min_value=0.001, max_value=30.0, value=0.1, key="e_min")
    e_max = c2.number_input("eps0 max", min_value=0.001, max_value=30.0, value=5.0, key="e_max")
    pts = int(c3.number_input("points", min_value=2, max_value=200, value=25, key="pts"))
    range_ok = common.check(e_min < e_max, "eps0 min must be smaller than eps0 max", where=sb)
    e_ref = sb.number_input("eps0 for the headline numbers", min_value=0.001, max_value=30.0, value=1.0,
                            key="e_ref")

dep = deployment_controls.inputs(sb, n) if vr is None and fin is None else {}  # named mechanisms
n = mix_input.page_n(dep, n, sb)  # with a mix, n is the groups' total (said in the sidebar)
if not delta_ok or not t_ok or not range_ok:
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()
if dep is None:
    st.warning("Fix the deployment inputs marked in the sidebar to see the results.")
    st.stop()

label = (finite_input.LABELS[mechanism] + ": " + fin["label"]) if fin is not None else \
    common.MECH_LABEL[mechanism] + (f", k = {k:,}" if k is not None else "") \
    + (", random hash" if hash_model == "random" else "") \
    + ("" if vr is None else f": p = {common.fmt(vr[0])}, beta = {common.fmt(vr[1])}, "
       f"q = {common.fmt(vr[0] if vr[2] is None else vr[2])}")


# ---------------------------------------------------------------- headline point
def scale_ticks(top: float) -> list:
    """Tick values of the bracket bar's axis: 0 and 1-2-5 multiples up to ``top`` (3 to 6 ticks)."""
    if not top > 0:
        return [0.0]
    exp = math.floor(math.log10(top))
    for m in (5, 2, 1):
        step = m * 10.0 ** (exp - 1)
        if top / step >= 3:
            break
    ticks, v = [0.0], step
    while v <= top * (1 + 1e-12) and len(ticks) < 12:
        ticks.append(v)
        v += step
    while len(ticks) > 7:  # at most 6 labelled steps
        ticks = ticks[::2]
    return ticks


def bracket_html(lower: float, upper: float, paper, what: str) -> str:
    """The interval [lower, upper] drawn to scale on [0, largest value shown], with an axis
    (ticks and numbers in nats) under it; ``what`` names the interval (its assumption)."""
    top = max(v for v in (upper, paper, lower) if v is not None) * 1.08
    x = lambda v: 100.0 * v / top  # noqa: E731
    bar = (f'<div style="position:relative;height:18px;background:#eef2f7;border-radius:3px;margin:4px 0 0 0">'
           f'<div title="{what}" style="position:absolute;'
           f'left:{x(lower):.3f}%;width:{max(x(upper) - x(lower), 0.4):.3f}%;height:100%;'
           f'background:{bound_color("proved")};opacity:.55"></div>')
    if paper is not None:
        bar += (f'<div title="paper\'s Theorem 5 (not proved)" style="position:absolute;left:{x(paper):.3f}%;'
                f'width:2px;height:100%;background:{bound_color("paper")}"></div>')
    bar += "</div>"
    # the scale: tick marks and their values (nats), so the bar's length can be read
    axis = '<div class="bracket-scale" style="position:relative;height:30px;border-top:1px solid #555;margin:0 0 8px 0">'
    for v in scale_ticks(top):
        axis += (f'<div style="position:absolute;left:{x(v):.3f}%;top:0;width:1px;height:5px;background:#555"></div>'
                 f'<div class="bracket-tick" style="position:absolute;left:{x(v):.3f}%;top:6px;'
                 f'transform:translateX(-50%);font-size:11px;color:#444">{common.fmt(v, 3)}</div>')
    axis += ('<div style="position:absolute;left:0;top:19px;font-size:11px;color:#444">'
             'scale: eps_c (nats)</div></div>')
    return bar + axis


def zero_lower_note(delta) -> str:
    """Why a certified lower bound is exactly 0 (it is computed, not rounded)."""
    return (f"exactly 0: the named datasets' divergence at eps = 0 (their total variation distance) is "
            f"at most delta = {common.fmt(delta)}, so they certify no eps_c > 0 at this delta; a larger "
            "delta or smaller n gives a positive lower bound")


def interval_line(lo: float, up: float, head_text: str, tail: str) -> str:
    """'head_text [lo, up], width w (p% of the lower end); tail.' with directed rounding."""
    width = up - lo
    rel = (f" ({common.fmt(100 * width / lo, 2, 'up')}% of the lower end)" if lo > 0 else "")
    return (f"**{head_text} [{common.fmt(lo, 6, 'down')}, {common.fmt(up, 6, 'up')}]**, "
            f"width {common.fmt(width, 2, 'up')}{rel}" + (f"; {tail}" if tail else "") + ".")


def show_headline() -> None:
    head = common.call(finite_input.epsilon_result, finite_input.randomizer(fin, float(e_ref)), n, delta) \
        if fin is not None else \
        common.call(common.epsilon_result, mechanism, n, float(e_ref), delta, s, t, k, d, hash_model, vr)
    if head is None:
        return
    up, lo, paper = head["epsilon"], head["lower_epsilon"], head["paper_epsilon"]
    worst = head["worst_hash_epsilon"]
    hashed_any = hash_model == "any" and mechanism in REGISTRY["lower-worst-hash"].applies_to
    st.subheader(f"At eps0 = {common.fmt(float(e_ref))} ({label}, n = {n:,})")
    if hash_model == "random":
        st.markdown(f"**Assumption: {ASSUMPTION['random']}** (hash model *random*): the proved "
                    "number holds under this assumption, not for a fixed hash family.")
    main, side = st.columns([3, 2])
    random_note = f" under the assumption: {ASSUMPTION['random']}" if hash_model == "random" else ""
    main.metric("eps_c, proved upper bound" + (" (random hash)" if hash_model == "random" else ""),
                common.fmt(up, 6, "up"),
                help="smallest upper bound proved for "
                     + ("every randomizer with these (p, beta, q) " if vr is not None
                        else "this mechanism as implemented ") +
                     f"({bound_label(head['bound'])}){random_note}: the number to cite")
    amp = common.ratio(float(e_ref), up)
    lines = []
    if hashed_any:
        lines.append(f"worst-hash lower bound **{common.fmt(worst, 6, 'down')}**: the eps_c of one fixed "
                     "clean hash (the worst family), so no bound proved for every hash family can be "
                     "smaller" if worst is not None
                     else f"worst-hash lower bound: not available ({head['worst_hash_reason']})")
    if lo is not None:
        value = (common.fmt(lo, 6, 'down') if lo > 0 else "0") + ("" if lo > 0 else f" ({zero_lower_note(delta)})")
        lines.append(("random-hash lower bound" if hashed_any else "certified lower bound")
                     + f" **{value}**: "
                     + ("when each report's hash is a uniformly random function, " if hashed_any else "")
                     + "the true eps_c is at "
                     + ("least this (exact divergence of the real mechanism's shuffled outputs on " if vr is None
                        else "least this for some randomizer with these (p, beta, q) (exact divergence of "
                             "the shuffled outputs of the ")
                     + f"{head['lower_dataset']}"
                     + (f", {head['lower_hash_model']})" if head.get("lower_hash_model") else ")"))
    else:
        lines.append(f"certified lower bound: not available ({head['lower_reason']})")
    if head["published_name"] is not None and head["published_name"] != head["bound"]:
        pub = head["published_epsilon"]
        lines.append(f"best published proved bound: {bound_label(head['published_name'])} "
                     f"**{common.fmt(pub, 6, 'up')}** (the proved eps_c is "
                     f"{common.fmt(100 * (pub - up) / pub, 4, 'down')}% smaller)")
    if head["t"] is not None and common.takes(mechanism, "t"):
        lines.append(f"t used: {head['t']:,}")
    lines.append(f"amplification eps0 / eps_c: {amp}")
    side.markdown("\n".join(f"* {x}" for x in lines))
    # the bracket: both ends under one assumption
    if hashed_any:
        if worst is not None:
            st.markdown(interval_line(
                worst, up, "Every hash family: the eps_c of the worst family lies in",
                "lower end: the worst-hash lower bound (one fixed clean hash), upper end: the proved bound "
                "for every hash family"))
            st.markdown(bracket_html(worst, up, paper, "worst-hash lower bound .. proved upper bound"),
                        unsafe_allow_html=True)
    elif lo is not None and lo > 0:
        head_text = ("Uniformly random hash: the true eps_c lies in" if hash_model == "random"
                     else "The worst case over every randomizer with these (p, beta, q) lies in" if vr is not None
                     else "The true eps_c lies in")
        tail = (f"both ends under the assumption: {ASSUMPTION['random']}" if hash_model == "random" else "")
        st.markdown(interval_line(lo, up, head_text, tail))
        st.markdown(bracket_html(lo, up, paper, "certified lower bound .. proved upper bound"),
                    unsafe_allow_html=True)
    if paper is not None:
        st.caption(f"The paper's Theorem 5 value is {common.fmt(paper, 6, 'up')}: not a proved "
                   f"bound ({head['paper_caveat']}).")


BRACKET_COLUMN = ("bracket width %", "up", "(proved - lower) / lower, in percent, rounded up.")


def bracket_percent(row: dict):
    """The bracket's width in percent, from the row's proved / lower ratio (None without both)."""
    ratio = row.get("proved_over_lower")
    return 100.0 * (ratio - 1.0) if ratio else None


FINITE_N_CAPTION = ("Uploaded matrix: its eps0 is fixed by the matrix, so the chart is over n (a chart "
                    "over eps0 would be one point). Proved: the smallest of the matrix's privacy blanket "
                    "and the bounds proved for every eps0-LDP randomizer (clone, EFMRTT19); lower: the "
                    "exact divergence of the matrix's shuffled reports on the datasets named above.")


def variation_ratio_curves() -> None:
    """The proved bound and the certified lower bound against n at the one (p, beta, q), or of
    the one uploaded matrix."""
    if fin is not None:
        st.caption(FINITE_N_CAPTION)
    else:
        st.caption("Variation-ratio (Wang et al., VLDB 2024): p fixes eps0 = ln p, so the chart is over n "
                   "(a chart over eps0 would be one point). Proved: the clone reduction with ratio p and "
                   "mixing 1/q (FMT21), for every randomizer with these (p, beta, q); lower: the exact "
                   "divergence of one member of the class (Wang et al.'s three-output pair). The paper's "
                   "Theorem 5 and the blanket bounds need a concrete randomizer: they do not apply.")
    lo_n, hi_n = max(2, n // 1000), min(common.MAX_N, n * 1000)
    ns = sorted({int(round(lo_n * (hi_n / lo_n) ** (i / (pts - 1)))) for i in range(pts)} | {n})
    points = common.call(tables.finite_grid, ns, [delta], [fin["randomizer"]]) if fin is not None \
        else common.call(tables.build_grid, ns, [None], [], [delta], mechanism, vr=vr)
    rows = common.call(common.rows_with_progress, points,
                       finite_input.CURVE_BOUNDS if fin is not None else ("clone", "lower"),
                       "Computing the curves", rtol=common.CURVE_RTOL) if points is not None else None
    if rows is None:
        return
    xs = [r["n"] for r in rows]
    lower, proved = [r["lower_epsilon"] for r in rows], [r["proved_epsilon"] for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=xs, y=lower, mode="lines", name=CURVE_LABELS["lower"],
                             line=dict(width=1, color=bound_color("lower"))))
    fig.add_trace(go.Scatter(x=xs, y=proved, mode="lines", name=CURVE_LABELS["proved"], fill="tonexty",
                             fillcolor="rgba(31,119,180,0.22)",
                             line=dict(width=3.5, color=bound_color("proved"))))
    fig.update_layout(title=f"Central eps_c against n ({label}, delta = {common.fmt(delta)}; lower is better)",
                      xaxis=common.log_axis("users n", xs),
                      yaxis=common.log_axis("central eps_c (nats)", [v for v in lower + proved if v]),
                      legend_title="bound", template="plotly_white", height=460)
    st.plotly_chart(fig, key="eps_c_n_chart")
    st.subheader("Numbers")
    for r in rows:
        r["bracket_percent"] = bracket_percent(r)
    table, config = common.readable_table(rows, {
        "n": ("n", None, "users."),
        "proved_epsilon": ("proved eps_c", "up", "proved upper bound on the central eps_c (nats), rounded up: "
                                                 + ("the smallest proved bound of the matrix." if fin is not None
                                                    else "the clone reduction with ratio p and mixing 1/q.")),
        "lower_epsilon": ("lower eps_c", "down", "certified lower bound on the "
                                                 + ("matrix's eps_c" if fin is not None else "worst case of the class")
                                                 + " (nats), rounded down."),
        "bracket_percent": BRACKET_COLUMN})
    st.dataframe(table, hide_index=True, key="numbers", column_config=config)
    common.download_csv([{k: v for k, v in r.items() if k != "reasons"} for r in rows],
                        f"amplification_{'finite' if fin is not None else 'variation-ratio'}_n{n}.csv", key="dl_amp")


def costly_count(names) -> int:
    """The bounds' count for figure.draft_worth_drawing: each pair/exact-engine bound, and all
    the closed forms together as one (each takes about a millisecond; the cost model was
    fitted with one closed form among five bounds)."""
    costly = sum(1 for b in names if REGISTRY[b].engine != "closed-form")
    return costly + (1 if costly < len(set(names)) else 0)


curve_mechanism = "finite" if fin is not None else mechanism  # the registry's name
if not over_n:
    # the chart's points, built first: their rows start on the worker processes (the first
    # draft, then the points in between) while the headline is computed here
    eps0s = [e_min + (e_max - e_min) * i / (pts - 1) for i in range(pts)]
    t_rule = "paper" if t is None else f"fixed:{t}"
    points = common.call(finite_input.grid_over_eps0, fin, n, eps0s, delta) if fin is not None else \
        common.call(common.grid, [n], [s], eps0s, [delta], mechanism, t_rule, k, d, hash_model)
    cost = 0.0 if points is None else tables.estimate_seconds(points, base=0.05)
    if points is not None and not common.check(
            cost <= common.CHART_MAX_SECONDS,
            f"this chart would take about {cost:.0f} s here ({len(points)} points at delta = {delta:g}), "
            f"over the page's budget of {common.CHART_MAX_SECONDS} s: use fewer points or a larger delta, "
            f"or `python -m accountant table` / `epsilon` (no time budget)", where=sb):
        st.stop()
    base = default_curve_bounds(curve_mechanism)
    others = [b for b in common.BOUND_NAMES if curve_mechanism in REGISTRY[b].applies_to]
    chosen = set(base) | {b for b in st.session_state.get("extra_bounds", []) if b in others}
    if points is not None:
        # a first draft only where the curves are slow enough for one (figure.draft_worth_drawing)
        draft = [points[i] for i in draft_indices(len(points))] \
            if draft_worth_drawing(n, len(points), costly_count(chosen)) else list(points)
        common.prefetch_rows([draft, points] if len(draft) < len(points) else [points],
                             tuple(b for b in common.BOUND_NAMES if b in chosen), common.CURVE_RTOL)

head_box = st.container()
with head_box:
    show_headline()
    deployment_controls.show(dep, dep and common.call(make_params, mechanism, float(e_ref), s=s, t=t, k=k, d=d,
                                                      hash_model=hash_model), n, delta)
if over_n:
    variation_ratio_curves()
    st.stop()

# ---------------------------------------------------------------- curves
if points is None:
    st.stop()
extra = st.multiselect(
    "More bounds on the chart", others, default=[], key="extra_bounds", format_func=bound_label,
    help="Every bound of the registry that applies to this mechanism; the chart shows by default the "
         "proved upper bound, the certified lower bound, the paper's Theorem 5 value and the best "
         "previously published proved bound. Exact-engine and pair bounds take 0.05-0.2 s a point.")
curve_bounds = tuple(b for b in common.BOUND_NAMES if b in set(base) | set(extra))


def literature_name(rows: list) -> str:
    names = sorted({r["best_literature"] for r in rows if literature_epsilon(r) is not None})
    return ", ".join(bound_label(b) for b in names)


def draw(rows: list, eps_slot, ratio_slot, stage: str = "") -> None:
    xs = [r["eps0"] for r in rows]
    fig = go.Figure()
    lower = [r["lower_epsilon"] for r in rows]
    proved = [r["proved_epsilon"] for r in rows]
    ys_all = [v for v in lower + proved if v]
    if any(v is not None for v in lower):
        fig.add_trace(go.Scatter(x=xs, y=lower, mode="lines", name=CURVE_LABELS["lower"],
                                 line=dict(width=1, color=bound_color("lower"))))
    fig.add_trace(go.Scatter(
        x=xs, y=proved, mode="lines", name=CURVE_LABELS["proved"],
        fill="tonexty" if any(v is not None for v in lower) else None,
        fillcolor="rgba(31,119,180,0.22)", line=dict(width=3.5, color=bound_color("proved")),
        hovertemplate="eps0 %{x}<br>proved eps_c %{y}<extra></extra>"))
    paper = [r.get("paper_epsilon") for r in rows]
    if any(v is not None for v in paper):
        # drawn over the proved curve, dashed with markers: visible where the two coincide
        fig.add_trace(go.Scatter(x=xs, y=paper, mode="lines+markers", name=CURVE_LABELS["paper"],
                                 line=dict(width=2, dash="dash", color=bound_color("paper")),
                                 marker=dict(symbol="x-thin", size=7, line=dict(width=1.5,
                                                                                color=bound_color("paper")))))
        ys_all += [v for v in paper if v]
    lit = [literature_epsilon(r) for r in rows]
    if any(v is not None for v in lit):
        fig.add_trace(go.Scatter(x=xs, y=lit, mode="lines",
                                 name=f"{CURVE_LABELS['literature']} ({literature_name(rows)})",
                                 line=dict(width=1.5, color=bound_color("literature"))))
        ys_all += [v for v in lit if v]
    for b in extra:
        ys = [r.get(b) for r in rows]
        if any(v is not None for v in ys):
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=bound_label(b),
                                     line=dict(width=1.2, color=bound_color(b))))
            ys_all += [v for v in ys if v]
    fig.update_layout(title=f"Central eps_c against local eps0 ({label}, n = {n:,}, "
                            f"delta = {common.fmt(delta)}; lower is better)",
                      xaxis_title="local budget eps0 (nats)",
                      yaxis=common.log_axis("central eps_c (nats)", ys_all),
                      legend_title="bound", template="plotly_white", height=460)
    eps_slot.plotly_chart(fig, key=f"eps_c_chart{stage}")
    if stage == "_draft":  # the draft shows the answer's chart only: one chart less for the
        return             # browser to lay out while the points in between are computed
    published = {r["best_literature"] for r in rows if literature_epsilon(r) is not None}
    shown = [b for b in curve_bounds if (b in extra or b in published or b in ("blanket", "lower", "paper")
                                         or b == "clone") and any(r.get(b) is not None for r in rows)]
    fig2 = build_figure(rows, shown)
    fig2.update_layout(width=None, height=560, legend_title="bound",
                       legend=dict(orientation="h", y=-0.22, x=0),
                       title=fig2.layout.title.text.replace("delta", "amplification ratio; delta"))
    fig2.update_xaxes(title_text="local budget eps0 (nats)")
    fig2.update_yaxes(title_text="log2(eps0 / eps_c) (bits)")
    ratio_slot.plotly_chart(fig2, key=f"ratio_chart{stage}")


progress_slot, eps_slot, note_slot, ratio_slot = st.empty(), st.empty(), st.empty(), st.empty()
if len(draft) < len(points) and not common.rows_cached(points, curve_bounds, common.CURVE_RTOL):
    # a first draft over the whole range (every 6th eps0), then the points in between;
    # each point is computed once (the rows are cached per point)
    with progress_slot.container():
        draft_rows = common.call(common.rows_with_progress, draft, curve_bounds, "Computing a first draft",
                                 rtol=common.CURVE_RTOL)
    if draft_rows is not None:
        draw(draft_rows, eps_slot, ratio_slot, "_draft")
        note_slot.caption(f"First draft: {len(draft)} of {len(points)} values of eps0 (n = {n:,}); "
                          "the points in between are being computed.")
with progress_slot.container():
    rows = common.call(common.rows_with_progress, points, curve_bounds, "Computing the curves",
                       rtol=common.CURVE_RTOL)
if rows is None:
    st.stop()
draw(rows, eps_slot, ratio_slot)
note_slot.caption(f"{len(curve_bounds)} bounds computed at {len(rows)} values of eps0 (n = {n:,}); "
                  "the shaded band runs from the certified lower bound"
                  + (" for a uniformly random hash" if mechanism in REGISTRY["lower-worst-hash"].applies_to
                     and hash_model == "any" else "") + " to the proved upper bound.")

# ---------------------------------------------------------------- applicability
st.subheader("Bounds that do not apply")
na = []
for b in curve_bounds:
    reasons = sorted({r["reasons"][b] for r in rows if b in r["reasons"]})
    if reasons:
        count = sum(1 for r in rows if b in r["reasons"])
        na.append({"bound": bound_label(b), "not applicable at": f"{count} of {len(rows)} eps0 values",
                   "reason": reasons[0] if len(reasons) == 1 else reasons[0] + " (and others)"})
if na:
    st.dataframe(na, hide_index=True, key="na_table")
else:
    st.write("Every bound applies on this range.")

# ---------------------------------------------------------------- numbers
st.subheader("Numbers")
for r in rows:
    r["literature_epsilon"] = literature_epsilon(r)
    r["literature_name"] = bound_label(r["best_literature"]) if r["literature_epsilon"] is not None else None
    r["bracket_percent"] = bracket_percent(r)
# Collision, CoCo, OLH under "every hash family": the chart's lower curve is for a uniformly random hash
lower_of = (" for a uniformly random hash" if mechanism in REGISTRY["lower-worst-hash"].applies_to
            and hash_model == "any" else "")
columns = {
    "eps0": ("eps0", None, "local budget of each report (nats)."),
    **({"t": ("t", None, "hash range used at this eps0 (buckets).")} if common.takes(mechanism, "t")
       else {}),
    "proved_epsilon": ("proved eps_c", "up", "smallest proved upper bound on the central eps_c (nats), "
                                             "rounded up: the number to cite."),
    "lower_epsilon": ("lower eps_c" + (" (random hash)" if lower_of else ""), "down",
                      f"certified lower bound on the true eps_c{lower_of} (nats), rounded down; "
                      f"'0 (no eps > 0 certified)': {zero_lower_note(delta)}."),
    "bracket_percent": (BRACKET_COLUMN[0], BRACKET_COLUMN[1], BRACKET_COLUMN[2] + (
        f" The lower end is{lower_of}: the bracket for every hash family is in the headline above."
        if lower_of else "")),
    "paper_epsilon": ("paper (not proved)", "up", "the paper's Theorem 5 value (nats): not a proved bound."),
    "literature_epsilon": ("best published", "up", "best previously published proved upper bound (nats)."),
    "literature_name": ("published bound", "text", "which published bound gives that value."),
}
all_cols = st.toggle("All columns (every bound's eps_c and the amplification ratios)", value=False,
                     key="all_columns")
if all_cols:
    for key in list(curve_bounds) + [f"log2_ratio[{b}]" for b in curve_bounds] + ["saving_percent"]:
        direction, text = common.bound_column(key)
        title = bound_label(key) if key in curve_bounds else key.replace("log2_ratio", "log2 ratio ")
        columns[key] = (title, direction, text)
# a lower bound computed as exactly 0 (not rounded to it) says so in its cell
shown = [{**r, "lower_epsilon": "0 (no eps > 0 certified)", "bracket_percent": "unbounded (lower = 0)"}
         if r["lower_epsilon"] == 0.0 else r for r in rows]
table, config = common.readable_table(shown, columns)
st.dataframe(table, hide_index=True, key="numbers", column_config=config)
common.download_csv([{k: v for k, v in r.items() if k != "reasons"} for r in rows],
                    f"amplification_{mechanism}_n{n}.csv", key="dl_amp")
