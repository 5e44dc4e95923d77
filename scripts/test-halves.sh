#!/usr/bin/env bash
# The test suite as two `swift test` processes at once. The tests spend much of their time waiting on the
# programs they spawn (the host, ffmpeg, piper), and one process runs only as many tests at a time as there
# are cores: two halves keep two cores busy, and the suite ends in about three quarters of the time.
#
# Usage: scripts/test-halves.sh SCRATCH FIRST_HALF [swift test options...]
#   SCRATCH     the build folder (.build, .build-asan, ...), already built with --build-tests
#   FIRST_HALF  a regular expression for the tests of the first half, e.g. '^(HostCLITests|Voice)\.', or
#               `standard`; the second half is every other test
# The standard split (`make test`; the ASan lane runs the voice suites beside it: scripts/memcheck.sh): the
# command-line suites, the fuzz corpus and voice in the first, but for find-object's and read-text's command
# lines and the barge-in suite's decoded files, which go in the second to even the halves. Each process runs two
# tests at a time, and a half left alone leaves a core idle: split by target (every HostCLITests suite in the
# first), the halves took 662 and 370 s; with these two suites moved, 510 and 519 s.
# TEST_ALONE, a regular expression of tests, takes those out of both halves and runs them after, by themselves
# (`SCRATCH/test-3.log`): tests that time a voice against Assist's own sound in real time, which a machine
# running two halves at once on two cores makes late by seconds.
# Each half's output is in SCRATCH/test-1.log and SCRATCH/test-2.log (3 and 4 as below), all in
# SCRATCH/test.log. Printed at the end: each half's failures and its last line. Exits non-zero when any fails.
set -uo pipefail
scratch=$1 first=$2
shift 2
[ "$first" = standard ] &&
  first='^(HostCLITests\.(?!FindObjectCLITests|ReadTextCLITests|ReadTextPhotoTests)|FuzzReplayTests\.|VoiceTests\.(?!EchoListenTests))'
# TEST_SECOND, a regular expression of tests, moves those of FIRST_HALF (anchored with ^) to the second half.
[ -n "${TEST_SECOND:-}" ] && first="^(?!$TEST_SECOND)${first#^}"
# TEST_BESIDE, a regular expression of tests, takes those out of both halves and runs them in a third process
# beside the halves, from the start (`SCRATCH/test-4.log`): suites that run one test at a time and wait on real
# time (voice at a microphone's pace), whose chains were the longest of their half when they started late,
# behind a half's other tests (the shell's voice suite began after 360 s of the ASan lane's first half), and
# whose waits then left the cores a third idle at the end.
# The limit stops a half that hangs. A half takes 880 s in CI and 990 s in a quiet rehearsal here, but this
# machine's speed varies: on 2026-12-06 its build step took 481 s where it had taken 258 and 359, and both halves
# were stopped at 1,200 s a few tests short of their end; 1,500 s leaves that room.
limit=${TEST_HALF_TIMEOUT:-1500}
alone=${TEST_ALONE:-}
beside=${TEST_BESIDE:-}
cd "$(dirname "$0")/.."
# The test process runs features in process (InProcessApp) as `assist` runs them: tesseract's OpenMP on one
# thread, which `assist` sets before any plugin loads (AssistProcess.prepare) and libgomp reads only at its load,
# so it must be in the test process's environment from the start.
export OMP_THREAD_LIMIT=1
# What the halves leave to the others.
others=()
[ -n "$alone" ] && others+=(--skip "$alone")
[ -n "$beside" ] && others+=(--skip "$beside")

# unopened N STATUS: half N, ended with STATUS, stopped at once on "unable to attach DB … database is locked"
# (two `swift test` processes opening the build's database in the same moment) and ran nothing.
unopened() {
  [ "$2" -ne 0 ] && grep -q "database is locked" "$scratch/test-$1.log" && ! grep -q "Test run" "$scratch/test-$1.log"
}

# half N: runs half N (1: the tests matching FIRST_HALF, 2: the others, 3: TEST_ALONE's, 4: TEST_BESIDE's) into
# its log; its status. --ignore-lock: every half only reads the build folder (--skip-build).
half() {
  local n=$1 pick
  shift
  case $n in
    1) pick=(--filter "$first" "${others[@]}") ;;
    2) pick=(--skip "$first" "${others[@]}") ;;
    3) pick=(--filter "$alone") ;;
    4) pick=(--filter "$beside") ;;
  esac
  # Two `swift test` processes that open the build's database in the same moment can fail with "database is
  # locked" and run nothing: such a half starts again at once, up to three times, beside the others (run again
  # only after them, the ASan lane's voice half once added six minutes).
  local attempt status
  for attempt in 1 2 3; do
    timeout --kill-after=30 "$limit" swift test --ignore-lock --skip-build --scratch-path "$scratch" "$@" "${pick[@]}" \
      >"$scratch/test-$n.log" 2>&1
    status=$?
    unopened "$n" "$status" || return "$status"
    echo "half $n could not open the build's database; starting it again"
    sleep $((attempt * 2))
  done
  return "$status"
}
# A half that ends with status 0 must also have printed its summary. Once in the ASan lane a half ended with
# status 0 and its log stopped short of any result (again in a rehearsal on 2026-12-05, its log then lost to
# the run again): such a half is run again, alone, and fails if it still gives no summary, so a half is never
# counted as passed on its status alone. The first run's log is kept beside it and its end printed.
summarised() { grep -qE "^✔ Test run with [0-9]+ tests? .*passed" "$scratch/test-$1.log"; }

half 1 "$@" &
pid=$!
# Two `swift test` processes that open the build's database in the same moment can fail with "database is
# locked" (seen twice on 2026-12-02): the second starts once the first has read it.
sleep 5
if [ -n "$beside" ]; then
  half 4 "$@" &
  besidePid=$!
  sleep 5
fi
half 2 "$@"
status[2]=$?
wait "$pid"
status[1]=$?
status[4]=0
halves=(1 2)
if [ -n "$beside" ]; then
  wait "$besidePid"
  status[4]=$?
  halves+=(4)
fi
# Two `swift test` processes opening the build's database at the same moment: once, one of them stopped at once
# with "unable to attach DB … database is locked" and ran nothing. Such a half is run again, alone.
for n in "${halves[@]}"; do
  if unopened "$n" "${status[$n]}"; then
    echo "half $n could not open the build's database; running it again"
    half "$n" "$@"
    status[$n]=$?
  fi
done
for n in "${halves[@]}"; do
  if [ "${status[$n]}" -eq 0 ] && ! summarised "$n"; then
    echo "half $n ended without its summary; running it again (its log kept as test-$n.first.log)"
    mv "$scratch/test-$n.log" "$scratch/test-$n.first.log"
    tail -n 30 "$scratch/test-$n.first.log" | sed "s/^/half $n, first run: /"
    half "$n" "$@"
    status[$n]=$?
    summarised "$n" || status[$n]=1
  fi
done
status[3]=0
if [ -n "$alone" ]; then
  half 3 "$@"
  status[3]=$?
  summarised 3 || status[3]=1
  halves+=(3)
fi
: >"$scratch/test.log"
for n in "${halves[@]}"; do cat "$scratch/test-$n.log" >>"$scratch/test.log"; done
for n in "${halves[@]}"; do
  log=$scratch/test-$n.log
  # Each failure with the comment that explains it: swift-testing prints that after ↳, and a comment of
  # several lines (a voice test's trace) goes on, unmarked, until the next record. Up to 40 lines of each.
  awk '/^✘ Test .*(recorded an issue|failed after)/ { n = 40; print; next }
       /^(✘|✔|◇|􀟈|􀢄)/ { n = 0; next }
       n > 0 { n--; print }' "$log" | cut -c1-2000 | head -n 160
  echo "half $n: $(grep -E "Test run with|error:" "$log" | tail -n 1)"
  # timeout's status: the half was stopped at its limit, which its log cannot say.
  [ "${status[$n]}" -eq 124 ] && echo "half $n was stopped after its limit of $limit s (TEST_HALF_TIMEOUT)"
  # A test process that ends before its summary (a signal, an exit from code under test) names nothing in its
  # log, whose end may also be lost (the test process writes to a file through a buffer): its status is said.
  if [ "${status[$n]}" -ne 0 ] && [ "${status[$n]}" -ne 124 ] && ! grep -qE "Test run with" "$log"; then
    signal=""
    [ "${status[$n]}" -gt 128 ] && signal=" (SIG$(kill -l $((status[n] - 128)) 2>/dev/null))"
    echo "half $n ended with status ${status[$n]}$signal before its summary"
  fi
done
# Nothing the suite started may outlive it: a process running from the build folder now (the host, a helper, a
# plugin's child) was left behind by a test. It gets 3 s to end, is then listed, stopped, and fails the run.
left_behind() {
  local root proc exe
  root=$(realpath "$scratch")
  for proc in /proc/[0-9]*; do
    exe=$(readlink "$proc/exe" 2>/dev/null) || continue
    case $exe in "$root"/*) echo "${proc#/proc/} $(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | cut -c1-200)" ;; esac
  done
}
status[5]=0
if [ -n "$(left_behind)" ]; then
  sleep 3
  leftovers=$(left_behind)
  if [ -n "$leftovers" ]; then
    echo "Processes the tests started are still running after them (stopped now):"
    echo "$leftovers"
    kill -9 $(echo "$leftovers" | cut -d' ' -f1) 2>/dev/null
    status[5]=1
  fi
fi
[ "${status[1]}" -eq 0 ] && [ "${status[2]}" -eq 0 ] && [ "${status[3]}" -eq 0 ] && [ "${status[4]}" -eq 0 ] &&
  [ "${status[5]}" -eq 0 ] || {
  echo "Failures above; whole logs: $scratch/test-N.log for N in ${halves[*]}"
  exit 1
}
