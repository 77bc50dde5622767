#!/usr/bin/env bash
# Everything the tests need, on a fresh machine, then the tests.
# (The README's test command; .ci/run calls it.)  Makes .venv/ with $PYTHON (default
# python3) and installs the package with its test extra there (skipped when nothing
# changed).  Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/test_cli.py -x`.
# A full run (no arguments) then runs a smoke subset with the lowest supported versions
# (constraints/minimum.txt) in .venv-min/; SKIP_MINIMUM=1 skips that step.  The whole suite
# runs on one pytest-xdist worker per core (TEST_WORKERS=N to choose, 0 for none).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
# Browser tests and PNG export use Debian's Chromium (headless, no network);
# the LaTeX export test compiles with pdflatex.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v pdflatex >/dev/null 2>&1 || need+=(texlive-latex-base texlive-latex-recommended texlive-latex-extra)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
ensure_venv .venv
pip_install .venv -e '.[test]'
if [ $# -eq 0 ]; then
  # the whole suite: one pytest worker per core (pytest-xdist), an idle worker takes tests
  # from the busy one (work stealing: the long tests do not leave one worker alone at the end)
  .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist worksteal -rf
else
  .venv/bin/python -m pytest "$@"
fi
if [ $# -eq 0 ] && [ "${SKIP_MINIMUM:-0}" != 1 ]; then
  echo "scripts: smoke tests with the minimum versions (constraints/minimum.txt)" >&2
  ensure_venv .venv-min
  pip_install .venv-min -c constraints/minimum.txt -e . pytest hypothesis
  .venv-min/bin/python -m pytest tests/accountant/interfaces/test_cli.py tests/mechanisms/test_mech_cli.py \
    tests/app/test_app.py tests/app/test_dashboard_answer.py tests/test_reliability_first_use.py \
    tests/test_public_api.py
fi
