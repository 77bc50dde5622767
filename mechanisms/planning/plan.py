"""The planner's data: the mechanisms and estimates it knows, ``Candidate`` and ``Plan`` with
their JSON form, ``InfeasiblePlan``, and the directed rounding of the numbers a plan prints.
"""
from __future__ import annotations
import math
from dataclasses import asdict, dataclass, field
from typing import Optional

from mechanisms.planning.kinds import KINDS, planner_kind

# the kinds' names (ORACLES: the frequency oracles), labels: queries on the table of kinds
MECHANISMS = tuple(KINDS)
ORACLES = tuple(name for name, kind in KINDS.items() if kind.oracle)
MECHANISM_LABELS = {name: kind.label for name, kind in KINDS.items()}
ESTIMATES = ("mean", "frequency")
EPS0_MAX = 20.0
# a recommended local budget above this gives each report little protection on its own
LOW_LOCAL_PROTECTION_EPS0 = 5.0
# eps0 / eps_c below this: shuffling hardly amplifies (n too small for the target)
LITTLE_AMPLIFICATION = 1.1
# relative MSE differences below this are within the eps0 searches' tolerance
CAP_COST_RESOLUTION = 1e-3


class InfeasiblePlan(ValueError):
    """No eps0 >= the search's floor meets the target; ``smallest_target`` is the smallest
    total epsilon reachable at this n (the proved composition at that floor).

    Examples
    --------
    >>> from mechanisms import InfeasiblePlan
    >>> issubclass(InfeasiblePlan, ValueError)
    True
    >>> err = InfeasiblePlan("no eps0 meets the target", smallest_target=0.8)
    >>> print(err, err.smallest_target)
    no eps0 meets the target 0.8
    """

    def __init__(self, message: str, smallest_target: Optional[float] = None) -> None:
        super().__init__(message)
        self.smallest_target = smallest_target


@dataclass(frozen=True)
class Candidate:
    """One point of the trade-off curve: mechanism, fixed t, the largest admissible
    eps0 and the exact MSEs there.

    ``t``: the output size of Collision / CoCo; for OLH its hash range g (screened as
    Collision's t; with user ``t_values`` the default round(e^eps0) + 1 at this eps0); for
    OUE the report's length k = d.  OLH / OUE estimate
    frequencies only: ``mse_mean`` is None and ``mse_item = mse_nonmissing``.
    ``report_bits``: the size of one report (:func:`report_bits_of`).

    ``source == "screen"``: eps0 from the saddle-point screen (an estimate placing the
    search, ``eps_c`` is None, ``proved`` False).  Otherwise eps0 was found on the proved
    bound and ``eps_c`` is its certified eps_c (one round) or composed eps (rounds)."""

    mechanism: str
    t: int
    eps0: float
    eps_c: Optional[float]
    mse: float
    mse_mean: Optional[float]
    mse_nonmissing: float
    mse_item: float
    source: str
    bound: str = "blanket"
    proved: bool = True
    report_bits: Optional[int] = None

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def kind(self):
        """The record of its kind (:class:`mechanisms.planning.kinds.Kind`)."""
        return planner_kind(self.mechanism)

    def describe(self) -> str:
        """The randomizer and its size, e.g. ``Collision t = 442``, ``OLH g = 8``, ``OUE``,
        ``subset selection size = 3``."""
        return self.kind.describe(self.t)

    def report(self) -> str:
        """What one user sends, e.g. ``62-bit hash seed + 3 bits = 65 bits`` (OLH)."""
        if self.report_bits is None:
            return "n/a"
        return self.kind.report(self.report_bits)


@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan`.

    ``candidates``: the trade-off curve (screen points and the proved finalists), sorted by
    mechanism then t.  ``recommendation``: the proved finalist with the smallest ``mse``
    (certified at the end).  ``sensitivity``: ``{n_half: Candidate, n_double: Candidate}``.
    ``rounds``: T (1 for a single round); ``schedule``: the users of each round when a
    schedule was given (``mse`` is then the per-round MSE at its smallest n).
    ``max_eps0``: the cap (None: none); ``uncapped``: the uncapped recommendation when a
    cap was given (to say what the cap costs).

    Examples
    --------
    >>> from mechanisms import plan
    >>> p = plan(1.0, 1e-6, n=10_000, d=64, s=2, mechanisms=("collision",), sensitivity=False)
    >>> print(type(p).__name__, p.rounds, p.recommendation.proved)
    Plan 1 True
    """

    target_eps: float
    delta: float
    n: int
    d: int
    s: int
    estimate: str
    candidates: tuple
    recommendation: Candidate
    sensitivity: dict = field(default_factory=dict)
    bound: str = "proved"
    rounds: int = 1
    schedule: Optional[tuple] = None
    max_eps0: Optional[float] = None
    uncapped: Optional[Candidate] = None

    @property
    def epsilon(self) -> Optional[float]:
        """The proved central epsilon of the whole release (one round or all rounds composed)."""
        return self.recommendation.eps_c

    @property
    def cap_cost(self) -> Optional[float]:
        """Relative extra MSE caused by the cap (0 when it does not bind), or None without a cap."""
        if self.uncapped is None:
            return None
        cost = self.recommendation.mse / self.uncapped.mse - 1.0
        # below the searches' own resolution (eps0 to rtol 1e-4): the cap does not bind
        return cost if cost > CAP_COST_RESOLUTION else 0.0

    def rows(self) -> list[dict]:
        """Candidates as flat dicts (for tables / CSV)."""
        out = []
        for c in self.candidates:
            r = {
                "n": self.n,
                "d": self.d,
                "s": self.s,
                "target_eps": self.target_eps,
                "delta": self.delta,
                "estimate": self.estimate,
                "rounds": self.rounds,
            }
            r.update(c.to_dict())
            r["recommended"] = c == self.recommendation
            out.append(r)
        return out

    def warnings(self) -> list[str]:
        """Plain-language cautions about the recommendation, each saying what would remove it.

        * eps0 > ``LOW_LOCAL_PROTECTION_EPS0``: each report alone is only eps0-LDP (remedy:
          the cap ``max_eps0``);
        * eps0 at the search's top (``EPS0_MAX``): the target holds for every eps0 tried
          (remedy: a smaller target);
        * eps0 / eps_c < ``LITTLE_AMPLIFICATION`` (one round): shuffling hardly amplifies
          (remedy: a larger n or a looser target);
        * MSE > s: noise dominates (remedy: n large enough, computed, or a looser target).
        """
        c = self.recommendation
        out = []
        capped = self.max_eps0 is not None and c.eps0 >= self.max_eps0 * (1 - 1e-6)
        if c.eps0 >= EPS0_MAX * (1 - 1e-6):
            out.append(
                f"The target holds for every local eps0 up to {EPS0_MAX:g}, the "
                f"planner's cap: the local randomizer gives practically no protection "
                f"on its own. To remove this: a smaller target eps, or a cap "
                f"(--max-eps0)."
            )
        elif c.eps0 > LOW_LOCAL_PROTECTION_EPS0:
            out.append(
                f"The recommended local eps0 = {fmt_down(c.eps0)} is above "
                f"{LOW_LOCAL_PROTECTION_EPS0:g}: each report alone allows a likelihood "
                f"ratio of up to e^eps0 ~ {fmt_up(math.exp(c.eps0), 3)} to whoever sees it "
                f"before shuffling; the central guarantee rests on the shuffler. To "
                f"remove this: cap the local budget (--max-eps0 {LOW_LOCAL_PROTECTION_EPS0:g}"
                f"; the plan then reports what the cap costs in error)."
            )
        if self.rounds == 1 and c.eps_c and c.eps0 / c.eps_c < LITTLE_AMPLIFICATION and not capped:
            out.append(
                f"Shuffling hardly helps here: eps0 / eps_c = {c.eps0 / c.eps_c:.3g} "
                f"(n = {self.n:,} is too small for this target; local DP alone gives "
                f"almost the same guarantee). To remove this: a larger n or a looser "
                f"target eps."
            )
        if c.mse > self.s:
            # MSE scales as 1/n at a fixed eps0, and eps0 only grows with n: sufficient n
            need = math.ceil(self.n * c.mse / self.s)
            out.append(
                f"The expected squared error {c.mse:.3g} exceeds s = {self.s}, the "
                f"largest squared norm of the {self.estimate} vector: at n = {self.n:,} "
                f"the estimate is dominated by noise. To remove this: n >= {need:,} "
                f"users per round (at least as large an eps0, so an MSE <= s), or a "
                f"looser target eps."
            )
        return out

    def sentence(self, n: Optional[int] = None) -> str:
        """One sentence for a design document: what to deploy and what it gives."""
        c = self.recommendation if n is None else self.sensitivity[n]
        nn = self.n if n is None else n
        what = (
            "mean-estimation" if self.estimate == "mean" else "frequency-estimation (non-missing)"
        )
        users = (
            f"{nn:,} users"
            if self.schedule is None
            else f"the schedule's rounds (smallest n = {nn:,})"
        )
        per = "" if self.rounds == 1 else " per round"
        release = (
            "the shuffled release" if self.rounds == 1 else f"the {self.rounds} rounds composed"
        )
        cap = "" if self.max_eps0 is None else f" (local cap eps0 <= {fmt_g(self.max_eps0)})"
        if self.bound == "proved":
            how = (
                f"proved upper bound eps_c = {fmt_up(c.eps_c)}, {c.bound}"
                if self.rounds == 1
                else f"proved PLD composition: eps = {fmt_up(c.eps_c)}"
            )
            return (
                f"With {users}, d = {self.d:,}, s = {self.s}, use "
                f"{_use(c)} and local eps0 = {fmt_down(c.eps0)}{per}{cap}: "
                f"{release} is ({fmt_g(self.target_eps)}, {fmt_g(self.delta)})-DP ({how}) and "
                f"the {what} MSE{per} is {c.mse:.4g}."
            )
        return (
            f"With {users}, d = {self.d:,}, s = {self.s}, use "
            f"{_use(c)} and local eps0 = {fmt_down(c.eps0)}{cap}: by the "
            f"paper's Theorem 5 the shuffled release is ({fmt_g(self.target_eps)}, "
            f"{fmt_g(self.delta)})-DP (eps_c = {fmt_up(c.eps_c)}; Theorem 5 is not proved for these "
            f"parameters, see the toolkit's README) and the {what} MSE is {c.mse:.4g}."
        )

    def as_dict(self) -> dict:
        """JSON-ready result (the ``plan`` command's ``--json``)."""
        r = self.recommendation
        out = {
            "mechanism": r.mechanism,
            "randomizer": r.describe(),
            "t": r.t,
            "report_bits": r.report_bits,
            "eps0": r.eps0,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "target_eps": self.target_eps,
            "mse": r.mse,
            "estimate": self.estimate,
            "n": self.n,
            "d": self.d,
            "s": self.s,
            "rounds": self.rounds,
            "schedule": None if self.schedule is None else list(self.schedule),
            "bound": self.bound,
            "max_eps0": self.max_eps0,
            "uncapped": None if self.uncapped is None else self.uncapped.to_dict(),
            "cap_cost": self.cap_cost,
            "recommendation": r.to_dict(),
            "candidates": [c.to_dict() for c in self.candidates],
            "sensitivity": {str(k): v.to_dict() for k, v in sorted(self.sensitivity.items())},
            "warnings": self.warnings(),
            "sentence": self.sentence(),
        }
        return out


def _use(c: Candidate) -> str:
    """``Collision with t = 442`` / ``OLH (optimized local hashing) with g = 8 (reports of
    65 bits)`` / ``OUE (optimized unary encoding, reports of k = 64 bits)``."""
    kind = c.kind
    return kind.use.format(label=kind.label, describe=c.describe(), t=c.t, bits=c.report_bits)


def fmt_g(x: float) -> str:
    return f"{x:g}"


def fmt_up(x: Optional[float], digits: int = 4) -> str:
    """x to ``digits`` significant digits, rounded up (an upper bound printed stays one)."""
    if x is None:
        return "n/a"
    return _directed(x, digits, math.ceil)


def fmt_down(x: float, digits: int = 4) -> str:
    """x to ``digits`` significant digits, rounded down (a local budget printed stays feasible)."""
    return _directed(x, digits, math.floor)


def _directed(x: float, digits: int, fn) -> str:
    """The one formatter with directed rounding (accountant.core.numfmt.fmt, on the exact
    binary value: a printed eps0 a user may copy is never above the planned one)."""
    from accountant.core.numfmt import fmt

    return fmt(x, digits, "up" if fn is math.ceil else "down", thousands=False)
