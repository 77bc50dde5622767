# Sourced by scripts/run.sh and scripts/test.sh: a project virtual environment made
# with $PYTHON (default python3), so that Debian's externally managed python3 (PEP 668)
# and a pyenv python3 both work.  Not meant to be run on its own.

PY="${PYTHON:-python3}"

as_root() {  # run a command as root (sudo when not root)
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {  # apt_install PKG...: install the missing Debian packages (quietly)
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts: please install ${missing[*]} (no apt-get on this machine)" >&2
    return 1
  fi
  echo "scripts: apt-get install ${missing[*]}" >&2
  # another apt-get or dpkg (an unattended upgrade) may hold the lock: wait for it, up to 10 min
  local wait=(-o DPkg::Lock::Timeout=600)
  as_root apt-get "${wait[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get "${wait[@]}" install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

ensure_venv() {  # ensure_venv DIR: DIR/bin/python exists and runs
  local dir="$1"
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c 'import sys' 2>/dev/null; then
    return 0
  fi
  if ! command -v "$PY" >/dev/null 2>&1; then
    echo "scripts: $PY not found; install Python >= 3.10 or set PYTHON=/path/to/python3" >&2
    return 1
  fi
  rm -rf "$dir"
  if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
    # Debian/Ubuntu ship venv's pip bootstrap separately
    local ver
    ver="$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    apt_install python3-venv
    "$PY" -c 'import venv, ensurepip' 2>/dev/null || apt_install "python$ver-venv"
  fi
  echo "scripts: creating $dir with $("$PY" --version 2>&1)" >&2
  "$PY" -m venv "$dir"
}

pip_install() {  # pip_install DIR ARGS...: `pip install ARGS` unless nothing changed since
  local dir="$1"; shift  # the last install (same arguments, pyproject.toml and constraints/)
  local stamp want  # one stamp per argument list, so run.sh and test.sh do not undo each other
  stamp="$dir/.installed-$(echo "$*" | sha256sum | cut -c1-12)"
  want="$(cat pyproject.toml constraints/*.txt 2>/dev/null | sha256sum | cut -c1-16) $*"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@"
  echo "$want" > "$stamp"
}
