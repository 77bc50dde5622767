"""scripts/run.sh says which port it serves, and refuses a port in use (issue 44, item 6).

Run in a copy of the checkout with a fake .venv whose python logs its arguments (no
install, no server): what matters is what run.sh prints and what it would start."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess

from tests.paths import REPO_ROOT


def _checkout(tmp_path):
    work = tmp_path / "co"
    (work / "scripts").mkdir(parents=True)
    for name in ("run.sh", "_venv.sh"):
        shutil.copy(os.path.join(REPO_ROOT, "scripts", name), work / "scripts")
    shutil.copy(os.path.join(REPO_ROOT, "pyproject.toml"), work)
    shutil.copytree(os.path.join(REPO_ROOT, "constraints"), work / "constraints")
    py = work / ".venv" / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/../calls.log"\n')
    py.chmod(0o755)
    return work


def _run(work, *args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    e.update(env or {})
    p = subprocess.run(["bash", "scripts/run.sh", *args], cwd=work, capture_output=True, text=True,
                       env=e, timeout=60)
    log = work / ".venv" / "calls.log"
    calls = log.read_text().splitlines() if log.exists() else []
    return p, [c for c in calls if "streamlit run" in c]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_free_port_is_announced_and_passed_explicitly(tmp_path):
    work = _checkout(tmp_path)
    port = _free_port()
    p, calls = _run(work, env={"STREAMLIT_SERVER_PORT": str(port)})
    assert p.returncode == 0, p.stderr
    assert f"serving the dashboard on http://localhost:{port}" in p.stderr
    # streamlit is told the port, so it cannot move to another one silently
    assert calls == [f"-m streamlit run app/Home.py --server.port {port}"]
    p, calls = _run(work, "--server.port", str(port), "--server.address", "0.0.0.0")
    assert p.returncode == 0 and f"http://localhost:{port}" in p.stderr
    assert calls[-1] == f"-m streamlit run app/Home.py --server.port {port} --server.address 0.0.0.0"


def test_port_in_use_is_refused_before_any_work(tmp_path):
    work = _checkout(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(16)
        port = busy.getsockname()[1]
        for args, env in ((("--server.port", str(port)), None), ((f"--server.port={port}",), None),
                          ((), {"STREAMLIT_SERVER_PORT": str(port)})):
            p, calls = _run(work, *args, env=env)
            assert p.returncode == 2, (args, p.stderr)
            assert f"port {port} is already in use" in p.stderr and "--server.port" in p.stderr
            assert len(p.stderr.strip().splitlines()) == 1 and not calls
    assert not (work / ".venv" / "calls.log").exists()  # refused before the venv was touched


def test_bad_port_is_refused(tmp_path):
    work = _checkout(tmp_path)
    p, calls = _run(work, "--server.port", "eighty")
    assert p.returncode == 2 and "--server.port must be an integer in [1, 65535], got 'eighty'" in p.stderr
    assert not calls
