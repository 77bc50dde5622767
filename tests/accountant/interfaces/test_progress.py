"""accountant.interfaces.progress.ProgressBar: silent for quick runs, estimate, one final newline."""
import io

from accountant.interfaces.progress import ProgressBar


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_quick_run_draws_nothing():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(5, "rows", stream=out, clock=clock)
    for i in range(1, 6):
        clock.t += 0.1
        bar.update(i)
    bar.close()
    assert out.getvalue() == ""


def test_slow_run_draws_bar_estimate_and_one_newline():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(4, "cells", stream=out, clock=clock)
    clock.t += 2.0
    bar.update(1)  # 2 s for 1 of 4: about 6 s left
    assert out.getvalue() == "\r[#######.......................] 1/4 cells, 2.0s, about 6s left"
    clock.t += 0.1
    bar.update(2)  # within the 0.25 s redraw interval: not drawn
    assert out.getvalue().count("\r") == 1
    clock.t += 2.0
    bar.update(4)
    bar.close()  # already finished: no second newline
    text = out.getvalue()
    assert text.endswith("\r[##############################] 4/4 cells, 4.1s\n")
    assert text.count("\n") == 1


def test_close_ends_an_unfinished_line_and_total_can_change():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(0, "cells", stream=out, clock=clock)
    clock.t += 1.5
    bar(1, 10)  # callable as progress(done, total)
    bar.close()
    assert out.getvalue().startswith("\r[###...") and "1/10 cells" in out.getvalue()
    assert out.getvalue().endswith("\n") and out.getvalue().count("\n") == 1


def test_compare_reports_every_cell():
    from mechanisms.evaluation.simulate import compare

    calls = []
    res = compare(200, 16, [2], [1.0, 2.0], reps=1, seed=0, mechanisms=["collision", "coco"],
                  progress=lambda k, tot: calls.append((k, tot)))
    assert calls == [(k, 4) for k in range(1, 5)] and len(res["rows"]) == 4


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _slow_run(bar, clock):
    clock.t += 2.0
    bar.update(1)
    clock.t += 2.0
    bar.update(4)
    bar.close()


def test_default_stream_draws_only_on_a_terminal(monkeypatch):
    """Issue 44 item 6: a captured or redirected stderr (CI logs, ``2> file``) gets no bar."""
    import sys

    log, clock = io.StringIO(), Clock()
    monkeypatch.setattr(sys, "stderr", log)
    bar = ProgressBar(4, "rows", clock=clock)
    _slow_run(bar, clock)
    assert not bar.enabled and log.getvalue() == ""
    tty, clock = _Terminal(), Clock()
    monkeypatch.setattr(sys, "stderr", tty)
    bar = ProgressBar(4, "rows", clock=clock)
    _slow_run(bar, clock)
    assert bar.enabled and tty.getvalue().count("\r") == 2 and tty.getvalue().endswith("4/4 rows, 4.0s\n")


def test_table_command_writes_no_bar_into_a_captured_log(tmp_path):
    import subprocess
    import sys

    from tests.paths import REPO_ROOT

    r = subprocess.run([sys.executable, "-m", "accountant", "table", "--n", "1e6", "--eps0", "0.1:5:16",
                        "--delta", "1e-10", "--workers", "1", "--out", str(tmp_path / "t.csv")],
                       capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert r.returncode == 0 and r.stderr == "" and "\r" not in r.stdout
