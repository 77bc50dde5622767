"""What is and is not proved about the pair bounds computed here, as text (docs/proved.md, "Findings").

The parameter objects of :mod:`accountant.core.params` carry these as ``caveat``; the
registry of bounds quotes them beside the numbers they qualify.
"""
from __future__ import annotations

CAVEAT_GENERIC = (
    "not proved for every eps0-LDP randomizer: by the FMT23 erratum the stronger clone reduction "
    "holds only for randomizers with its mixture decomposition at weight 1/(e^eps0+1) (e.g. binary "
    "randomized response); for an arbitrary eps0-LDP randomizer use the 'clone' bound (FMT21)")
CAVEAT_THEOREM5 = (
    "not a proved upper bound: the paper's Theorem 5 rests on FMT23 Lemma 3.5, whose proof fails for "
    "mixture weights below 1/(e^eps0+1) (FMT23 erratum), and exact enumeration of the shuffled "
    "output finds instances that exceed this value (accountant/engines/enumeration.py); proved bounds: "
    "'clone' and the blanket bounds")
CAVEAT_THEOREM5_T2S = (
    "not a proved upper bound: at t = 2s the worst-case weight equals 1/(e^eps0+1) and exact "
    "enumeration found no instance above this value, but hash collisions lower the weight into the "
    "regime where FMT23 Lemma 3.5's proof fails (erratum); proved bounds: 'clone' and the blanket bounds")
CAVEAT_THEOREM6 = (
    "lower bound for the hash family constructed in Theorem 6's proof (worst case over hash families), "
    "not for uniformly random hashing; the paper's claim that it matches the upper bound is "
    "contradicted by exact enumeration for t >= 4")
CAVEAT_VARIATION_RATIO = (
    "Wang et al.'s variation-ratio value is the exact divergence of one randomizer of the class "
    "(a certified lower bound on the class's worst case); as an upper bound it rests on the "
    "reduction of FMT23 Lemma 3.5, whose proof fails (erratum); proved: the general clone bound")
