# Sourced by bin/serve and bin/test: creates .venv and installs the pinned
# requirements into it when they changed. Needs Python 3.11+ with venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
fi
install_requirements() {
  # $1: requirements file. Re-installs only when the file changed since the last install.
  local file="$1" stamp=".venv/.installed-$(basename "$1")"
  if [ ! -f "$stamp" ] || [ "$file" -nt "$stamp" ] || [ requirements.txt -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$file"
    touch "$stamp"
  fi
}
export PATH="$ROOT/.venv/bin:$PATH"
