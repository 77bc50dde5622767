#!/usr/bin/env bash
# Everything the tests need, on a fresh machine, then the tests.
# (The README's test command; .ci/run calls it.)
set -euo pipefail
cd "$(dirname "$0")/.."
# Browser tests and PNG export use Debian's Chromium (headless, no network).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q -e '.[test]'
python3 -m pytest "$@"
