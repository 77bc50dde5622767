"""Simulation: Monte-Carlo errors of Collision, CoCo and the baselines against the exact ones."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402
from mechanisms.evaluation import simulate as sim
from mechanisms.evaluation.metrics import mean_ci

common.page_header(
    "Simulation",
    "Run the mechanisms on synthetic s-sparse data (Section 8) and compare the empirical "
    "mean-squared errors with the exact formulas (Collision, CoCo) or the baselines' analytic "
    "errors.")
common.explain()

sb = st.sidebar
sb.header("Inputs")
names = sim.available_mechanisms()
mechanism = sb.selectbox("Mechanism", names, key="mechanism",
                         format_func=lambda m: common.MECH_LABEL.get(m, m))
n = int(sb.number_input("n (users)", min_value=1, max_value=2_000_000, value=20_000, step=1000,
                        key="n"))
d = int(sb.number_input("d (coordinates)", min_value=1, max_value=100_000, value=64, key="d"))
s = int(sb.number_input("s (non-zeros per user)", min_value=1, max_value=100_000, value=4, key="s"))
s_ok = common.check(s <= d, f"s must satisfy 1 <= s <= d = {d}, got s = {s}", where=sb)
eps0 = float(sb.number_input("eps0", min_value=0.01, max_value=20.0, value=1.0, key="eps0"))
t = None
if mechanism in sim.OWN_MECHANISMS:
    if sb.radio("t (hash range)", ["paper's rule", "fixed value"], key="t_mode") == "fixed value":
        t = int(sb.number_input("t value", min_value=2, max_value=2**31 - 2, value=4 * s + 2, key="t"))
reps = int(sb.number_input("repetitions", min_value=1, max_value=200, value=3, key="reps"))
seed = int(sb.number_input("seed", min_value=0, max_value=2**31, value=0, key="seed"))
size_ok = common.call(common.check_sim_size, n, d, reps, where=sb) is not None
mech_ok = s_ok and size_ok and common.call(sim.make_mechanism, mechanism, d, s, eps0, t,
                                           where=sb) is not None
run = st.button("Run simulation", type="primary", disabled=not mech_ok, key="run")
if not mech_ok:
    st.warning("Fix the inputs marked in the sidebar to run the simulation.")

params = (mechanism, n, d, s, eps0, t, reps, seed)
if run and mech_ok:
    bar = common.Progress("Simulating", "runs")
    runs = []
    for i in range(reps):
        res = common.call(sim.simulate, mechanism, n, d, s, eps0, t, reps=1, seed=seed + i)
        if res is None:
            break
        runs.append(res)
        bar.update(i + 1, reps)
    bar.close()
    if len(runs) == reps:
        st.session_state["sim_result"] = (params, runs)

stored = st.session_state.get("sim_result")
if stored is None:
    st.info("Press **Run simulation** to simulate with the inputs in the sidebar.")
    st.stop()
sparams, runs = stored
if sparams != params:
    st.warning("The inputs changed since the last run; the results below are for the previous "
               "inputs. Press **Run simulation** to update.")
mname, n_, d_, s_, e_, t_, reps_, seed_ = sparams
st.subheader(f"{common.MECH_LABEL.get(mname, mname)}: n = {n_:,}, d = {d_}, s = {s_}, "
             f"eps0 = {e_:g}, t = {runs[0]['t'] if runs[0]['t'] is not None else 'n/a'}, "
             f"{reps_} run(s)")

LABEL = {"mse_mean": "mean", "mse_nonmissing": "frequency (non-missing)", "mse_item": "item"}
table = []
for k in ("mse_mean", "mse_nonmissing", "mse_item"):
    vals = [r[k] for r in runs]
    emp, lo, hi = mean_ci(vals)
    exact = [r["analytic"][k] for r in runs if "analytic" in r and k in r["analytic"]]
    ex = sum(exact) / len(exact) if len(exact) == len(runs) else None
    table.append({"estimator": LABEL[k], "empirical MSE (mean over runs)": emp,
                  "95% CI low": None if lo != lo else lo, "95% CI high": None if hi != hi else hi,
                  "min over runs": min(vals), "max over runs": max(vals),
                  "exact / analytic MSE": ex,
                  "empirical / exact": (emp / ex) if ex else None,
                  "exact inside CI": None if (ex is None or lo != lo) else bool(lo <= ex <= hi)})
common.table(table, "sim_table")
st.caption("95% CI: Student-t interval for the expected MSE from the independent runs "
           "(needs at least 2 runs); an exact value inside it agrees with the simulation.")
src = runs[0].get("analytic", {}).get("applies_to")
if src:
    st.caption(f"Exact column: {src}.")
common.download_csv([{**{kk: vv for kk, vv in r.items() if kk != "analytic"},
                      **{f"analytic_{kk}": vv for kk, vv in r.get("analytic", {}).items()}}
                     for r in runs], f"simulation_{mname}.csv", "Download all runs (CSV)",
                    key="dl_sim")

fig = go.Figure()
xs = [row["estimator"] for row in table]
fig.add_trace(go.Bar(x=xs, y=[row["empirical MSE (mean over runs)"] for row in table],
                     name="empirical (95% CI)", marker_color="#1f77b4",
                     error_y=dict(type="data", symmetric=False,
                                  array=[(row["95% CI high"] or row["empirical MSE (mean over runs)"])
                                         - row["empirical MSE (mean over runs)"] for row in table],
                                  arrayminus=[row["empirical MSE (mean over runs)"]
                                              - (row["95% CI low"] or row["empirical MSE (mean over runs)"])
                                              for row in table])))
fig.add_trace(go.Bar(x=xs, y=[row["exact / analytic MSE"] for row in table], name="exact / analytic",
                     marker_color="#ff7f0e"))
fig.update_layout(barmode="group", xaxis_title="estimator",
                  title=f"Empirical against exact MSE ({common.MECH_LABEL.get(mname, mname)}, n = {n_:,}, "
                        f"d = {d_:,}, s = {s_}, eps0 = {common.fmt(e_)}, {reps_} run(s))",
                  yaxis_title="MSE (sum over coordinates)", template="plotly_white", height=420,
                  legend_title="error", margin=dict(t=60))
st.plotly_chart(fig, key="sim_chart")
