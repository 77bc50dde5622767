"""The words every page shows: the symbols' explanations, the erratum caption and the page
header.  Streamlit alone: the Home page imports this module, not :mod:`common`, so that it
shows its text and links without importing the numerics.
"""
from __future__ import annotations

from typing import Sequence

import streamlit as st

EXPLANATIONS = {
    "eps0": "eps0 (local budget): the privacy each user's own randomized report gives on its own, "
            "before shuffling (eps0-local differential privacy).",
    "eps_c": "eps_c (central budget): the differential privacy of the shuffled collection of all n "
             "reports, as seen by the analyst; shuffling makes eps_c much smaller than eps0.",
    "delta": "delta: the small probability with which the central guarantee (eps_c, delta) may fail; "
             "take it well below 1/n.",
    "s": "s (sparsity): the number of non-zero coordinates each user holds, out of d coordinates.",
    "t": "t (hash range): the number of buckets Collision/CoCo hash the s keys into; larger t means "
         "fewer collisions but a weaker amplification.",
    "fe_eps": "eps (central budget): the differential privacy of the shuffled multiset of all "
              "messages, as seen by the analyst; neighbouring data sets differ in one user's "
              "element.",
    "fe_delta": "delta: the small probability with which the (eps, delta) guarantee may fail; "
                "the default 1/n^2 is the paper's choice.",
    "B": "B (domain size): each user holds one element of {0, ..., B-1}; the analyst estimates how "
         "many users hold each element.",
    "rho": "rho (blanket messages): besides its one real message every user sends rho uniformly "
           "random messages in expectation (floor(rho) for sure, one more with probability "
           "rho - floor(rho)); they hide the real ones. 'Paper' is Theorem 2.1's closed form, "
           "'exact' the smallest rho certified by the exact balls-into-bins accounting.",
    "b": "b (FE1's hash range): FE1 sends (u, v, h(x)) with a hash h onto b values, so the blanket "
         "messages only have to cover b bins instead of B; 2 <= b <= B/2.",
    "beta": "beta: the error bound alpha holds for all B estimates at once with probability at "
            "least 1 - beta (Lemmas 2.3 and 2.6).",
}

ERRATUM_CAPTION = ("Every eps_c headline is a proved upper bound for the mechanism as implemented (the "
                   "privacy blanket computed exactly). The paper's Theorem 5 value and the stronger clone "
                   "bound rest on FMT23 Lemma 3.5, whose proof has a published erratum, and exact "
                   "enumeration finds instances where Theorem 5's value is exceeded: they are shown only "
                   "under their own names. See docs/proved.md, 'Findings'.")


def page_header(title: str, intro: str) -> None:
    st.set_page_config(page_title=f"{title} | shuffle-DP toolkit", layout="wide")
    st.title(title)
    st.write(intro)


def explain(keys: Sequence[str] = ("eps0", "eps_c", "delta", "s", "t"),
            title: str = "What do eps0, eps_c, delta, s and t mean?") -> None:
    """One sentence for each symbol used on the page."""
    with st.expander(title, expanded=False):
        for k in keys:
            st.markdown("* " + EXPLANATIONS[k])
