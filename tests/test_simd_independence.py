"""Printed numbers do not depend on the CPU's vector instructions.

numpy dispatches its sorts, sums and transcendental loops to the widest instruction set
the CPU has (AVX2, AVX-512 ...); another machine takes another loop, and a float result
may differ in its last bits (a tie between two datasets sorted the other way, an upward
rounding at the tenth digit flipped).  ``NPY_DISABLE_CPU_FEATURES`` makes numpy take the
baseline loops, i.e. behave as on an older CPU: the commands below must print the same
text both ways (the console examples in the docs are checked on this machine only).
"""
import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT


PROBE = ("from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__;"
         "print(' '.join(f for f in __cpu_dispatch__ if __cpu_features__.get(f)))")


def _dispatched():
    """The CPU features numpy dispatches to on this CPU, above its compiled baseline
    (asked of a fresh interpreter without the variable, so that a suite run with it set
    still compares the two kinds of loop)."""
    return _run(["-c", PROBE]).split()


def _run(argv, disable=None):
    env = dict(os.environ)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if disable:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disable)
    p = subprocess.run([sys.executable, *argv], cwd=REPO_ROOT, env=env, capture_output=True,
                       text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_the_variable_turns_the_dispatched_features_off():
    features = _dispatched()
    assert features, ("numpy dispatches to no feature above its baseline on this CPU: "
                      "these tests cannot tell two kinds of machine apart here")
    assert _run(["-c", PROBE], disable=features).split() == []


COMMANDS = [
    ["-m", "accountant", "epsilon", "--n", "1e5", "--delta", "1e-7", "--mechanism", "finite",
     "--matrix", "docs/examples/rare-output.json"],
    ["-m", "accountant", "epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
     "--matrix", "docs/examples/three-way.json"],
    ["-m", "accountant", "epsilon", "--mechanism", "gaussian", "--sigma", "2", "--n", "1000",
     "--delta", "1e-6"],
    ["-m", "accountant", "epsilon", "--n", "1e6", "--eps0", "4", "--delta", "1e-8",
     "--mechanism", "collision", "--s", "8"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[3:]))
def test_printed_text_is_the_same_with_baseline_loops(argv):
    features = _dispatched()
    assert features, "numpy dispatches to no feature above its baseline on this CPU"
    assert _run(argv, disable=features) == _run(argv)
