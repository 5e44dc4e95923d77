#!/usr/bin/env bash
# The low-vision view's browser tests (docs/view.md): Playwright and axe-core (axe-playwright-python) from PyPI
# in a virtual environment at .build/view-test, driving Debian's chromium (install-deps.sh), never a browser
# Playwright downloads. Idempotent: an environment with both pinned versions is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/view-test
want=("playwright==1.65.2" "axe-playwright-python==0.1.8")
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip freeze 2>/dev/null | grep -qx "playwright==1.65.2" &&
  "$venv/bin/python" -m pip freeze 2>/dev/null | grep -qx "axe-playwright-python==0.1.8"; then
  exit 0
fi
echo "Installing Playwright and axe-core from PyPI into $venv (about 45 MB; no browser is downloaded)..."
rm -rf "$venv"
python3 -m venv "$venv"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${want[@]}"
echo "The view's browser tests are ready in $venv."
