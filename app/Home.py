"""Entry point of the dashboard: ``streamlit run app/Home.py``."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import streamlit as st  # noqa: E402

import common  # noqa: E402

common.page_header(
    "Shuffle-model DP toolkit",
    "Privacy accounting and utility of the Collision and CoCo mechanisms in the shuffle model "
    "of differential privacy: each user randomizes a report locally (eps0), a shuffler removes "
    "the order, and the analyst sees an (eps_c, delta)-DP collection.")
common.explain()
st.subheader("Pages")
st.markdown(
    "* **Amplification**: central eps_c against local eps0 for every bound (Figure 2), which "
    "bounds apply, the proved eps_c with its certified lower bound, and the paper's value beside them.\n"
    "* **Utility**: collision rates (Figure 4) and exact MSE (Figure 5) of Collision and CoCo "
    "against the hash range t, and the baselines' errors against eps0.\n"
    "* **Planner**: for a target (eps_c, delta), the mechanism, t and eps0 with the smallest error, "
    "with a sentence to paste into a design document.\n"
    "* **Tables**: grids of bounds over n, s, eps0 and delta, downloadable as CSV, JSON, Markdown "
    "and LaTeX.\n"
    "* **Simulation**: Monte-Carlo runs of Collision, CoCo and the baselines against the exact "
    "error formulas.\n"
    "* **Frequency**: frequency estimation with blanket messages (FE0/FE1, Luo, Wang, Yi): "
    "messages per user, error bounds and simulations with the paper's rho against the exact "
    "balls-into-bins accounting.")
st.caption(common.ERRATUM_CAPTION)
st.caption("Every number shown is computed by the `accountant` and `mechanisms` packages; "
           "every table can be downloaded as CSV.")
