r"""Count laws of the Collision / CoCo / k-RR mechanisms under random hashing.

Everything here is about the shuffled hockey-stick divergence written as a *count law*:
for categories ``c = 1..K`` (plus, for blanket laws, a null category ``0`` of value 0),
probabilities ``p_c`` and values ``v_c = a_c - u b_c`` (``u = e^eps``),

.. math:: \delta(\varepsilon) = \frac1n\,\mathbb E\Bigl[\Bigl(\sum_c v_c N_c\Bigr)_+\Bigr],
          \qquad (N_0, N_1, \dots, N_K)\sim\mathrm{Mult}(n; p_0, p_1, \dots, p_K).

Upper law (blanket, proved for every hash family)
-------------------------------------------------
Collision (main paper, Definition 5): given the hash ``H`` and input ``x`` with
``A = H(Y_x)``, ``k = |A| <= s``, ``E = e^{eps0}``, ``Omega = s E + t - s``:
``P[z|x,H] = E/Omega`` on ``A`` and ``g_k/Omega`` off ``A`` with
``g_k = 1 + (s-k)(E-1)/(t-k)``.  Take the blanket ``omega(H, z) = P_H(H)/t`` and
``gamma = t/Omega`` (:func:`accountant.bounds.blanket_relaxations.collision_rv`), so that
``mu_x/omega = gamma f_x(z)`` with ``f_x = E`` on ``A`` and ``g_k`` off ``A``.

*Claim.*  For every ``H`` and every pair ``(x, x')``, the law of
``L = (mu_x - u mu_{x'})/omega`` given ``H`` (``z ~ Unif[t]``) is dominated in the convex
order by the *clean* law ``gamma * {E-u w.p. s/t, 1-uE w.p. s/t, 1-u w.p. (t-2s)/t}``
(``t >= 2s``), resp. ``gamma * {E(1-u) w.p. j0/t, E-u and 1-uE w.p. (s-j0)/t each}``
with ``j0 = 2s - t`` (``t < 2s``).

*Proof.*  (1) ``f_x`` has sum ``Omega`` and takes the value ``E >= g_k`` on ``k`` points;
its decreasing rearrangement has partial sums ``<=`` those of
``f* = (E x s, 1 x (t-s))`` (the first ``k`` agree; after that ``f_x`` adds
``g_k <= E`` while ``f*`` adds ``E`` until ``s`` terms, and the totals agree; the
partial sums of ``f_x`` after position ``s`` are ``kE + (m-k) g_k``, a linear function
of ``m`` ending at ``Omega``, which stays below the piecewise-linear concave partial-sum
curve of ``f*`` through the same end point).  So ``f_x`` is majorized by ``f*`` and by
Birkhoff's theorem ``f_x = sum_i lambda_i P_i f*`` with permutation matrices ``P_i``;
likewise ``f_{x'} = sum_j lambda'_j P'_j f*``.  (2) Hence
``f_x - u f_{x'} = sum_{i,j} lambda_i lambda'_j (P_i f* - u P'_j f*)``: the vector of
values of ``L/gamma`` over ``z in [t]`` is a convex combination of *clean* vectors
``P f* - u P' f*``, each the value vector of two s-subsets of ``[t]`` with some overlap
``j``.  For a convex ``phi``, ``(1/t) sum_z phi(sum_m lambda_m w_m(z)) <=
sum_m lambda_m (1/t) sum_z phi(w_m(z))`` (Jensen pointwise), so ``L`` is dominated in
convex order by the mixture of the clean laws; all of them have mean ``1 - u``.
(3) A clean law with overlap ``j`` has atoms ``E(1-u)`` (``j`` points), ``E-u`` and
``1-uE`` (``s-j`` points each), ``1-u`` (``t-2s+j`` points).  Raising ``j`` by one
replaces one ``E-u`` and one ``1-uE`` atom by ``E(1-u)`` and ``1-u``: the same sum, both
new values lie between the old two, which is a mean-preserving contraction (a
T-transform).  So the smallest feasible overlap ``j0 = max(0, 2s-t)`` dominates all
others, and a mixture of laws each dominated by the same law is dominated by it.
(4) Convex order is preserved by sums of independent copies and by mixtures over
``H`` and over the number of blanket users, and ``(.)_+`` is convex, so the blanket
bound of [BBGN19] (see :mod:`accountant.bounds.blanket_relaxations`) evaluated with the clean law bounds
the divergence for every hash family.  Writing the binomial number of blanket users
and the categorical clean law as one multinomial gives the count law with
``p = (s/Omega, s/Omega, (t-2s)/Omega)``, ``p_0 = 1 - t/Omega`` and
``v = (E-u, 1-uE, 1-u)`` (:func:`blanket_count_law`).  CoCo (Algorithm 1): given
``(H1, H2)`` its relative weights (:func:`mechanisms.randomizers.coco.coco_output_distribution`
times ``Omega``) are ``E`` and ``1`` on occupied pairs and ``w_m >= 1`` elsewhere with
the same ``Omega``; that vector is again majorized by ``f*`` (same argument), so the
same law applies.  k-RR with ``k`` values is Collision with ``s = 1``, ``t = k`` and the
identity hash.

Lower laws (the real mechanism, uniformly random hash)
------------------------------------------------------
For ``D = (x1, x0, ..., x0)``, ``D' = (x1', x0, ..., x0)`` the shuffled divergence is
``(1/n) E_{W_i ~ mu_x0 iid}[(sum_i (mu_x1 - u mu_x1')(W_i)/mu_x0(W_i))_+]``.  Any
deterministic map of each report to a category can only lower it (data processing), and
the post-processed divergence is the count law above with ``p_c = P_x0(c)``,
``v_c = (P_x1(c) - u P_x1'(c))/P_x0(c)`` and no null category: the histogram ``N`` of
categories has ``P_D(N)/P_{x0}^{\otimes n}(N) = sum_c P_x1(c) N_c/(n P_x0(c))``.
:func:`collision_category_law` computes ``P_x(c)`` exactly for the hash drawn uniformly
from all functions ``Y -> [t]`` by a dynamic programme over the items hashed one at a
time (the state is the number of hash values in each region of the Venn diagram of
``H(Y_x1), H(Y_x1'), H(Y_x0)``; transition probabilities are exact rationals).  With
``categories="full"`` the category is ``(z's Venn region, |H(Y_x1)|, |H(Y_x1')|,
|H(Y_x0)|)``, which determines ``P[z | x, H]`` for the three inputs, so it is a
sufficient statistic and the count law is *equal* to the exact shuffled divergence of
the pair of datasets (checked against :mod:`accountant.engines.enumeration`).

References
----------
Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
Model": Definition 5, Algorithm 1.  [BBGN19] Balle, Bell, Gascon, Nissim, "The privacy
blanket of the shuffle model", CRYPTO 2019.
"""
from accountant.bounds.laws.count_law import (  # noqa: F401
    CountLaw,
    blanket_count_law,
    count_law_delta_exact,
    count_law_delta_float,
    krr_count_law,
)
from accountant.bounds.laws.collision_lower import (  # noqa: F401
    CollisionDatasets,
    best_collision_lower_bound,
    collision_category_law,
    collision_dataset_candidates,
    collision_lower_count_law,
    krr_lower_count_law,
    venn_count_law,
)
from accountant.bounds.laws.lower import (  # noqa: F401
    LOWER_MARGIN,
    LOWER_RTOL,
    LowerLaw,
    binary_delta,
    law_delta_and_slope,
    merge_tail,
    coco_disjoint_lower_law,
    collision_disjoint_lower_law,
    lower_bound_delta,
    lower_bound_epsilon,
    mechanism_lower,
    mechanism_lower_law,
    needs_d_reason,
    oue_lower_law,
    variation_ratio_lower,
)
from accountant.bounds.laws.worst_hash import (  # noqa: F401
    worst_hash_lower,
    worst_hash_lower_delta,
    worst_hash_lower_epsilon,
    worst_hash_lower_law,
)

__all__ = [
    'CollisionDatasets',
    'CountLaw',
    'LOWER_MARGIN',
    'LOWER_RTOL',
    'LowerLaw',
    'best_collision_lower_bound',
    'blanket_count_law',
    'coco_disjoint_lower_law',
    'collision_category_law',
    'collision_dataset_candidates',
    'collision_disjoint_lower_law',
    'collision_lower_count_law',
    'count_law_delta_exact',
    'count_law_delta_float',
    'krr_count_law',
    'krr_lower_count_law',
    'lower_bound_delta',
    'lower_bound_epsilon',
    'mechanism_lower',
    'mechanism_lower_law',
    'needs_d_reason',
    'oue_lower_law',
    'variation_ratio_lower',
    'venn_count_law',
    'worst_hash_lower',
    'worst_hash_lower_delta',
    'worst_hash_lower_epsilon',
    'worst_hash_lower_law',
]
# the modules that register their mechanisms' lower laws on mechanism_lower (piecewise, key-value baselines)
from accountant.bounds.laws import keyvalue_lower, numerical  # noqa: F401,E402
