"""Frequency: FE0 and FE1 with blanket messages, the paper's rho against the exact rho."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402
from mechanisms import frequency as freq
from mechanisms.evaluation.metrics import mean_ci

common.page_header(
    "Frequency estimation with blanket messages (FE0/FE1)",
    "Each of n users holds one of B elements and sends one real message plus, in expectation, "
    "rho uniformly random blanket messages (Luo, Wang, Yi, Section 2). Compare the paper's rho "
    "with the smallest rho the exact balls-into-bins accounting certifies: messages per user, "
    "message size, privacy and the error of the frequency estimates.")
common.explain(("fe_eps", "fe_delta", "B", "rho", "b", "beta"),
               title="What do eps, delta, B, rho, b and beta mean?")

sb = st.sidebar
sb.header("Inputs")
n = int(sb.number_input("n (users)", min_value=1, max_value=10**10, value=1_000_000, step=100_000,
                        key="n"))
B = int(sb.number_input("B (domain size)", min_value=1, max_value=freq.MAX_DOMAIN, value=100_000,
                        step=1000, key="B"))
eps = float(sb.number_input("eps", min_value=0.01, max_value=20.0, value=1.0, key="eps"))
delta_text = sb.text_input("delta", value="1/n^2", key="delta",
                           help="a number in (0, 1); '1/n^2' or empty: delta = 1/n^2")
# delta None: the library's default 1/n^2
delta_ok, delta = common.delta_from_text(delta_text, where=sb, default="1/n^2")
protocol = sb.radio("protocol", ["auto", "fe0", "fe1"], key="protocol",
                    format_func=lambda p: {"auto": "auto (FE0 if B <= n / ln n, else FE1)",
                                           "fe0": "FE0", "fe1": "FE1"}[p],
                    help="auto: the choice of the paper's Table 1")
mech, b = protocol, None
if protocol == "auto":
    choice = common.call(freq.table_mechanism, n, B, where=sb)
    mech = choice[0] if choice is not None else None
b_ok = True
if mech == "fe1":
    b_mode = sb.radio("b (FE1's hash range)", ["default", "fixed value"], key="b_mode",
                      format_func=lambda m: {"default": "Table 1: n / ln n, capped at B/2",
                                             "fixed value": "fixed value"}[m])
    if b_mode == "fixed value":
        b_default = common.call(freq.default_b, n, B, where=sb)
        b = int(sb.number_input("b value", min_value=1, max_value=2**31,
                                value=b_default if b_default is not None else 2, key="b"))
        b_ok = b_default is not None
beta = float(sb.number_input("beta (error-bound failure probability)", min_value=0.0,
                             max_value=1.0, value=0.1, step=0.01, format="%.4f", key="beta"))

# the exact rho validates every input (the library names the faulty parameter)
exact = None
if mech is not None and delta_ok and b_ok:
    with st.spinner("Computing the exact rho..."):
        exact = common.call(common.fe_summary, mech, n, B, eps, delta, "exact", b, beta, where=sb)
if exact is None:
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()
paper = None
if eps <= common.PAPER_EPS_MAX:
    paper = common.call(common.fe_summary, mech, n, B, eps, delta, "paper", b, beta)
    if paper is None:
        st.stop()

fe1 = mech == "fe1"
head = f"{common.FE_LABEL[mech]}"
if fe1:
    head += f" (b = {exact['b']:,}, q = {exact['q']:,})"
st.subheader(f"{head}: n = {n:,}, B = {B:,}, eps = {eps:g}, "
             f"delta = {common.fmt(exact['delta'], 4)}")
if protocol == "auto":
    st.caption("auto: " + ("FE0, since B <= n / ln n (hashing would not shrink the domain)"
                           if mech == "fe0" else
                           "FE1 with b = n / ln n capped at B/2, since B > n / ln n (Table 1)"))

# ---------------------------------------------------------------- metrics, side by side
cols = st.columns(2, border=True)
for col, src, res in ((cols[0], "paper", paper), (cols[1], "exact", exact)):
    col.markdown(f"**{common.RHO_LABEL[src]}**")
    if res is None:
        col.info(common.PAPER_NOT_AVAILABLE)
        continue
    t = src
    items = [
        (f"rho ({t})", common.fmt(res["rho"]), "expected blanket messages per user"),
        (f"messages per user ({t})", common.fmt(res["messages_per_user"]),
         "1 + rho: the real message plus the blanket messages"),
        (f"bits per message ({t})", str(res["bits_per_message"]),
         "FE0: log2 B; FE1: 2 log2 q + log2 b (Lemma 2.7), rounded up per field"),
        (f"certified delta ({t})", common.fmt(res["certified_delta"], 6),
         f"exact balls-into-bins accounting at eps = {eps:g}; "
         f"{'meets' if res['meets_delta'] else 'EXCEEDS'} the target delta"),
        (f"error bound alpha ({t})", common.fmt(res["alpha"], 4),
         f"Lemma {'2.6' if fe1 else '2.3'} at this rho: with probability >= 1 - beta = "
         f"{1 - beta:g}, every one of the B estimates is within alpha of the true count"),
    ]
    if fe1:
        items.append((f"alpha, proof form ({t})", common.fmt(res["alpha_proof"], 4),
                      "the tighter inequality (6) from the proof of Lemma 2.6"))
    items.append((f"std per element ({t})", common.fmt(res["std"], 4),
                  "exact standard deviation of one estimate (FE1: at true frequency 0, where it "
                  "is largest)"))
    for i in range(0, len(items), 2):
        row = col.columns(2)
        for c, (label, value, hlp) in zip(row, items[i:i + 2]):
            c.metric(label, value, help=hlp)
    col.caption(f"Theorem 2.1's condition {'holds' if res['paper_condition'] else 'does not hold'} "
                f"at this rho; the exact accounting certifies delta = "
                f"{common.fmt(res['certified_delta'], 6)} "
                f"{'<=' if res['meets_delta'] else '>'} {common.fmt(res['delta'], 4)}.")

if paper is not None:
    sv = common.fe_saving(paper, exact)
    st.markdown(f"**Exact accounting saves {100 * sv['blanket']:.1f}% of the blanket messages** "
                f"({common.fmt(paper['rho'], 4)} -> {common.fmt(exact['rho'], 4)} per user; "
                f"{100 * sv['messages']:.1f}% of all messages).")
else:
    st.markdown(f"**The paper's rho is not defined at eps = {eps:g} > {common.PAPER_EPS_MAX:g}**; "
                f"the exact accounting certifies (eps, delta) with {common.fmt(exact['rho'], 4)} "
                f"blanket messages per user.")

metric_rows = [r for r in (paper, exact) if r is not None]
with st.expander("All numbers as a table"):
    common.table(metric_rows, "metrics_table")
common.download_csv(metric_rows, f"frequency_{mech}_metrics.csv", "Download metrics (CSV)",
                    key="dl_metrics")

# ---------------------------------------------------------------- messages per user against eps
st.subheader("Messages per user against eps")
grid = tuple(sorted(set(common.FE_EPS_GRID) | {eps}))
with st.spinner("Computing the exact rho on the eps grid..."):
    curve = common.call(common.fe_curve, mech, n, B, delta, b, grid)
if curve is not None:
    fig = go.Figure()
    for src, color in (("paper", "#d62728"), ("exact", "#1f77b4")):
        pts = [r for r in curve if r[f"messages_{src}"] is not None]
        fig.add_trace(go.Scatter(
            x=[r["eps"] for r in pts], y=[r[f"messages_{src}"] for r in pts], mode="lines+markers",
            name=common.RHO_LABEL[src], line=dict(color=color),
            customdata=[r[f"rho_{src}"] for r in pts],
            hovertemplate="eps = %{x:.4g}<br>messages per user = %{y:.5g}"
                          "<br>rho = %{customdata:.5g}<extra></extra>"))
    here = [(src, r) for src, r in (("paper", paper), ("exact", exact)) if r is not None]
    fig.add_trace(go.Scatter(x=[eps] * len(here), y=[r["messages_per_user"] for _, r in here],
                             mode="markers", name=f"eps = {eps:g}",
                             marker=dict(symbol="star", size=15, color="gold",
                                         line=dict(color="black", width=1))))
    fig.update_layout(xaxis=dict(title="eps"),
                      yaxis=common.log_axis("messages per user (1 + rho)"),
                      template="plotly_white", height=440, legend=dict(orientation="h", y=-0.2),
                      legend_title="rho", margin=dict(t=30))
    st.plotly_chart(fig, key="messages_chart")
    st.caption(f"The paper's rho is defined for eps <= {common.PAPER_EPS_MAX:g} only. "
               f"Same n, B, delta{' and b' if fe1 else ''} as above.")
    common.download_csv(curve, f"frequency_{mech}_messages.csv", "Download curve (CSV)",
                        key="dl_curve")

# ---------------------------------------------------------------- simulation
st.subheader("Simulation")
sb.header("Simulation")
reps = int(sb.number_input("repetitions", min_value=1, max_value=50, value=3, key="reps"))
seed = int(sb.number_input("seed", min_value=0, max_value=2**31, value=0, key="seed"))
data = sb.selectbox("data", list(freq.DATA_KINDS), key="data",
                    format_func=lambda d: {"zipf": "Zipf (a = 1.1)", "uniform": "uniform"}[d])
sources = [(src, r) for src, r in (("paper", paper), ("exact", exact)) if r is not None]
refusals = {src: common.fe_sim_refusal(mech, n, B, eps, delta, src, b, reps) for src, _ in sources}
for msg in refusals.values():
    if msg:
        st.warning(msg)
runnable = [src for src, _ in sources if not refusals[src]]
run = st.button("Simulate", type="primary", disabled=not runnable, key="simulate")
params = (mech, n, B, eps, delta, b, reps, seed, data, beta)
if run and runnable:
    results = {}
    bar = common.Progress(f"Simulating with the "
                          f"{' and the '.join(common.RHO_LABEL[s].split(' (')[0] for s in runnable)}",
                          "runs")
    for i, src in enumerate(runnable):
        res = common.call(common.fe_simulate, mech, n, B, eps, delta, src, b, reps, seed, data,
                          beta, progress=lambda k, _r, i=i: bar.update(i * reps + k, len(runnable) * reps))
        if res is None:
            break
        results[src] = res
    bar.close()
    if len(results) == len(runnable):
        st.session_state["fe_sim"] = (params, results)

stored = st.session_state.get("fe_sim")
if stored is None:
    st.info("Press **Simulate** to run the protocol on synthetic data with both values of rho "
            "(the same seed, so the same data sets).")
    st.stop()
sparams, results = stored
if sparams != params:
    st.warning("The inputs changed since the last run; the results below are for the previous "
               "inputs. Press **Simulate** to update.")
st.caption(f"{common.FE_LABEL[sparams[0]]}, n = {sparams[1]:,}, B = {sparams[2]:,}, "
           f"eps = {sparams[3]:g}, {sparams[6]} run(s), seed {sparams[7]}, {sparams[8]} data.")
scols = st.columns(len(results), border=True)
for col, (src, r) in zip(scols, results.items()):
    t = src
    col.markdown(f"**{common.RHO_LABEL[src]}**")
    items = [(f"max abs error ({t})", common.fmt(r["max_abs_error"], 4),
              "max over the B elements of |estimate - true count|, mean over the runs"),
             (f"bound alpha ({t})", common.fmt(r["alpha"], 4),
              f"Lemma 2.3 / 2.6: holds with probability >= 1 - beta = {1 - r['beta']:g}")]
    if r.get("alpha_proof") is not None:
        items.append((f"bound, proof form ({t})", common.fmt(r["alpha_proof"], 4),
                      "the tighter inequality (6) from the proof of Lemma 2.6"))
    items.append((f"simulated 1 + rho ({t})", common.fmt(r["messages_per_user"], 5),
                  "messages per user in the simulation; expected: 1 + rho = "
                  f"{common.fmt(r['messages_per_user_expected'], 5)}"))
    for i in range(0, len(items), 2):
        row = col.columns(2)
        for c, (label, value, hlp) in zip(row, items[i:i + 2]):
            c.metric(label, value, help=hlp)

LABELS = {"rho": "rho", "messages_per_user_expected": "messages per user (expected)",
          "messages_per_user": "messages per user (simulated)",
          "max_abs_error": "max abs error (mean over runs)", "alpha": "bound alpha",
          "alpha_proof": "bound alpha, proof form", "rmse": "RMSE per element",
          "rmse_exact": "RMSE per element (exact)", "mean_error": "mean signed error"}
sim_rows = []
for src, r in results.items():
    row = {"rho source": src}
    for k, lab in LABELS.items():
        if k in r:
            row[lab] = r[k]
    runs = r["max_abs_error_runs"]
    _, lo, hi = mean_ci(runs)
    row["max abs error, 95% CI low"] = None if lo != lo else lo
    row["max abs error, 95% CI high"] = None if hi != hi else hi
    row["max abs error, min over runs"] = min(runs)
    row["max abs error, max over runs"] = max(runs)
    sim_rows.append(row)
common.table(sim_rows, "sim_table")
st.caption("The bound alpha (Lemma 2.3 / 2.6) holds with probability >= 1 - beta for the maximum "
           "error over all B elements; the exact RMSE is the square root of the mean exact "
           "variance over the elements. 95% CI: Student-t interval for the expected maximum "
           "error from the independent runs (at least 2 runs).")
common.download_csv([{kk: vv for kk, vv in r.items() if kk != "max_abs_error_runs"}
                     | {"max_abs_error_runs": " ".join(f"{e:.6g}" for e in r["max_abs_error_runs"])}
                     for r in results.values()], f"frequency_{sparams[0]}_simulation.csv",
                    "Download simulation (CSV)", key="dl_fe_sim")
