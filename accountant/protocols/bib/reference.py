"""Slow references for the balls-into-bins delta that the tests hold the fast sums to: an
mpmath sum over the proof's variables and a brute force over all placements on tiny instances.
"""
from __future__ import annotations
import math
from typing import Optional
from accountant.protocols.bib.law import worst_overlap


# ----------------------------------------------------------------------------
# references (tests)
# ----------------------------------------------------------------------------

def bib_delta_mp(eps, m: int, s: int, k: int, n: int, p, overlap: Optional[int] = None,
                 dps: int = 40, sd_window: float = 40.0):
    """mpmath reference: the proof's sum over (T, counts in C, D, E, real ball) directly.

    delta = sum_T P[T] E[(1 - e^eps W_S'/W_S)_+] with W_S = 1 + N_C + N_D and
    W_S' = N_C + N_E + [real ball in C], (N_C, N_D, N_E) | T multinomial.  No
    closed form is used.  T is summed over mean +- sd_window standard deviations
    (and the whole range when small): the mass left out is < e^{-sd_window^2/3}
    relative, negligible at the default.  ``p`` and ``eps`` may be strings.
    """
    import mpmath

    t = worst_overlap(m, s) if overlap is None else overlap
    with mpmath.workdps(dps):
        mp = mpmath.mpf
        eps_, p_ = mp(eps), mp(p)
        e = mpmath.exp(eps_)
        u = 2 * s - t
        q = mp(u) / m
        pq = p_ * q

        fact = {}

        def lfact(j):
            if j not in fact:
                fact[j] = mpmath.loggamma(j + 1)
            return fact[j]

        def bpmf(j, N, r):
            if r == 0:
                return mp(1) if j == 0 else mp(0)
            if r == 1:
                return mp(1) if j == N else mp(0)
            return mpmath.exp(lfact(N) - lfact(j) - lfact(N - j) + j * mpmath.log(r)
                              + (N - j) * mpmath.log1p(-r))

        mean = k * q + n * pq
        sd = mpmath.sqrt(k * q * (1 - q) + n * pq * (1 - pq)) + 1
        Tlo = max(0, int(mean - sd_window * sd))
        Thi = min(k + n, int(mean + sd_window * sd) + 1)
        # P[T] by convolution restricted to the window of T
        pk = [bpmf(j, k, q) for j in range(0, min(k, Thi) + 1)]
        pn = [bpmf(j, n, pq) for j in range(0, min(n, Thi) + 1)]
        total = mp(0)
        fC = mp(t) / u if u else mp(0)
        for T in range(Tlo, Thi + 1):
            PT = mp(0)
            for a in range(max(0, T - len(pn) + 1), min(T, len(pk) - 1) + 1):
                PT += pk[a] * pn[T - a]
            if PT == 0:
                continue
            acc = mp(0)
            if t == 0:
                for U in range(T + 1):
                    A, Ap = 1 + U, T - U
                    v = 1 - e * Ap / A
                    if v > 0:
                        acc += bpmf(U, T, mp(1) / 2) * v
            else:
                for cC in range(T + 1):
                    pc = bpmf(cC, T, fC)
                    if pc == 0:
                        continue
                    L = T - cC
                    for d in range(L + 1):
                        pdd = bpmf(d, L, mp(1) / 2)
                        A = 1 + cC + d
                        for J, pj in ((1, mp(t) / s), (0, mp(s - t) / s)):
                            v = 1 - e * (cC + (L - d) + J) / A
                            if v > 0:
                                acc += pc * pdd * pj * v
            total += PT * acc
        return total


def bib_bruteforce(eps: float, m: int, S, S2, k: int, n: int, p: float) -> float:
    """H_{e^eps}(M(S) || M(S2)) by enumerating every run of Algorithm 1 (tiny m, k, n)."""
    import itertools
    from collections import defaultdict

    def dist(Sset):
        out = defaultdict(float)
        Sset = list(Sset)
        for x in Sset:
            for ks in itertools.product(range(m), repeat=k):
                for coins in itertools.product(range(m + 1), repeat=n):  # m = tails
                    pr = (1.0 / len(Sset)) * (1.0 / m) ** k
                    cnt = [0] * m
                    cnt[x] += 1
                    for b in ks:
                        cnt[b] += 1
                    for c in coins:
                        if c == m:
                            pr *= 1.0 - p
                        else:
                            pr *= p / m
                            cnt[c] += 1
                    out[tuple(cnt)] += pr
        return out

    P, Q = dist(S), dist(S2)
    e = math.exp(eps)
    return sum(max(0.0, pv - e * Q.get(w, 0.0)) for w, pv in P.items())
