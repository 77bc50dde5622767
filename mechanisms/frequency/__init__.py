"""Frequency estimation with (almost) one message per user: the protocols FE0 and FE1.

Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a single
message" (Luo, Wang, Yi), Section 2.  Every user holds ``x`` in the domain ``[B]`` (here the
integers ``0 .. B-1``), sends one *real* message and, in expectation, ``rho``
uniformly random *blanket* messages: ``floor(rho)`` for sure and one more with
probability ``rho - floor(rho)`` (Algorithm 4, lines 4-11; for ``rho <= 1`` this is
Algorithm 2).  The shuffler outputs the multiset of all messages.

* **FE0** (Algorithms 2, 3): the real message is ``x``, a blanket message is uniform
  on ``[B]``; the analyzer counts ``x`` and subtracts ``n rho / B``.
* **FE1** (Algorithms 4, 5): with a prime ``q >= B`` and ``2 <= b <= B/2``, the real
  message is ``(u, v, h_{u,v}(x))`` with ``(u, v)`` uniform on ``[q-1] x [q]`` and
  ``h_{u,v}(x) = ((u x + v) mod q) mod b``; a blanket message is uniform on
  ``[q-1] x [q] x Z_b``.  The analyzer counts the tuples with ``h_{u,v}(x) = w`` and
  returns ``(X - n rho/b - n p_col)/(1 - p_col)``.  All ``B`` estimates at once by
  the preimage enumeration of Lemma 2.7 (about ``q/b`` candidates per message).

Privacy.  After removing the other users' real messages (post-processing in reverse:
they are independent of the differing user), FE0 is ``M^BIB(B, 1, n floor(rho), n,
frac(rho))`` (Lemma 2.2) and FE1 is ``M^BIB((q-1) q b, (q-1) q, n floor(rho), n,
frac(rho))`` (Lemma 2.5).  ``rho`` is either the paper's
``32 ln(2/delta)/eps^2 * B/n`` (``b/n`` for FE1; defined for ``eps <= 3``) or the
*exact* ``rho``: the smallest one whose exact balls-into-bins divergence
(:mod:`accountant.protocols.bib`) certifies ``(eps, delta)``.  For FE1 the worst-case overlap
of the two special sets is 0 (``b >= 2``) and the divergence depends on ``m/s = b``
only, so the exact ``rho`` of FE1 equals that of FE0 with ``B = b``.  (The two sets
of FE1 really overlap in ``p_col (q-1) q`` tuples; the worst case ignores this, at a
cost of order ``1/b`` in ``rho``.)

Accuracy.  Per element ``x`` with true frequency ``g``,
FE0: ``ghat - g = Y - E Y``, ``Y ~ Bin(n floor(rho), 1/B) + Bin(n, frac/B)``;
FE1: ``ghat - g = (Y - E Y)/(1 - p_col)``,
``Y ~ Bin(n - g, p_col) + Bin(n floor(rho), 1/b) + Bin(n, frac/b)``.
Both estimators are unbiased; :func:`fe0_alpha` / :func:`fe1_alpha` are Lemmas 2.3 /
2.6 (Chernoff + union bound over ``[B]``) with the noise mean written for a general
``rho`` (the lemmas' ``32 ln(2/delta)/eps^2`` is ``n rho/B`` resp. ``n rho/b`` at the
paper's ``rho``; the proofs use nothing else about ``rho``).

May import: :mod:`accountant.core`, :mod:`accountant.protocols` (the
balls-into-bins accounting of the protocols), :mod:`mechanisms.core`.
"""
from mechanisms.frequency.hashing import (  # noqa: F401
    BLOCK_CANDIDATES,
    collision_probability,
    hash_values,
    is_prime,
    preimage_counts,
    smallest_prime_at_least,
)
from mechanisms.frequency.accuracy import (  # noqa: F401
    MAX_DOMAIN,
    fe0_alpha,
    fe1_alpha,
    lemma_2_3_alpha,
    lemma_2_6_alpha,
)
from mechanisms.frequency.protocols import (  # noqa: F401
    BLOCK_MESSAGES,
    FE0,
    FE0Reports,
    FE1,
    FE1Reports,
    PAPER_EPS_MAX,
    RhoSpec,
    default_b,
    make_protocol,
)
from mechanisms.frequency.experiments import (  # noqa: F401
    DATA_KINDS,
    TABLE_COLUMNS,
    frequency_data,
    frequency_table,
    render_frequency_table,
    simulate_frequency,
    table_mechanism,
)

__all__ = [
    'BLOCK_CANDIDATES',
    'BLOCK_MESSAGES',
    'DATA_KINDS',
    'FE0',
    'FE0Reports',
    'FE1',
    'FE1Reports',
    'MAX_DOMAIN',
    'PAPER_EPS_MAX',
    'RhoSpec',
    'TABLE_COLUMNS',
    'collision_probability',
    'default_b',
    'fe0_alpha',
    'fe1_alpha',
    'frequency_data',
    'frequency_table',
    'hash_values',
    'is_prime',
    'lemma_2_3_alpha',
    'lemma_2_6_alpha',
    'make_protocol',
    'preimage_counts',
    'render_frequency_table',
    'simulate_frequency',
    'smallest_prime_at_least',
    'table_mechanism',
]
