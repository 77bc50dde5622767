#!/usr/bin/env bash
# Serve the dashboard on http://localhost:8501 with its embedded defaults.
# Makes .venv/ with $PYTHON (default python3) and installs the package into it on
# the first run; later runs start at once.  Extra arguments go to `streamlit run`
# (e.g. --server.port 8502).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv .venv
pip_install .venv -e .
exec .venv/bin/python -m streamlit run app/Home.py "$@"
