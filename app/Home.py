"""Entry point of the dashboard: ``streamlit run app/Home.py``."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import streamlit as st  # noqa: E402

import texts  # noqa: E402  (the words alone: this page imports no numerics)

texts.page_header(
    "Shuffle-model DP toolkit",
    "Privacy accounting and utility of the Collision and CoCo mechanisms in the shuffle model "
    "of differential privacy: each user randomizes a report locally (eps0), a shuffler removes "
    "the order, and the analyst sees an (eps_c, delta)-DP collection.")
texts.explain()
st.subheader("Pages")
#: every page of the dashboard with the one question it answers
PAGES = (
    ("pages/1_Amplification.py", "Amplification",
     "What central eps_c may I cite for n shuffled reports at local eps0? The proved bound, its certified "
     "lower bound, the paper's value and the literature, against eps0 (Figure 2)."),
    ("pages/2_Utility.py", "Utility",
     "How accurate are Collision and CoCo? Collision rates (Figure 4) and exact MSE (Figure 5) against the "
     "hash range t, and the baselines' errors against eps0."),
    ("pages/3_Planner.py", "Planner",
     "For a target (eps_c, delta), which mechanism, t and eps0 give the smallest error?"),
    ("pages/4_Tables.py", "Tables",
     "What are the bounds over a grid of n, s, eps0 and delta? Downloadable as CSV, JSON, Markdown, LaTeX."),
    ("pages/5_Simulation.py", "Simulation",
     "Do Monte-Carlo runs of Collision, CoCo and the baselines match the exact error formulas?"),
    ("pages/6_Frequency.py", "Frequency",
     "How many blanket messages does frequency estimation (FE0/FE1) need: the paper's rho against the "
     "exact accounting?"),
    ("pages/7_Rounds.py", "Rounds",
     "What is the central guarantee after T shuffled rounds (PLD against naive and advanced composition), "
     "and the largest eps0 per round for a total budget?"),
)
for path, name, question in PAGES:
    st.page_link(path, label=f"**{name}**: {question}")
st.caption(texts.ERRATUM_CAPTION)
st.caption("Every number shown is computed by the `accountant` and `mechanisms` packages; "
           "every table can be downloaded as CSV.")
