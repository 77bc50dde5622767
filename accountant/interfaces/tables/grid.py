"""Grids of points and their rows: list parsing, the t rule, the product of inputs, run-time
estimates and the computation of every requested bound per point (threads, worker processes or
a Dask cluster).  The computing half of the tables package; the exporting half is elsewhere.
"""
from __future__ import annotations
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Optional, Sequence
from accountant.bounds.laws.random_hash import check_hash_model
from accountant.bounds.registry import BOUND_NAMES, best_proved, compare_params
from accountant.bounds.published import best_published, published_bounds
from accountant.core.params import MECHANISM_SPECS, make_params, mechanism_names, mechanism_spec, mechanisms_with_option
from accountant.core.limits import MAX_LIST, worker_init
from accountant.core.optional import require
from accountant.core.rules import coco_theorem7_t
from accountant.interfaces.progress import ProgressBar


def parse_list(text: str, kind: Callable = float, name: str = "value") -> list:
    """'1,2,3' or 'start:stop:count' (inclusive, evenly spaced) into a list."""
    text = str(text).strip()
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) != 3:
                raise ValueError
            a, b, cf = float(parts[0]), float(parts[1]), float(parts[2])
            if not (math.isfinite(cf) and cf.is_integer() and 1 <= cf):
                raise ValueError
            c = int(cf)
            if c > MAX_LIST:
                raise OverflowError
            if c > 1 and not a < b:
                raise ArithmeticError
            vals = [a + (b - a) * i / (c - 1) for i in range(c)] if c > 1 else [a]
        else:
            vals = [float(x) for x in text.split(",") if x.strip()]
        if not vals:
            raise ValueError
    except OverflowError:
        raise ValueError(f"{name}: a range has at most {MAX_LIST} points, got {text!r}") from None
    except ArithmeticError:
        raise ValueError(f"{name}: range start:stop:count needs start < stop, got {text!r}") from None
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list or start:stop:count, got {text!r}") from None
    if len(vals) > MAX_LIST:
        raise ValueError(f"{name}: a list has at most {MAX_LIST} entries, got {len(vals)}")
    if not all(math.isfinite(v) for v in vals):
        raise ValueError(f"{name} must be finite numbers, got {text!r}")
    if kind is int:
        if not all(math.isfinite(v) and float(v).is_integer() for v in vals):
            raise ValueError(f"{name} must be integers, got {text!r}")
        return [int(v) for v in vals]
    return [float(v) for v in vals]


# the t rules named after the mechanism they come from, for either mechanism with a t
_NAMED_T_RULES = {"coco": coco_theorem7_t}


def resolve_t(rule: str, mechanism: str, s: Optional[int], eps0: float) -> Optional[int]:
    """t for one grid point: 'paper' (the mechanism's own rule: Collision's t*, CoCo's Theorem 7),
    'coco' (Theorem 7, the rule of the mechanism named) or 'fixed:T' (None for the mechanisms
    without an output size t: generic, k-RR, RR, OLH, OUE)."""
    spec = MECHANISM_SPECS.get(mechanism)
    if spec is None or spec.default_t is None:
        return None
    if rule == "paper":
        return spec.default_t(s, eps0)
    if rule in _NAMED_T_RULES:
        return _NAMED_T_RULES[rule](s, eps0)
    if rule.startswith("fixed:"):
        try:
            return int(rule.split(":", 1)[1])
        except ValueError:
            pass
    raise ValueError(f"t-rule must be paper, coco or fixed:T (T an integer), got {rule!r}")


@dataclass(frozen=True)
class GridPoint:
    n: int
    s: Optional[int]
    eps0: float
    delta: float
    t: Optional[int]
    mechanism: str
    k: Optional[int] = None  # the domain size of k-RR, OLH and OUE
    d: Optional[int] = None  # Collision / CoCo: the dimension the lower bound's datasets live in
    # variation-ratio: Wang et al.'s (p, beta, q) (eps0 = ln p)
    p: Optional[float] = None
    beta: Optional[float] = None
    q: Optional[float] = None
    # "any" (proved for every hash family) or "random" (Collision, CoCo, OLH: proved assuming each
    # report's hash is a uniformly random function; accountant.bounds.laws.random_hash)
    hash_model: str = "any"
    # finite: the randomizer as its matrix (eps0 is the matrix's)
    randomizer: Optional[object] = None

    def params(self, d: Optional[int] = None):
        """The accountant's parameters of this point (finite: the matrix itself); ``d``: the
        dimension of the lower bounds' datasets (Collision, CoCo)."""
        if self.randomizer is not None:
            return self.randomizer
        eps0 = self.eps0 if mechanism_spec(self.mechanism).eps0_given else None  # variation-ratio: ln p
        return make_params(self.mechanism, eps0, s=self.s, t=self.t, k=self.k, d=d, p=self.p,
                           beta=self.beta, q=self.q, hash_model=self.hash_model)


# mechanisms whose grid has a list of domain sizes k
KEYED = mechanism_names(keyed=True)


def finite_grid(ns: Sequence[int], deltas: Sequence[float], randomizers: Sequence) -> list[GridPoint]:
    """The points of finite randomizers (``FiniteRandomizer``: a matrix, or catalogue members
    at several k and eps0): each randomizer at every n and delta; eps0 is the matrix's and k
    its number of inputs."""
    return [GridPoint(int(n), None, R.eps0, float(delta), None, "finite", R.k, randomizer=R)
            for R in randomizers for n in ns for delta in deltas]


def build_grid(ns: Sequence[int], ss: Sequence[Optional[int]], eps0s: Sequence[float],
               deltas: Sequence[float], mechanism: str, t_rule: str = "paper",
               ks: Sequence[Optional[int]] = (None,), d: Optional[int] = None,
               vr: Optional[tuple] = None, hash_model: str = "any") -> list[GridPoint]:
    """Every combination of the lists (``ss`` for Collision/CoCo, ``ks`` for k-RR, OLH, OUE); ``d``
    (Collision/CoCo) is the dimension of the data, which only the lower bound depends on.
    ``vr = (p, beta, q)``: the one variation-ratio randomizer of the grid (q None: q = p);
    its eps0 is ln p and ``eps0s`` is ignored.  ``hash_model`` ``"random"`` (Collision, CoCo, OLH
    only) is the assumption every row is proved under."""
    check_hash_model(hash_model, mechanism)
    if not mechanism_spec(mechanism).eps0_given:  # variation-ratio: one randomizer, eps0 = ln p
        if vr is None:
            raise ValueError(f"{mechanism} needs vr = (p, beta, q)")
        par = make_params(mechanism, None, p=vr[0], beta=vr[1], q=vr[2])
        return [GridPoint(int(n), None, par.eps0, float(delta), None, mechanism, None, None,
                          par.p, par.beta, par.q) for n in ns for delta in deltas]
    if mechanism not in mechanisms_with_option("s"):
        ss, d = [None], None
    if mechanism not in KEYED:
        ks = [None]
    pts = []
    for n in ns:
        for s in ss:
            for k in ks:
                for delta in deltas:
                    for e0 in eps0s:
                        pts.append(GridPoint(int(n), s, float(e0), float(delta),
                                             resolve_t(t_rule, mechanism, s, e0), mechanism, k, d,
                                             hash_model=hash_model))
    return pts


# a cost model of one row on this class of machine (2 cores; with the
# paper's bounds and with every bound: 1.6-6.9 s a row at delta = 1e-300, n = 1e4-1e5;
# 0.05-0.3 s a row at delta = 1e-6): an upper estimate that places a budget, not a promise
DEEP_DELTA = 1e-100
SECONDS_PER_DEEP_ROW = 15.0  # one Table row at delta = 1e-300, n = 1e5: 14 s on a loaded machine
SECONDS_PER_ROW = 0.5


def row_seconds(delta: float, base: float = SECONDS_PER_ROW) -> float:
    """A rough upper estimate of one row's seconds on one core: from ``SECONDS_PER_ROW`` at
    moderate delta up to ``SECONDS_PER_DEEP_ROW`` at 1e-300, linear in log(1/delta) (the exact
    sums run into the tail; the timings behind the two constants: docs/BENCHMARKS.md)."""
    depth = min(1.0, max(0.0, -math.log10(delta)) / 300.0)
    return base + (SECONDS_PER_DEEP_ROW - SECONDS_PER_ROW) * depth


def estimate_seconds(points: Sequence[GridPoint], base: float = SECONDS_PER_ROW) -> float:
    """A rough upper estimate of the time :func:`compute_table` takes for ``points`` on one
    core (:func:`row_seconds` per row: deep-tail rows cost the most); ``base``: a row's cost at
    moderate delta (a chart's point, a few curves, costs far less than a table's row)."""
    return sum(row_seconds(p.delta, base) for p in points)


def _lower_d(point: GridPoint) -> Optional[int]:
    """The dimension the lower bounds of Collision/CoCo are computed for: without one, d = 3s,
    the smallest d their datasets (three disjoint s-sets) need (they then hold for every
    d >= 3s); with the point's d they hold for that d (refused, with the reason, when d < 3s)."""
    if point.mechanism not in mechanisms_with_option("d"):
        return None
    return point.d if point.d is not None else 3 * point.s


def _compare(point: GridPoint, bounds: Sequence[str], rtol: float) -> dict:
    """The results of ``bounds`` at ``point`` (name -> BoundResult)."""
    return compare_params(point.params(d=_lower_d(point)), point.n, point.delta, bounds, rtol)


def _bound_result(point: GridPoint, bound, rtol: float):
    """One bound's result at one point (a task of :func:`compute_rows`); ``bound`` may be a
    tuple of names (the closed forms of a point, one task together)."""
    return _compare(point, bound if isinstance(bound, tuple) else (bound,), rtol)


def _bound_task(task: tuple) -> dict:
    """:func:`_bound_result` of ``(point, bound, rtol)``: module level, so that worker
    processes can run it."""
    return _bound_result(*task)


def compute_row(point: GridPoint, bounds: Sequence[str] = BOUND_NAMES, rtol: float = 1e-9) -> dict:
    """One table row: inputs, the proved number first, each bound's eps_c (None if not
    applicable), ratios, saving."""
    return _assemble_row(point, _compare(point, bounds, rtol))


# what the worker processes import before their first task (the pool is started once)
_PRELOAD = ("accountant", "accountant.interfaces.tables")

# bounds whose searches cost the most, first in compute_rows' queue (longest task first keeps
# both threads busy to the end)
_COSTLY_FIRST = ("blanket", "lower", "paper", "theorem6-lower", "lower-worst-hash")


@dataclass
class RowsJob:
    """Rows started on the worker processes (:func:`start_rows`), collected by
    :func:`finish_rows`: the points, the bounds' names, one task per (point, bound) and
    the tasks' futures (None: the tasks run on threads when the rows are collected)."""

    points: tuple
    names: list
    tasks: list
    work: list
    futures: Optional[list]


def _plan(points: Sequence[GridPoint], bounds: Sequence[str], rtol: float) -> tuple[list, list, list]:
    """(names, tasks, work): one task per (point, bound), the costliest bounds first."""
    from accountant.bounds.registry import resolve_name

    from accountant.bounds.registry import REGISTRY

    names = list(dict.fromkeys(resolve_name(b) for b in bounds))
    # the closed forms (about a millisecond each) of a point go together in one task: one
    # message to a worker instead of one per bound
    cheap = tuple(b for b in names if REGISTRY[b].engine == "closed-form")
    order = sorted([b for b in names if b not in cheap],
                   key=lambda b: _COSTLY_FIRST.index(b) if b in _COSTLY_FIRST else len(_COSTLY_FIRST))
    order += [cheap] if len(cheap) > 1 else list(cheap)
    tasks = [(i, b) for b in order for i in range(len(points))]
    return names, tasks, [(points[i], b, rtol) for i, b in tasks]


def _rows(points: Sequence[GridPoint], names: list, tasks: list, results: list) -> list[dict]:
    per_point: list[dict] = [{} for _ in points]
    for (i, b), res in zip(tasks, results):
        per_point[i].update(res)
    return [_assemble_row(p, {b: per_point[i][b] for b in names}) for i, p in enumerate(points)]


def start_rows(points: Sequence[GridPoint], bounds: Sequence[str] = BOUND_NAMES,
               rtol: float = 1e-9) -> RowsJob:
    """Start the rows of :func:`compute_rows` on the worker processes and return at once
    (the dashboard starts its chart's first points, then computes its headline); the
    arguments are checked as by :func:`compute_rows`."""
    from accountant.engines import parallel

    names, tasks, work = _plan(points, bounds, rtol)
    futures = parallel.submit_processes(_bound_task, work, preload=_PRELOAD) if len(work) > 1 else None
    return RowsJob(tuple(points), names, tasks, work, futures)


def finish_rows(job: RowsJob, progress: Optional[Callable[[int, int], None]] = None) -> list[dict]:
    """The rows of a :func:`start_rows` job (the tasks run on threads if they could not be
    started on processes); ``progress(done, total)`` counts tasks."""
    from accountant.engines import parallel

    results = parallel.gather_processes(_bound_task, job.work, job.futures, progress)
    return _rows(job.points, job.names, job.tasks, results)


def compute_rows(points: Sequence[GridPoint], bounds: Sequence[str] = BOUND_NAMES, rtol: float = 1e-9,
                 progress: Optional[Callable[[int, int], None]] = None,
                 processes: bool = False) -> list[dict]:
    """:func:`compute_row` for every point, with one task per (point, bound) on the engines'
    threads (:mod:`accountant.engines.parallel`), the costliest bounds queued first: a chart's
    25 points x 5 bounds keep two threads busy to the end, where one task per point left one
    thread idle behind the slowest point.  ``progress(done, total)`` counts tasks.

    ``processes=True`` runs the tasks on the persistent worker processes
    (:func:`start_rows`, :func:`finish_rows`; the searches hold the GIL, so two processes
    are about twice as fast as two threads: the dashboard uses them).  The rows are the
    same; the command line keeps threads (a one-off command would pay the pool's start,
    about 0.4 s)."""
    from accountant.engines import parallel

    if processes:
        return finish_rows(start_rows(points, bounds, rtol), progress)
    names, tasks, work = _plan(points, bounds, rtol)
    return _rows(points, names, tasks, parallel.map_ordered(_bound_task, work, progress=progress))


def _assemble_row(point: GridPoint, res: dict) -> dict:
    """The row of ``point`` from its bounds' results (``res``: name -> BoundResult)."""
    d = _lower_d(point)
    names = list(res)
    row: dict = {"mechanism": point.mechanism, "n": point.n, "s": point.s, "t": point.t,
                 **({"k": point.k} if point.k is not None else {}),
                 **({"p": point.p, "beta": point.beta, "q": point.q} if point.p is not None else {}),
                 **({"matrix": point.randomizer.label} if point.randomizer is not None else {}),
                 "eps0": point.eps0, "delta": point.delta,
                 # the assumption every number of a random-hash row is proved under
                 **({"hash_model": "random"} if point.hash_model == "random" else {})}
    proved = best_proved(res, point.mechanism)
    row["proved_epsilon"] = proved.epsilon if proved else None
    row["best_proved"] = proved.name if proved else None
    lower = res.get("lower")
    paper = res.get("paper")
    row["lower_epsilon"] = lower.epsilon if lower is not None and lower.applicable else None
    row["paper_epsilon"] = paper.epsilon if paper is not None and paper.applicable else None
    pe, le, ae = row["proved_epsilon"], row["lower_epsilon"], row["paper_epsilon"]
    row["proved_over_paper"] = pe / ae if pe and ae else None
    row["proved_over_lower"] = pe / le if pe and le else None
    for b in names:
        row[b] = res[b].epsilon if res[b].applicable else None
    for b in names:
        e = row[b]
        row[f"log2_ratio[{b}]"] = math.log2(point.eps0 / e) if e else None
    # the best published proved bound (accountant.bounds.published: one definition for the
    # pages, the files and the CLI); not available unless every published bound was computed
    literature = None
    if all(b in res for b in published_bounds(point.mechanism)):
        literature = best_published(res, point.mechanism)
    if proved is not None and literature is not None and literature.epsilon > 0:
        row["best_literature"] = literature.name
        row["literature_epsilon"] = literature.epsilon
        row["saving_percent"] = 100.0 * (literature.epsilon - proved.epsilon) / literature.epsilon
    else:
        row["best_literature"] = None
        row["literature_epsilon"] = None
        row["saving_percent"] = None
    row["reasons"] = {b: res[b].reason for b in names if not res[b].applicable}
    row["achieved_delta"] = {b: res[b].achieved_delta for b in names if res[b].applicable}
    row["lower_for"] = (None if d is None else "every d >= 3s" if point.d is None else f"d = {point.d}")
    return row


def compute_table(points: Sequence[GridPoint], bounds: Sequence[str] = BOUND_NAMES, rtol: float = 1e-9,
                  workers: Optional[int] = None, scheduler: Optional[str] = None,
                  progress: bool = True) -> list[dict]:
    """All rows, in grid order.  ``workers`` processes (default: all cores; 1 = in
    process), or the Dask distributed scheduler at ``scheduler``."""
    bounds = tuple(bounds)
    total = len(points)
    bar = ProgressBar(total, "rows") if progress else None
    rows: list[Optional[dict]] = [None] * total
    if scheduler:
        require("distributed", "--scheduler (a Dask cluster)")
        from dask.distributed import Client, as_completed
        try:
            client = Client(scheduler, timeout="5s")
        except (OSError, ValueError, TypeError) as exc:  # unreachable or malformed address: bad input
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ValueError(f"--scheduler: cannot connect to {scheduler!r}: {msg}") from None
        except MemoryError:  # something answered, but not Dask's protocol (a frame length of exabytes)
            raise ValueError(f"--scheduler: {scheduler!r} does not answer as a Dask scheduler") from None
        with client:
            futs = client.map(compute_row, list(points), bounds=bounds, rtol=rtol, pure=False)
            index = {f.key: i for i, f in enumerate(futs)}
            for done, fut in enumerate(as_completed(futs), 1):
                rows[index[fut.key]] = fut.result()
                if bar is not None:
                    bar.update(done)
        return rows  # type: ignore[return-value]
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers}")
    if workers == 1 or total <= 1:
        for i, p in enumerate(points):
            rows[i] = compute_row(p, bounds, rtol)
            if bar is not None:
                bar.update(i + 1)
        return rows  # type: ignore[return-value]
    ex = ProcessPoolExecutor(max_workers=min(workers, total), initializer=worker_init)
    try:
        futs = {ex.submit(compute_row, p, bounds, rtol): i for i, p in enumerate(points)}
        from concurrent.futures import as_completed as cf_completed

        for done, fut in enumerate(cf_completed(futs), 1):
            rows[futs[fut]] = fut.result()
            if bar is not None:
                bar.update(done)
    except BaseException:  # Ctrl-C, SIGTERM, a failed row: stop the pool now, not after the grid
        _kill_pool(ex)
        raise
    ex.shutdown(wait=True)
    return rows  # type: ignore[return-value]


def _kill_pool(ex: ProcessPoolExecutor) -> None:
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    for p in procs:
        try:
            p.join(timeout=2)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass
    # the executor's manager thread closes its wake-up pipe as it ends; the interpreter's exit
    # hook (concurrent.futures.process._python_exit) writes to that pipe without a lock, so an
    # exit while the thread is still closing it raises EBADF in the hook: wait for the thread
    manager = getattr(ex, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=5)
