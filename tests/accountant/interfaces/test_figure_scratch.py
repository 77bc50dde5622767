"""Issue 44 item 18 (exports): a PNG/PDF/SVG export works under a long ``$TMPDIR`` (Chromium's
socket path), and an export killed with SIGKILL leaves neither Chromium processes (killed
by the kernel with the command) nor its ``accountant-figure-*`` folder (removed by the next
export)."""
from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time

import pytest

from accountant.interfaces import figure
from tests.paths import REPO_ROOT

FIG = ["figure", "--n", "1000", "--s", "4", "--eps0", "0.5,1,2", "--bounds", "clone,paper", "--workers", "1"]


def _require_chromium() -> None:
    if figure.find_chromium() is None:
        pytest.fail("Chromium not found: install Debian's 'chromium' package (figure exports need it)")


def _env(**extra):
    env = dict(os.environ)
    env.update(extra)
    return env


def _users_of(folder: str) -> list:
    out = subprocess.run(["pgrep", "-f", folder + "/"], capture_output=True, text=True).stdout
    return out.split()


def test_scratch_base_is_short_enough_for_chromiums_socket(tmp_path, monkeypatch):
    import tempfile

    long_dir = tmp_path / ("t" * 80)
    long_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_dir))
    base = figure.scratch_base()
    room = figure._SOCKET_PATH_MAX - figure._SOCKET_TAIL - figure._SCRATCH_NAME - 1
    assert len(base) <= room and base in ("/tmp", "/dev/shm")
    # the longest socket path Chromium can make there fits in sun_path (107 bytes)
    longest = os.path.join(base, figure.SCRATCH_PREFIX + "4194304-abcdefgh",
                           ".org.chromium.Chromium.XXXXXX", "SingletonSocket")
    assert len(longest) <= 107
    monkeypatch.setattr(tempfile, "tempdir", "/tmp")  # a short $TMPDIR is kept
    assert figure.scratch_base() == "/tmp"


def test_stale_scratch_folders_are_removed_with_their_processes(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that is gone
    stale = tmp_path / f"{figure.SCRATCH_PREFIX}{dead.pid}-abcdefgh"
    live = tmp_path / f"{figure.SCRATCH_PREFIX}{os.getpid()}-abcdefgh"
    legacy_old = tmp_path / f"{figure.SCRATCH_PREFIX}oldstyle"
    legacy_new = tmp_path / f"{figure.SCRATCH_PREFIX}newstyle"
    other = tmp_path / "unrelated-folder"
    for d in (stale, live, legacy_old, legacy_new, other):
        (d / "profile").mkdir(parents=True)
        (d / "profile" / "blob").write_bytes(b"x" * 1000)
    old = time.time() - 2 * figure.LEGACY_STALE_SECONDS
    os.utime(legacy_old, (old, old))
    # a leftover "browser" whose command line names the stale folder
    orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)",
                               f"--user-data-dir={stale}/profile"])
    deadline = time.time() + 20  # its /proc cmdline is empty until the exec has finished
    while str(stale).encode() not in open(f"/proc/{orphan.pid}/cmdline", "rb").read():
        assert time.time() < deadline and orphan.poll() is None
        time.sleep(0.01)
    try:
        removed = figure.clean_stale_scratch(str(tmp_path))
        assert sorted(removed) == sorted([str(stale), str(legacy_old)])
        assert orphan.wait(timeout=10) == -signal.SIGKILL
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [live.name, legacy_new.name, other.name])


@pytest.mark.parametrize("ext,magic", [(".png", b"\x89PNG"), (".pdf", b"%PDF")])
def test_export_works_under_a_long_tmpdir(tmp_path, ext, magic):
    _require_chromium()
    long_tmp = tmp_path / ("a-very-long-temporary-directory-name-" * 2)
    long_tmp.mkdir()
    assert len(str(long_tmp)) > 60
    out = tmp_path / f"f{ext}"
    p = subprocess.Popen([sys.executable, "-m", "accountant", *FIG, "--out", str(out)], cwd=REPO_ROOT,
                         env=_env(TMPDIR=str(long_tmp)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    _, err = p.communicate(timeout=180)
    assert p.returncode == 0, err  # was: "Chromium did not produce the PNG"
    assert out.read_bytes()[:4] == magic and out.stat().st_size > 1000
    assert os.listdir(long_tmp) == []  # its scratch went to /tmp, and was removed there
    assert glob.glob(f"/tmp/{figure.SCRATCH_PREFIX}{p.pid}-*") == []


def test_sigkill_during_export_leaves_no_chromium_and_the_next_export_cleans_up(tmp_path):
    _require_chromium()
    base = figure.scratch_base()
    p = subprocess.Popen([sys.executable, "-m", "accountant", *FIG, "--out", str(tmp_path / "k.pdf")],
                         cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    folder, t0 = None, time.time()
    try:
        while time.time() - t0 < 120 and p.poll() is None:
            hits = glob.glob(os.path.join(base, f"{figure.SCRATCH_PREFIX}{p.pid}-*"))
            if hits and _users_of(hits[0]):
                folder = hits[0]
                break
            time.sleep(0.05)
        assert folder is not None, "Chromium never started"
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    deadline = time.time() + 10  # the kernel kills Chromium with the command (setpriv --pdeathsig)
    while _users_of(folder) and time.time() < deadline:
        time.sleep(0.1)
    if figure._death_signal_prefix():
        assert _users_of(folder) == []
    assert os.path.isdir(folder)  # nothing ran after SIGKILL: the next export removes it
    r = subprocess.run([sys.executable, "-m", "accountant", *FIG, "--out", str(tmp_path / "n.svg")],
                       capture_output=True, text=True, timeout=180, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(folder) and _users_of(folder) == []
    assert (tmp_path / "n.svg").read_bytes().lstrip().startswith(b"<svg")
