"""Utility: collision rates (Figure 4) and exact MSE (Figure 5) against t; baselines vs eps0."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402
from plotly.subplots import make_subplots  # noqa: E402

import common  # noqa: E402
from mechanisms import analysis as errors
from mechanisms.analysis.errors import hashed_errors  # noqa: E402
from mechanisms.baselines import BASELINES, default_analytic_mse  # noqa: E402

common.page_header(
    "Utility of Collision and CoCo",
    "How the hash range t trades collisions against noise: collision rates and the exact "
    "mean-squared errors of the three estimators, and how the baselines compare across eps0.")
common.explain()

sb = st.sidebar
sb.header("Inputs")
d = int(sb.number_input("d (coordinates)", min_value=1, max_value=10**7, value=64, key="d"))
s = int(sb.number_input("s (non-zeros per user)", min_value=1, max_value=10**6, value=4, key="s"))
s_ok = common.check(s <= d, f"s must satisfy 1 <= s <= d = {d}, got s = {s}", where=sb)
eps0 = float(sb.number_input("eps0", min_value=0.01, max_value=20.0, value=1.0, key="eps0"))
n = int(sb.number_input("n (users)", min_value=1, max_value=10**10, value=10_000, step=1000, key="n"))
auto_t = sb.checkbox("automatic t range", value=True, key="auto_t",
                     help="from s + 1 to three times the largest error-optimal t (at least 200)")
if auto_t and s_ok:
    opts = [common.call(common.optimal_t, m, e, d, s, eps0, where=sb)
            for m in ("collision", "coco") for e in ("mean", "nonmissing")]
    t_min, t_max = s + 1, max([200] + [3 * o[0] for o in opts if o is not None])
else:
    c1, c2 = sb.columns(2)
    t_min = int(c1.number_input("t min", min_value=2, max_value=2**30, value=s + 1, key="t_min"))
    t_max = int(c2.number_input("t max", min_value=3, max_value=2**30, value=max(8 * s + 64, 200),
                                key="t_max"))
t_ok = common.check(s + 1 <= t_min < t_max, f"t range must satisfy s + 1 = {s + 1} <= t min < t max",
                    where=sb)
t_ok = t_ok and common.check(t_max - t_min <= 200_000, "t range too wide (at most 200,000 values)",
                             where=sb)
if not (s_ok and t_ok):
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()

t_col = np.arange(t_min, t_max + 1)
coco_lo = max(t_min, 2 * s + 2)
t_coco = np.arange(coco_lo + coco_lo % 2, t_max + 1, 2)


@st.cache_data(show_spinner=False)
def curves(n, d, s, eps0, t_min, t_max):
    tc = np.arange(t_min, t_max + 1)
    lo = max(t_min, 2 * s + 2)
    tk = np.arange(lo + lo % 2, t_max + 1, 2)
    out = {"collision": {"t": tc}, "coco": {"t": tk}}
    pt, pf, po = errors.collision_rates(s, eps0, tc)
    m = errors.collision_mse(n, d, s, eps0, tc)
    out["collision"].update(Pt=pt, Pf=pf, Po=po, mean=m.mean, nonmissing=m.nonmissing, item=m.item)
    if tk.size:
        r = errors.coco_rates(s, eps0, tk)
        m = errors.coco_mse(n, d, s, eps0, tk)
        out["coco"].update(Pt=r.Pt, Pf=r.Pf, Po=r.Po, P_ow=r.P_ow, mean=m.mean,
                           nonmissing=m.nonmissing, item=m.item)
    return {k: {kk: np.broadcast_to(np.asarray(vv, dtype=float), v["t"].shape) for kk, vv in v.items()}
            for k, v in out.items()}


cv = common.call(curves, n, d, s, eps0, t_min, t_max)
if cv is None:
    st.stop()

COL = {"collision": "#1f77b4", "coco": "#d62728"}
DASH = {"Pt": "solid", "Po": "dash", "Pf": "dot", "mean": "solid", "nonmissing": "dash", "item": "dot"}
NAME = {"Pt": "Pt (true)", "Po": "Po (opposite)", "Pf": "Pf (false)", "mean": "mean",
        "nonmissing": "frequency (non-missing)", "item": "item"}

# ---------------------------------------------------------------- Figure 4
st.subheader("Collision rates against t (Figure 4)")
fig = go.Figure()
for mech in ("collision", "coco"):
    c = cv[mech]
    if not c["t"].size:
        continue
    for k in ("Pt", "Po", "Pf"):
        fig.add_trace(go.Scatter(x=c["t"], y=c[k], mode="lines",
                                 name=f"{common.MECH_LABEL[mech]}: {NAME[k]}",
                                 line=dict(color=COL[mech], dash=DASH[k])))
fig.update_layout(xaxis=common.log_axis("hash range t (buckets)"),
                  yaxis=common.log_axis("probability (per report)"), template="plotly_white",
                  height=420, legend_title="mechanism: rate", margin=dict(t=30))
st.plotly_chart(fig, key="rates_chart")
if not cv["coco"]["t"].size:
    st.info(f"CoCo needs an even t >= 2s + 2 = {2 * s + 2}; widen the t range to see it.")

# ---------------------------------------------------------------- Figure 5
st.subheader(f"Exact MSE against t (Figure 5; n = {n:,}, sums over coordinates)")
marks = []
for mech in ("collision", "coco"):
    formulas = hashed_errors(mech)  # its exact MSE and the paper's t (mechanisms.analysis.errors)
    paper = common.call(formulas.default_t, s, eps0)
    for est in ("mean", "nonmissing", "item"):
        opt = common.call(common.optimal_t, mech, est, d, s, eps0)
        if opt is None or paper is None:
            continue
        marks.append({"mechanism": mech, "estimator": est, "paper_t": paper,
                      "mse_at_paper_t": float(getattr(formulas.mse(n, d, s, eps0, paper), est)),
                      "optimal_t": opt[0],
                      "mse_at_optimal_t": float(getattr(formulas.mse(n, d, s, eps0, opt[0]), est))})
fig = make_subplots(rows=1, cols=3, subplot_titles=[NAME[e] + " estimator" for e in ("mean", "nonmissing", "item")])
for j, est in enumerate(("mean", "nonmissing", "item")):
    for i, mech in enumerate(("collision", "coco")):
        c = cv[mech]
        if not c["t"].size:
            continue
        fig.add_trace(go.Scatter(x=c["t"], y=c[est], mode="lines", name=common.MECH_LABEL[mech],
                                 legendgroup=mech, showlegend=j == 0,
                                 line=dict(color=COL[mech])), row=1, col=j + 1)
        for mk in marks:
            if mk["mechanism"] == mech and mk["estimator"] == est:
                fig.add_trace(go.Scatter(x=[mk["paper_t"]], y=[mk["mse_at_paper_t"]], mode="markers",
                                         name="paper's t", legendgroup="paper",
                                         showlegend=(j == 0 and i == 0),
                                         marker=dict(color=COL[mech], symbol="circle-open", size=11,
                                                     line=dict(width=2))), row=1, col=j + 1)
                fig.add_trace(go.Scatter(x=[mk["optimal_t"]], y=[mk["mse_at_optimal_t"]],
                                         mode="markers", name="numerical optimum",
                                         legendgroup="opt", showlegend=(j == 0 and i == 0),
                                         marker=dict(color=COL[mech], symbol="x", size=10)),
                              row=1, col=j + 1)
    fig.update_xaxes(**common.log_axis("hash range t (buckets)"), row=1, col=j + 1)
    fig.update_yaxes(**common.log_axis("MSE (sum over coordinates)" if j == 0 else ""), row=1, col=j + 1)
fig.update_layout(template="plotly_white", height=420, legend_title="mechanism / marker",
                  margin=dict(t=50))
st.plotly_chart(fig, key="mse_chart")
st.caption("Markers: open circle = the paper's t (Collision t* = floor(s e^eps0 + 2s - 1), CoCo "
           "Theorem 7); cross = the numerical optimum (may lie outside the plotted t range).")
common.table(marks, "marks_table")
common.download_csv(marks, "utility_optimal_t.csv", "Download paper/optimal t (CSV)", key="dl_marks")
curve_rows = []
for mech in ("collision", "coco"):
    c = cv[mech]
    for i in range(c["t"].size):
        curve_rows.append({"mechanism": mech, "n": n, "d": d, "s": s, "eps0": eps0,
                           **{k: float(v[i]) for k, v in c.items()}})
common.download_csv(curve_rows, "utility_curves.csv", "Download rates and MSE curves (CSV)",
                    key="dl_curves")

# ---------------------------------------------------------------- baselines
st.subheader("Errors against eps0, with the baselines")
est_b = st.radio("estimator", ["mean", "nonmissing", "item"], horizontal=True, key="est_b",
                 format_func=lambda e: NAME[e])
eps_grid = [round(x, 3) for x in np.linspace(0.5, 6.0, 23)]


@st.cache_data(show_spinner=False)
def baseline_rows(n, d, s, eps_grid):
    rows, notes = [], {}
    baselines = BASELINES if d <= common.MAX_BASELINE_D else ()
    if not baselines:  # cost model (accountant.core.limits.MAX_BASELINE_D)
        for b in BASELINES:
            notes[b] = (f"not drawn for d > {common.MAX_BASELINE_D:,}: the baselines' analytic "
                        "errors are computed coordinate by coordinate (about 20 s per eps0 at "
                        "d = 1e7); lower d to see them")
    for e in eps_grid:
        for mech in ("collision", "coco"):
            try:
                a = errors.analytic_errors(mech, n, d, s, e)
            except ValueError as exc:
                notes[mech] = str(exc)
                continue
            rows.append({"mechanism": mech, "eps0": e, "t": a["t"], "mse_mean": a["mse_mean"],
                         "mse_nonmissing": a["mse_nonmissing"], "mse_item": a["mse_item"]})
        for b in baselines:
            try:
                a = default_analytic_mse(b, n, d, s, e)
            except (ValueError, NotImplementedError) as exc:
                notes[b] = str(exc)
                continue
            rows.append({"mechanism": b, "eps0": e, "t": None, **{k: float(a[k]) for k in
                                                                   ("mse_mean", "mse_nonmissing",
                                                                    "mse_item")}})
    return rows, notes


brows, notes = baseline_rows(n, d, s, eps_grid)
fig = go.Figure()
for mech in ["collision", "coco", *BASELINES]:
    pts = [r for r in brows if r["mechanism"] == mech and np.isfinite(r[f"mse_{est_b}"])]
    if not pts:
        notes.setdefault(mech, f"no analytic {NAME[est_b]} error (not defined for this mechanism)")
        continue
    fig.add_trace(go.Scatter(x=[r["eps0"] for r in pts], y=[r[f"mse_{est_b}"] for r in pts],
                             mode="lines+markers", name=common.MECH_LABEL.get(mech, mech),
                             line=dict(width=1.5 if mech in BASELINES else 3)))
fig.update_layout(xaxis_title="local budget eps0 (nats)",
                  yaxis=common.log_axis(f"MSE of {NAME[est_b]} (sum over coordinates)"),
                  template="plotly_white", height=420,
                  legend_title="mechanism", margin=dict(t=30))
st.plotly_chart(fig, key="baselines_chart")
st.caption("Collision and CoCo at the paper's t; baselines with their analytic MSE on the default "
           "data (every key held by a fraction s/d of the users, half of them with value +1).")
for k, v in notes.items():
    st.caption(f"{k}: {v}")
common.download_csv(brows, "utility_baselines.csv", "Download baseline errors (CSV)", key="dl_base")

# ---------------------------------------------------------------- one central guarantee
st.subheader("At the same central guarantee (shuffled reports)")
st.caption("Each mechanism at the largest local eps0 whose proved eps_c meets the central (eps, delta) "
           "for these n users (mechanisms.planning.central: the very number `python -m accountant epsilon` "
           "prints), by its own proved bound where the registry has one and by the generic eps0-LDP bound "
           "otherwise (named in the table), and its exact mean-estimation error there; beside it the "
           "generic bound's eps0 for every mechanism, and the paper's rule of thumb eps0 = eps "
           "sqrt(n / ln(1/delta)) with the eps_c proved at it (not a bound).")
c1, c2, c3 = st.columns(3)
central_eps = float(c1.number_input("central eps", min_value=0.01, max_value=30.0, value=1.0, key="central_eps"))
central_delta = float(c2.number_input("delta", min_value=1e-15, max_value=0.5, value=1e-6, format="%.1e",
                                      key="central_delta"))
central_on = c3.toggle("compute (one inverse per mechanism)", value=False, key="central_on")


@st.cache_data(show_spinner=False, max_entries=64)
def central_rows(n, d, s, eps, delta):
    from mechanisms.planning.central import central_comparison

    return [r.to_dict() for r in central_comparison(n, d, s, eps, delta)]


if central_on:
    with st.spinner("searching each mechanism's eps0 on its proved bound"):
        crow = common.call(central_rows, n, d, s, central_eps, central_delta)
    if crow is not None:
        shown = [{"mechanism": common.MECH_LABEL.get(r["mechanism"], r["mechanism"]), "eps0": r["eps0"],
                  "eps_c (proved)": r["epsilon"],
                  "bound": r["bound"] + ("" if r["own"] else " (generic eps0-LDP)"),
                  "MSE mean": r["mse_mean"], "generic eps0": r["generic_eps0"],
                  "MSE mean at generic eps0": r["generic_mse_mean"], "rule eps0": r["rule_eps0"],
                  "eps_c at rule eps0": r["rule_epsilon"]} for r in crow]
        common.table(shown, "central_table", as_text=("eps0", "eps_c (proved)", "generic eps0"),
                     directions={"eps0": "down", "eps_c (proved)": "up", "generic eps0": "down",
                                 "MSE mean": "up", "MSE mean at generic eps0": "up",
                                 "eps_c at rule eps0": "up"})
        fig = go.Figure()
        named = [r for r in crow if r["mse_mean"] is not None]
        fig.add_trace(go.Bar(x=[r["mechanism"] for r in named], y=[r["mse_mean"] for r in named],
                             name="at its own proved eps0"))
        fig.add_trace(go.Bar(x=[r["mechanism"] for r in named], y=[r["generic_mse_mean"] for r in named],
                             name="at the generic bound's eps0"))
        fig.update_layout(barmode="group", yaxis=common.log_axis("MSE of the mean (sum over coordinates)"),
                          template="plotly_white", height=380, margin=dict(t=30),
                          title=f"central eps = {central_eps:g}, delta = {central_delta:g}, n = {n:,}")
        st.plotly_chart(fig, key="central_chart")
        common.download_csv(crow, "utility_central.csv", "Download the comparison (CSV)", key="dl_central")
        for note in sorted({r["note"] for r in crow if r["note"]}):
            st.caption(note)

#: the central eps of the sweep, as multiples of the chosen one (inside the widget's range)
SWEEP = (0.25, 0.5, 1.0, 2.0, 4.0)
sweep_on = st.toggle(f"error against central eps ({len(SWEEP)} targets around it, one inverse per "
                     "mechanism and target)", value=False, key="central_sweep")
if sweep_on:
    targets = sorted({min(30.0, max(0.01, central_eps * m)) for m in SWEEP})
    with st.spinner("searching each mechanism's eps0 at each central eps"):
        swept = [(e, common.call(central_rows, n, d, s, e, central_delta)) for e in targets]
    swept = [(e, rows) for e, rows in swept if rows is not None]
    if swept:
        fig = go.Figure()
        for name in [r["mechanism"] for r in swept[0][1]]:
            pts = [(e, r) for e, rows in swept for r in rows if r["mechanism"] == name and r["mse_mean"] is not None]
            if not pts:
                continue
            fig.add_trace(go.Scatter(
                x=[e for e, _ in pts], y=[r["mse_mean"] for _, r in pts], mode="lines+markers",
                name=common.MECH_LABEL.get(name, name),
                customdata=[[common.fmt(r["eps0"], 4, "down"), r["bound"] + ("" if r["own"] else " (generic)")]
                            for _, r in pts],
                hovertemplate="central eps %{x}<br>MSE %{y:.4g}<br>eps0 %{customdata[0]} "
                              "(%{customdata[1]})<extra></extra>"))
        fig.update_layout(xaxis=common.log_axis("central eps (proved eps_c <= it)", targets),
                          yaxis=common.log_axis("MSE of the mean (sum over coordinates)"),
                          template="plotly_white", height=420, margin=dict(t=30),
                          title=f"delta = {central_delta:g}, n = {n:,}: each mechanism at its own proved eps0")
        st.plotly_chart(fig, key="central_sweep_chart")
        flat = [dict(central_eps=e, **r) for e, rows in swept for r in rows]
        common.download_csv(flat, "utility_central_sweep.csv", "Download the sweep (CSV)", key="dl_sweep")
