"""One BLAS thread in every test process and every command a test starts.

pytest-xdist runs one worker per core; OpenBLAS's own threads in each worker only contend for
the same cores and spin while they wait (the project measured 3x the CPU time of the OUE
curve's matrix products; a `users` search at 1000 rounds took 8.1 s of CPU with the default
and 4.7 s with one thread, load 8).  Set before NumPy is first imported (OpenBLAS reads it once
at load), and inherited by the subprocesses; a value the caller set is kept.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
