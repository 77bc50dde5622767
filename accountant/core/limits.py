"""Input limits and the error contract shared by both command lines and the dashboard.

Every command validates its inputs here before any work: a bad value raises
``ValueError`` naming the parameter and its valid range; an input whose work or
memory would exceed a documented limit is refused with the limit in the message.
:func:`guarded` turns the remaining failures (interrupts, SIGTERM, out of memory,
output errors, unreachable schedulers) into one line on stderr and an exit status.

Limits (docs/limits.md)
-------------------------
MAX_N
    users for the accountant (epsilon, delta, compare, local-epsilon, table, bib):
    memory grows with n (the peaks by n: docs/BENCHMARKS.md).
MAX_GRID_POINTS
    rows of ``table`` / ``figure`` (each row runs every requested bound); rows with
    n > LARGE_N (1e8) at most MAX_GRID_POINTS_LARGE_N (100): one such row takes seconds.
MAX_LIST
    entries of one list or ``start:stop:count`` range.
MAX_S_WALK
    sparsity s for ``local-epsilon`` with the default t-rule (the search walks the t values).
RANDOM_HASH_MAX_S
    sparsity s of Collision with ``hash_model="random"`` (the random-hash weights cost
    O(s^3) and the blanket is certified once per pair type, s of them; see
    docs/BENCHMARKS.md).
COCO_RANDOM_MAX_S
    sparsity s of CoCo with ``hash_model="random"`` (the pair weights of the O(s^2) pair
    types: O(s) products of matrices of up to 172 x 172, O(s^2) contractions and an O(s^4)
    free-pair sum; see docs/limits.md).
MAX_BIB_BALLS
    expected blanket balls k + n rho (or k + n p) of ``bib`` (time and memory grow with them;
    docs/BENCHMARKS.md).
MAX_SIM_CELLS
    n x d user-coordinate cells of one simulated run (memory: the n x d data and reports
    are materialised; the peak for PrivKV: docs/BENCHMARKS.md).
MAX_SIM_WORK
    n x d x reps summed over every simulated instance of one command (time).
MAX_SIM_MESSAGES_TOTAL
    messages x reps of one frequency-estimation command (time; a run of 3e8 messages
    takes about a minute).
MAX_SIM_MESSAGES, MAX_SIM_USERS, MAX_SIM_DOMAIN, MAX_SIM_CANDIDATES
    one run of FE0/FE1: messages n (1 + rho), users n, domain B (counters) and the
    preimages FE1's analyzer enumerates (about q/b per message).
MAX_FE_CELLS
    (n, B, eps) cells of ``fe-table``.
MAX_MIX_GROUPS
    groups of a mix (``epsilon --mix``, the dashboard), read from at most MAX_SCHEDULE_BYTES.
MAX_MATRIX_BYTES
    bytes of a matrix file (``--matrix``, the dashboard's uploader), checked before reading.
"""
from __future__ import annotations

import argparse
import math
import numbers
import os
import signal
import sys
from typing import Callable, Optional

from accountant.core.optional import MissingDependency

MAX_N = 10**10
MAX_GRID_POINTS = 2_000
LARGE_N = 10**8
MAX_GRID_POINTS_LARGE_N = 100
MAX_LIST = 1_000
MAX_S_WALK = 10_000
RANDOM_HASH_MAX_S = 1024
COCO_RANDOM_MAX_S = 128
MAX_SIM_CELLS = 5 * 10**7
MAX_SIM_MESSAGES = 3 * 10**8
MAX_BIB_BALLS = 10**12
MAX_SIM_WORK = 5 * 10**8
MAX_SIM_MESSAGES_TOTAL = 10**9
MAX_SIM_USERS = 3 * 10**7
MAX_SIM_DOMAIN = 10**7
MAX_SIM_CANDIDATES = 3 * 10**9
MAX_FE_CELLS = 100
MAX_REPS = 1_000
MAX_WORKERS = 256
EPS_MAX = 30.0
# The target delta every command, page and library function accepts: [DELTA_MIN, 1).
# Every engine serves it in bounded time and memory (windows in log space, narrowed to
# their cost limits); the epsilon command's --log-delta reaches further for the pair
# bounds, down to LOG_DELTA_MIN.
DELTA_MIN = 1e-300
# The local budget eps0 every command, page and function accepts: [EPS0_MIN, EPS_MAX].
# Below EPS0_MIN, e^-eps0 and 1 + eps0 are no longer distinct floats in the engines (the
# clone pair's c = e^-eps0 rounds to 1 at eps0 ~ 1e-16; simulations divide by e^eps0 - 1).
EPS0_MIN = 1e-10
# Variation-ratio's ratio bounds p and q are e^eps0 for an eps0-LDP randomizer (eps0 = ln p):
# the same range, [e^EPS0_MIN, e^EPS_MAX] (p = 1 + 1e-15 gave eps0 ~ 1e-15 and an empty
# engine window: "range() arg 3 must not be zero").
VR_RATIO_MIN = math.exp(EPS0_MIN)
VR_RATIO_MAX = math.exp(30.0)
LOG_DELTA_MIN = -10_000.0
# Composition: rounds of one command (--rounds, or the rounds of a schedule after
# "repeat"); the composed PLD's grid grows with the rounds (time and memory:
# docs/BENCHMARKS.md).
MAX_ROUNDS = 10_000
# the planner's rounds (--rounds, or a schedule's rounds after "repeat"): it inverts the
# composition estimate some 10-20 times and certifies 1-3 compositions, each an FFT
# composition of all the rounds (about ten times the time at ten times the rounds;
# docs/BENCHMARKS.md), so it plans at most this many
PLAN_MAX_ROUNDS = 2_000
# a schedule's rounds share one loss grid, whose step follows the round of most users (its
# privacy loss is the narrowest, ~1/sqrt(n)): a round of far fewer users then spans
# ~sqrt(n_max / n_min) times more grid points (a schedule of n = 1e10 and n = 1 planned in
# 122 s); the users of a schedule's rounds may differ by at most this factor
MAX_SCHEDULE_N_RATIO = 10**6
# a schedule file: at most this many bytes; JSON nesting deeper than MAX_NESTING refused
MAX_SCHEDULE_BYTES = 1_000_000
MAX_NESTING = 20
# a matrix file (--matrix, the Amplification page's uploader): at most this many bytes, the size
# checked before reading (a device or pipe without a size: at most one more byte is read); a
# matrix at the cell limit (4,000,000 entries) fits as .npy (32 MB) or as text of up to ~15
# characters an entry
MAX_MATRIX_BYTES = 64 * 2**20
# groups of a mix (epsilon --mix, the dashboard's mix editor): the certified lower bound pairs
# every group with every other (work grows with the square of the groups); the file is read
# to at most MAX_SCHEDULE_BYTES
MAX_MIX_GROUPS = 100
# loss-grid samples of one round's profile (support / --step); each sample is a
# certified divergence evaluation
MAX_PROFILE_SAMPLES = 4_000
# the Utility page's baseline curves (23 eps0 values x 5 baselines): their analytic errors
# are computed coordinate by coordinate (PrivKV: 20 s per eps0 at d = 1e7), so the curves
# are drawn for d up to this value and replaced by a note above it
MAX_BASELINE_D = 200_000
# an integer-valued parameter at most this large (s, t, k, m)
T_MAX = 2**31 - 1

EXIT_USAGE = 2
EXIT_FAILURE = 1
EXIT_INTERRUPT = 130
EXIT_TERM = 143
# stdout closed by its reader (`... | head -1`): 128 + SIGPIPE, what a shell reports for a
# writer that the signal ended (as EXIT_INTERRUPT and EXIT_TERM are 128 + the signal)
EXIT_PIPE = 141


def _g(x) -> str:
    """Compact range end: 1e10 rather than 10000000000."""
    if isinstance(x, int) and abs(x) >= 10**6 and x == 10 ** round(math.log10(abs(x))):
        return f"1e{round(math.log10(abs(x)))}"
    return f"{x:g}" if isinstance(x, float) else str(x)


def int_range(name: str, lo: int, hi: Optional[int] = None) -> str:
    return f"{name} must be an integer in [{_g(lo)}, {_g(hi)}]" if hi is not None else \
        f"{name} must be an integer >= {_g(lo)}"


def int_span(lo: int, hi: Optional[int] = None) -> str:
    """``>= lo`` or ``in [lo, hi]``, as the exact-integer checks of the bib protocol and of the
    mechanisms' analysis word it (no 1e6 shorthand: they name the bound digit for digit)."""
    return f">= {lo}" if hi is None else f"in [{lo}, {hi}]"


def int_in_span(name: str, v: int, lo: int, hi: Optional[int] = None) -> int:
    """``v`` (an int) when ``lo <= v <= hi`` (hi None: no upper end), else a ``ValueError``
    naming ``name`` and the span."""
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{name} must be an integer {int_span(lo, hi)}, got {v}")
    return v


def shown(value) -> str:
    """repr of a rejected value, cut to MAX_SHOWN characters (a 400-digit number stays one line)."""
    r = repr(value)
    return r if len(r) <= MAX_SHOWN else f"{r[:20]}...{r[-8:]} ({len(r)} characters)"


MAX_SHOWN = 40


def check_choice(action: argparse.Action, value) -> None:
    """argparse's choices check with the rejected value cut as :func:`shown` cuts it (a 100 kB
    ``--mechanism`` value is not echoed whole); the parsers' ``_check_value``."""
    if action.choices is not None and value not in action.choices:
        choices = ", ".join(map(repr, action.choices))
        raise argparse.ArgumentError(action, f"invalid choice: {shown(value)} (choose from {choices})")


def short_message(message: str) -> str:
    """A usage error with every word longer than 100 characters cut as :func:`shown` cuts a
    value (argparse's "unrecognized arguments: ..." echoes what it was given)."""
    return " ".join(w if len(w) <= 100 else f"{w[:20]}...{w[-8:]} ({len(w)} characters)"
                    for w in message.split(" "))


def _read_number(value, msg: str, max_len: Optional[int] = None):
    """``value`` with a string read as a float (at most ``max_len`` characters) and a bool
    refused: what :func:`check_int` and :func:`check_float` accept, ``msg`` their error."""
    if isinstance(value, str):
        if max_len is not None and len(value) > max_len:
            raise ValueError(msg)
        try:
            value = float(value.strip())
        except ValueError:
            raise ValueError(msg) from None
    if isinstance(value, bool):
        raise ValueError(msg)
    return value


def check_int(name: str, value, lo: int, hi: Optional[int] = None) -> int:
    """``value`` as an int in ``[lo, hi]`` (integral floats such as 1e8 accepted)."""
    msg = f"{int_range(name, lo, hi)}, got {shown(value)}"
    value = _read_number(value, msg, max_len=100)
    if isinstance(value, float):
        if not (math.isfinite(value) and value.is_integer()):
            raise ValueError(msg)
        value = int(value)
    if not isinstance(value, numbers.Integral):
        raise ValueError(msg)
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        raise ValueError(msg)
    return value


def check_float(name: str, value, lo: float, hi: float, *, lo_open: bool = False,
                hi_open: bool = False) -> float:
    """``value`` as a finite float in the interval (open ends as flagged)."""
    rng = f"{'(' if lo_open else '['}{_g(float(lo))}, {_g(float(hi))}{')' if hi_open else ']'}"
    msg = f"{name} must be a number in {rng}, got {shown(value)}"
    value = _read_number(value, msg)
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(msg) from None
    if not math.isfinite(v) or v < lo or v > hi or (lo_open and v == lo) or (hi_open and v == hi):
        raise ValueError(msg)
    return v


def numpy_scalars(*kinds: str) -> tuple:
    """NumPy's scalar types ``kinds`` (``"integer"``, ``"floating"``) for an isinstance check; ()
    while numpy is not imported, when no value can be one: the checks import no numerics."""
    np = sys.modules.get("numpy")
    return () if np is None else tuple(getattr(np, k) for k in kinds)


def check_positive_number(name: str, value, hi: float) -> float:
    """``value`` as a float in (0, hi]: a Python or NumPy number only (no string, no bool),
    else ValueError naming ``name`` and the range (the count laws' and the error formulas'
    eps0, up to 50 and 700)."""
    msg = f"{name} must be a finite number in (0, {hi:g}], got {value!r}"
    if isinstance(value, bool) or not isinstance(value, (int, float) + numpy_scalars("integer", "floating")):
        raise ValueError(msg)
    v = float(value)
    if not (math.isfinite(v) and 0.0 < v <= hi):
        raise ValueError(msg)
    return v


def check_delta(value, name: str = "delta") -> float:
    """The target delta in [DELTA_MIN, 1): the one range of every command and function."""
    return check_float(name, value, DELTA_MIN, 1.0, hi_open=True)


def check_eps0(value, name: str = "eps0") -> float:
    """The local budget eps0 in [EPS0_MIN, EPS_MAX]."""
    return check_float(name, value, EPS0_MIN, EPS_MAX)


def check_n(value, name: str = "n") -> int:
    """Users n in [1, MAX_N] (the library and every command)."""
    return check_int(name, value, 1, MAX_N)


def check_rounds(value, name: str = "rounds") -> int:
    """Composition rounds in [1, MAX_ROUNDS]."""
    return check_int(name, value, 1, MAX_ROUNDS)


def check_rtol(value, name: str = "rtol", lo: float = 1e-15, hi: float = 0.1) -> float:
    return check_float(name, value, lo, hi)


def int_arg(name: str, lo: int, hi: Optional[int] = None) -> Callable[[str], int]:
    """argparse ``type=`` that accepts 1e8 and names ``name`` and its range on error."""
    def parse(text: str) -> int:
        try:
            return check_int(name, text, lo, hi)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = name.lstrip("-")
    return parse


def float_arg(name: str, lo: float, hi: float, *, lo_open: bool = False,
              hi_open: bool = False) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            return check_float(name, text, lo, hi, lo_open=lo_open, hi_open=hi_open)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = name.lstrip("-")
    return parse


def _count(x: float) -> str:
    """50,000,001 for counts below 1e15 (exact), else 1.2e+20."""
    return f"{int(x):,}" if math.isfinite(x) and abs(x) < 1e15 else f"{x:.3g}"


def check_count(name: str, count: float, limit: float, what: str, hint: str = "") -> None:
    """Refuse work of size ``count`` above ``limit`` (message gives both)."""
    if not count <= limit:
        raise ValueError(f"{name}: {what} {_count(count)} exceeds the limit of {_count(limit)}"
                         + (f"; {hint}" if hint else ""))


def check_schedule_spread(name: str, ns) -> None:
    """Refuse a schedule whose rounds' users differ by more than ``MAX_SCHEDULE_N_RATIO``
    (before any work: the shared loss grid would hold too many points)."""
    lo, hi = min(ns), max(ns)
    if hi > MAX_SCHEDULE_N_RATIO * lo:
        raise ValueError(f"{name}: the rounds' users range from n = {lo:,} to n = {hi:,}; a schedule's "
                         f"largest n may be at most {MAX_SCHEDULE_N_RATIO:.0e} times its smallest "
                         "(they share one loss grid); compose the two groups separately and add "
                         "their epsilons and deltas (basic composition)")


def check_list_size(name: str, count: int) -> None:
    if not 1 <= count <= MAX_LIST:
        raise ValueError(f"{name} must have between 1 and {MAX_LIST} entries, got {count}")


def name_max(directory: str) -> int:
    """The longest file name (bytes) the file system of ``directory`` takes (255 where unknown)."""
    try:
        return int(os.pathconf(directory, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def check_name_length(path: str, name: str = "--out") -> None:
    """Refuse, before any work, an output path whose file name is longer (in bytes) than its
    file system's limit (:func:`name_max`), in one line naming ``name``."""
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    size = len(os.fsencode(base))
    limit = name_max(directory if os.path.isdir(directory) else ".")
    if size > limit:
        raise ValueError(f"{name}: the file name {base[:20]!r}... is {size} bytes long, more than the "
                         f"file system's limit of {limit} bytes; use a shorter name")


def check_output_writable(path: str, name: str = "--out") -> str:
    """Resolve ``path`` (through a symlink) and check it can be written, before any work.

    Returns the path to write (the symlink's target if ``path`` is a symlink, so the link
    is kept).  Raises ValueError naming ``name`` otherwise.
    """
    if not path:
        raise ValueError(f"{name} must be a file path, got {path!r}")
    check_name_length(path, name)
    target = os.path.realpath(path) if os.path.islink(path) else path
    if os.path.islink(path) and not os.path.exists(target) and not os.path.isdir(
            os.path.dirname(target) or "."):
        raise ValueError(f"{name}: symlink {path!r} points into a missing directory")
    d = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(d):
        raise ValueError(f"{name}: directory {d!r} does not exist")
    if os.path.isdir(target):
        raise ValueError(f"{name}: {path!r} is a directory, expected a file path")
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise ValueError(f"{name}: file {target!r} is not writable")
    import tempfile

    try:  # a real probe: os.access is wrong for root, read-only mounts and /proc
        fd, probe = tempfile.mkstemp(dir=d, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{name}: cannot write in directory {d!r} ({exc.strerror or exc})") from None
    return target


class _Terminated(BaseException):
    """Raised in the main thread on SIGTERM so that every ``finally`` runs."""


def _on_sigterm(signum, frame):  # pragma: no cover - exercised by subprocess tests
    raise _Terminated()


def guarded(fn: Callable[[], int]) -> int:
    """Run a command body under the error contract; returns the exit status.

    ValueError -> 2 (bad input, one line); a missing optional package -> 2 (one line
    naming what to install, :mod:`accountant.core.optional`); OSError, MemoryError, unreachable scheduler
    -> 1 (one line); KeyboardInterrupt -> 130 with "interrupted"; SIGTERM -> 143; stdout
    closed by its reader (BrokenPipeError) -> 141, silently.
    No traceback reaches the user.
    """
    old = old_int = None
    try:
        old = signal.signal(signal.SIGTERM, _on_sigterm)
        # Ctrl-C even when started as a background job (`cmd &`, nohup), which inherits
        # SIGINT ignored: Python then leaves it ignored and the command could not be stopped
        old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread
        pass
    try:
        code = fn()
        sys.stdout.flush()  # a closed pipe shows here, not at exit as "Exception ignored"
        return code
    except BrokenPipeError:  # `... | head -1`: the reader has gone; nothing more to say
        _stdout_to_devnull()
        return EXIT_PIPE
    except (ValueError, MissingDependency) as exc:
        _say(exc)
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return EXIT_INTERRUPT
    except _Terminated:
        sys.stderr.write("\nterminated\n")
        return EXIT_TERM
    except MemoryError:
        sys.stderr.write("error: out of memory; use smaller inputs (docs/limits.md)\n")
        return EXIT_FAILURE
    except OSError as exc:
        _say(exc)
        return EXIT_FAILURE
    except Exception as exc:  # unreachable scheduler (TimeoutError, CommClosedError, ...)
        if type(exc).__module__.split(".")[0] in ("distributed", "dask", "tornado", "asyncio"):
            sys.stderr.write(f"error: --scheduler: {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else 'unreachable'}\n")
            return EXIT_FAILURE
        raise
    finally:
        for signum, handler in ((signal.SIGTERM, old), (signal.SIGINT, old_int)):
            if handler is not None:
                try:
                    signal.signal(signum, handler)
                except (ValueError, TypeError):
                    pass


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of a closed pipe is silent
    (the Python documentation's advice on SIGPIPE: the signal module, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (captured output)
        pass


def _say(exc: BaseException) -> None:
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if not msg.startswith("error: "):
        msg = "error: " + msg
    sys.stderr.write(msg + "\n")


def worker_init() -> None:
    """Pool worker initializer: ignore Ctrl-C (the parent stops the pool) and die with
    the parent (Linux PR_SET_PDEATHSIG; elsewhere a watchdog thread polls the parent)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # parent died before prctl
            os._exit(1)
        return
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    import threading
    import time

    def watch() -> None:  # pragma: no cover - not Linux
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True).start()


def check_sim_size(n: int, d: int, reps: int, instances: int = 1) -> None:
    """Refuse a sparse-vector simulation whose memory (n x d per run) or total work
    (n x d x reps x instances) exceeds MAX_SIM_CELLS / MAX_SIM_WORK."""
    check_int("reps", reps, 1, MAX_REPS)
    # memory: the randomisers hold arrays of size d and t ~ 3 s per run, whatever n is
    # (d = 5e7 with s = d at n = 1 peaked above 2.4 GB)
    check_int("d", d, 1, MAX_SIM_DOMAIN)
    check_count("n x d", float(n) * float(d), MAX_SIM_CELLS, "user-coordinate cells per run",
                "lower n or d")
    check_count("n x d x reps", float(n) * float(d) * reps * instances, MAX_SIM_WORK,
                "simulated cells in total", "lower n, d, reps or the number of grid points")


def fe_refusal(cost: dict, reps: int = 1) -> Optional[str]:
    """Why a FE0/FE1 simulation of this size is refused (None: within the limits).

    ``cost`` is ``protocol.simulation_cost()`` (one run)."""
    if cost["users"] > MAX_SIM_USERS:
        return f"n = {cost['users']:,} users is more than the limit of {MAX_SIM_USERS:,} (memory); lower n"
    if cost["domain"] > MAX_SIM_DOMAIN:
        return f"B = {cost['domain']:,} is more than the limit of {MAX_SIM_DOMAIN:,} (memory); lower B"
    if cost["messages"] > MAX_SIM_MESSAGES:
        return (f"one run would generate about {cost['messages']:.3g} messages (n (1 + rho)), more "
                f"than the limit of {MAX_SIM_MESSAGES:.0e}; lower n or rho, or raise eps")
    if cost["candidates"] > MAX_SIM_CANDIDATES:
        return (f"FE1's analyzer would enumerate about {cost['candidates']:.3g} preimages per run "
                f"(about q/b per message), more than the limit of {MAX_SIM_CANDIDATES:.0e}; raise b or lower n")
    if cost["messages"] * reps > MAX_SIM_MESSAGES_TOTAL:
        return (f"reps x messages = {cost['messages'] * reps:.3g} is more than the limit of "
                f"{MAX_SIM_MESSAGES_TOTAL:.0e}; lower reps or n")
    return None


# one argparse helper per parameter, shared by every command
def delta_arg(name: str = "--delta") -> Callable[[str], float]:
    return float_arg(name, DELTA_MIN, 1.0, hi_open=True)


def n_arg(name: str = "--n") -> Callable[[str], int]:
    return int_arg(name, 1, MAX_N)


def vr_ratio_range(name: str) -> str:
    """The words of variation-ratio's p/q range (library and command lines alike)."""
    return (f"{name} must be a number in (1, {VR_RATIO_MAX:.10g}], at least e^1e-10 = {VR_RATIO_MIN!r} "
            f"({name} is e^eps0 for an eps0-LDP randomizer: ln {name.lstrip('-')} in [1e-10, 30], "
            f"the eps0 range)")


def check_vr_ratio(name: str, value) -> float:
    """Variation-ratio's p or q in [VR_RATIO_MIN, VR_RATIO_MAX] = [e^1e-10, e^30]: e^eps0 with
    eps0 in the eps0 range of every command (ValueError naming ``name`` otherwise)."""
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real)
    x = float(value) if ok else math.nan
    if not (ok and VR_RATIO_MIN <= x <= VR_RATIO_MAX):
        raise ValueError(f"{vr_ratio_range(name)}, got {value!r}")
    return x


def eps0_arg(name: str = "--eps0") -> Callable[[str], float]:
    return float_arg(name, EPS0_MIN, EPS_MAX)


def eps_arg(name: str = "--eps (central epsilon)") -> Callable[[str], float]:
    """A central epsilon at which delta is asked: [0, EPS_MAX] (at 0 the answer is the total
    variation distance of the neighbouring outputs).  A *target* epsilon that a search must
    reach (local-epsilon, plan) is (0, EPS_MAX]."""
    return float_arg(name, 0.0, EPS_MAX)
