#!/usr/bin/env bash
# The real ORBIT Data server on loopback for collect-videos' integration test (make test): set up and
# started from ../shared/orbit-server when it is there (Python 3.11 venv from PyPI, about a minute the first
# time), its address written to .build/orbit-server.env for the test. Absent or failing: a printed reason, and
# the test says it was skipped. `down` stops it; `expire ID` ends a participant's collection period.
set -uo pipefail
cd "$(dirname "$0")/.."
script=${ORBIT_SERVER_SCRIPT:-../shared/orbit-server/orbit-server.sh}
envfile=.build/orbit-server.env
export ORBIT_RUN="$PWD/.build/orbit-run" ORBIT_PORT=${ORBIT_PORT:-18080}
mkdir -p .build
case "${1:-up}" in
up)
  rm -f "$envfile"
  if [ ! -x "$script" ]; then
    echo "ORBIT server: $script is not here; the real-server test is skipped."
    exit 0
  fi
  if "$script" setup >.build/orbit-setup.log 2>&1 && "$script" start >>.build/orbit-setup.log 2>&1; then
    printf 'ORBIT_URL=http://127.0.0.1:%s/phasetwo/\nORBIT_SCRIPT=%s\nORBIT_RUN=%s\n' \
      "$ORBIT_PORT" "$(realpath "$script")" "$ORBIT_RUN" >"$envfile"
    echo "ORBIT server: http://127.0.0.1:$ORBIT_PORT/phasetwo/ (the real one, for collect-videos)"
  else
    echo "ORBIT server: could not be set up (.build/orbit-setup.log); the real-server test is skipped."
    tail -n 3 .build/orbit-setup.log
  fi
  ;;
expire)
  # Staff move participant $2 to a collection period that has ended, with the harness's own script (as its
  # `probe` does): for the test of uploads outside the period.
  [ -f "$ORBIT_RUN/orbit.env" ] || { echo "ORBIT server: not set up" >&2; exit 1; }
  lib="$(dirname "$(realpath "$script")")/lib"
  (
    set -a; . "$ORBIT_RUN/orbit.env"; set +a
    cd "$ORBIT_RUN/src" && ORBIT_PARTICIPANT_ID="$2" "$ORBIT_RUN/venv/bin/python" -W ignore manage.py shell -c \
      "exec(compile(open('$lib/expire_participant.py').read(), 'expire_participant.py', 'exec'), {'__name__': '__orbit__'})"
  ) || exit 1
  ;;
down)
  [ -x "$script" ] && "$script" stop >/dev/null 2>&1
  rm -f "$envfile"
  ;;
esac
exit 0
