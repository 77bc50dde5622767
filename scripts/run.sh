#!/usr/bin/env bash
# Serve the dashboard on http://localhost:8501 with its embedded defaults.
# Makes .venv/ with $PYTHON (default python3) and installs the package into it on
# the first run; later runs start at once.  Extra arguments go to `streamlit run`
# (e.g. --server.port 8502).
#
# The port is always passed to streamlit explicitly: left to itself, streamlit moves to
# 8502, 8503, ... without a word when 8501 is taken (a second run.sh would serve a second
# dashboard on a port nobody was told about).  A port in use is refused here, before any
# set-up, with exit status 2 and the option that picks another one; otherwise the URL is
# printed before the server starts.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${STREAMLIT_SERVER_PORT:-8501}"
address="${STREAMLIT_SERVER_ADDRESS:-localhost}"
has_port=0
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --server.port) port="${args[$((i + 1))]:-}"; has_port=1 ;;
    --server.port=*) port="${args[$i]#--server.port=}"; has_port=1 ;;
    --server.address) address="${args[$((i + 1))]:-}" ;;
    --server.address=*) address="${args[$i]#--server.address=}" ;;
  esac
done
if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
  echo "run.sh: --server.port must be an integer in [1, 65535], got '$port'" >&2
  exit 2
fi
probe="$address"
case "$probe" in ""|0.0.0.0|"::"|"[::]") probe=127.0.0.1 ;; localhost) probe=127.0.0.1 ;; esac
# something already answers on the port: refuse rather than let streamlit pick another one
if timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$probe" "$port" 2>/dev/null; then
  echo "run.sh: port $port is already in use (another dashboard or server is running on" \
       "http://localhost:$port); stop it, or serve on another port:" \
       "bash scripts/run.sh --server.port $((port == 65535 ? 8502 : port + 1))" >&2
  exit 2
fi

. scripts/_venv.sh
ensure_venv .venv
pip_install .venv -e .
shown="$address"
case "$shown" in ""|0.0.0.0|"::"|"[::]"|127.0.0.1) shown=localhost ;; esac
echo "run.sh: serving the dashboard on http://$shown:$port (stop with Ctrl-C)" >&2
if [ "$has_port" = 1 ]; then
  exec .venv/bin/python -m streamlit run app/Home.py "$@"
fi
exec .venv/bin/python -m streamlit run app/Home.py --server.port "$port" "$@"
