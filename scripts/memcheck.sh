#!/usr/bin/env bash
# Memory and thread checks beyond the ordinary tests (docs/memory-safety.md says what each covers):
#   scripts/memcheck.sh asan      the whole suite built with AddressSanitizer (.build-asan)
#   scripts/memcheck.sh tsan      the whole suite built with ThreadSanitizer (.build-tsan)
#   scripts/memcheck.sh valgrind  paths through uninstrumented libraries under valgrind memcheck
#   scripts/memcheck.sh           all three; exits non-zero when any finds something
#   scripts/memcheck.sh asan-build tsan-build   only the sanitizer builds (.ci/run makes ASan's early, at idle
#                                 priority, while the ordinary tests wait on their programs: scripts/ci-prebuild.sh)
set -uo pipefail
# A sanitizer that stops a test process can leave the runner waiting: each suite run has 20 minutes at most
# (30 in the ASan lane).
cd "$(dirname "$0")/.."
lanes=${1:-"asan tsan valgrind"}
failed=()
# The sanitizer reports in a suite's log (scripts/test-halves.sh has printed its failures and summaries).
# The first report whole (to its SUMMARY line: both threads' stacks and where the memory came from), then how
# many there were: CI keeps only the end of what a run printed.
summarise() {
  awk -v pattern="$2" '$0 ~ pattern { found++; if (found == 1) printing = 1 }
    printing { print; if (/^SUMMARY:/ || ++lines >= 150) printing = 0 }
    END { if (found > 1) print "(" found " reports in all in " FILENAME ")" }' "$1"
}

# The sanitizer builds, each the same command whether made ahead (asan-build, tsan-build) or by its lane, so
# that a build made ahead leaves the lane nothing to do (SwiftPM's lock makes a lane wait for one under way).
asan_build() {
  swift build --build-tests --sanitize=address --scratch-path .build-asan 2>&1 | grep -E "error:|Build complete"
}

tsan_build() {
  # Plugins are dlopen'ed: they find TSan's runtime only if the executables export it.
  swift build --build-tests --sanitize=thread --scratch-path .build-tsan -Xlinker --export-dynamic 2>&1 \
    | grep -E "error:|Build complete"
}

asan() {
  asan_build || return 1
  # Leaks are left to valgrind: the host keeps process-lifetime objects (threads, tables) until exit by design.
  # Every suite runs here, the natural-voice ones too (their renderings are repeatable: scripts/voice-set.py),
  # but the barge-in shell test: two shell runs of 40 s in real time that the ASan build makes the longest
  # pole of its half, to check what this lane does not (whether a voice is caught in time); the shell's path
  # runs under TSan.
  # A half may take 30 minutes here (20 elsewhere): the voice suites, one test at a time each, made the first
  # half 1,184 s of 1,200 in a rehearsal, and a CI run stopped it at the limit. Nor find-object taught from
  # collect-videos' clips (TeachFromClipsTests): a minute of encoding and embedding that, beside the collect-videos,
  # camera and sound suites of the same half, starved their real-time recordings here (a 2 s clip kept 1 s of
  # frames); its C code runs in this lane through FindObjectThingsCLITests and CollectVideosRecordingTests. And
  # the first-use question answered aloud: a live microphone's pace against a slowed shell, whose listening path
  # the other voice tests of this lane run. Nor the barge-in recall over two rooms (four runs of `assist listen`
  # on 100 s of sound, 95 s of one core here): the canceller's C code runs here on 90 s of a reading through the
  # reading-alone test, and on references it refuses.
  # The halves: `make test`'s, but for the two voice suites, each one test at a time, which run beside the
  # halves from the start (TEST_BESIDE): in the first half they began after 360 s, behind its other tests, and
  # were its longest chain (the halves took 822 and 799 s, the cores a third idle at the end). find-object's
  # command line, another chain, goes in the first half, which it starts sooner (the halves and the voice
  # suites beside them took 578, 762 and 487 s with it in the second, 671, 559 and 459 s in the first). Beside
  # the voice suites it evened the three (570, 589 and 579 s), but a push-to-talk test beside it failed once in
  # two rehearsals (its window's words decoded as another command and refused), and it was put back. The same
  # test then failed in CI's TSan lane without find-object beside it, so the neighbour was not the cause (three
  # ways the shell could refuse those words are mended since); moving it again waits for rehearsals of its own.
  TEST_BESIDE='^VoiceTests\.(VoiceListenTests|VoiceShellListenTests)/' TEST_HALF_TIMEOUT=1800 ASSIST_TEST_TIME_SCALE=4 \
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:handle_segv=0:handle_abort=0 \
    scripts/test-halves.sh .build-asan \
    '^(HostCLITests\.(?!ReadTextCLITests|ReadTextPhotoTests)|FuzzReplayTests\.|VoiceTests\.(?!EchoListenTests))' \
    --sanitize=address \
    --skip theShellStopsReadingWhenToldOverItsVoiceAndNeverByItsOwnWords --skip TeachFromClipsTests \
    --skip theFirstUseQuestionIsAnsweredByVoice \
    --skip commandsSaidOverAReadingAreHeardThroughItsEchoAndNotWithoutTheReference
  local status=$?
  summarise .build-asan/test.log "ERROR: AddressSanitizer"
  return $status
}

tsan() {
  tsan_build || return 1
  # libspeechd cancels its reader thread inside a blocking read, which TSan cannot follow ("thread finished
  # with ignores enabled") and stops on: the Speech Dispatcher tests run in the other lanes only.
  # In both sanitizer lanes the tests crash plugins on purpose (a helper's SIGSEGV, abort) and check what the
  # host says: the sanitizers leave those signals to the process (handle_segv=0, handle_abort=0), and Swift's
  # crash backtracer, which hangs trying to suspend a sanitized process's threads, is off.
  # This lane looks for races: the plugin host, services and plugins driven through TestHost with their real
  # threads, helpers included, the spawned runs of voice, the survey and collect-videos, and the helper
  # processes' own suite (HelperProcessTests: a frame in flight while the plugin is destroyed was a race in the
  # helper). Left to the plain and ASan lanes: the other command-line suites (HostCLITests: every test there
  # spawns the host to check what it prints, which the ASan lane runs instrumented), the fuzz corpus (parsers
  # on one thread), collect-videos' menus, whose lines are typed at a person's pace, which a TSan build is too
  # slow to keep up with, and the barge-in recall over two rooms, for the reasons given in the ASan lane. Voice
  # alone is the first half (with the survey beside it, the halves took 860 and 375 s), but for the barge-in suite, which evens them in the second (they took 734 and 462 s with it in the first;
  # 517 and 592 s once Voice and Audio were optimised in debug builds, on 2026-12-02: the second is now longer).
  # find-object run in process (230 s here, on its own) goes with voice: the features driven in process
  # (AssistAppTests) came to the second half, which they would have made the longer by far.
  # find-object taught from collect-videos' clips runs after the halves, alone (about 40 s): its helper's
  # callbacks were reported as races until the bridge told TSan what orders them (Sources/CPluginBridge/handoff.h),
  # and alone its encoding and embedding starve no real-time suite.
  TEST_ALONE='^CollectVideosTests\.TeachFromClipsTests' \
    ASSIST_TEST_TIME_SCALE=4 SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=1:handle_segv=0:handle_abort=0:suppressions=$PWD/scripts/tsan.supp" \
    scripts/test-halves.sh .build-tsan '^(VoiceTests\.(?!EchoListenTests)|AssistAppTests\.FindObjectInProcessTests)' --sanitize=thread \
    --skip '^(HostCLITests\.(?!HelperProcessTests)|FuzzReplayTests\.)' --skip SpeechDispatcherTests --skip CollectVideosMenuTests \
    --skip commandsSaidOverAReadingAreHeardThroughItsEchoAndNotWithoutTheReference
  local status=$?
  summarise .build-tsan/test.log "WARNING: ThreadSanitizer"
  return $status
}

valgrind_lane() {
  swift build 2>&1 | grep -E "error:|Build complete" || return 1
  # valgrind 3.19 cannot read Swift 6's DWARF 5: run copies without debug sections, in a folder the host
  # still recognises as a build folder (plugins beside it, share/ from the source tree).
  local bin=.build-valgrind/debug work=.build-valgrind/work
  rm -rf .build-valgrind && mkdir -p "$bin" "$work/frames"
  for file in .build/debug/assist .build/debug/*.so; do objcopy --strip-debug "$file" "$bin/$(basename "$file")"; done
  local vg=(valgrind --quiet --error-exitcode=99 --suppressions=scripts/valgrind.supp --num-callers=30
    --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite)
  local assist=("$bin/assist" --data-dir "$work/data" --no-speech)
  /usr/bin/convert -size 333x241 xc:'#f0e0d0' -type TrueColor -sampling-factor 2x2 "$work/frames/a.jpg"
  /usr/bin/convert -size 333x241 gradient: "$work/frames/b.png"
  ffmpeg -v error -y -f lavfi -i testsrc=size=322x240:rate=10 -t 1 -pix_fmt yuv420p "$work/clip.mp4"
  /usr/bin/convert -size 900x260 xc:white -font DejaVu-Sans -pointsize 40 -fill black \
    -annotate +40+90 'Memory is checked here.' -annotate +40+170 'Every line is read once.' "$work/page.png"
  sox -n -r 16000 -c 1 -b 16 "$work/tone.wav" synth 1 sine 440
  python3 -m http.server 0 --bind 127.0.0.1 --directory "$work" >"$work/server.log" 2>&1 &
  local server=$!
  sleep 1
  local port
  port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/server.log" | head -1)
  local status=0 name
  # valgrind runs a process's threads one at a time: two runs at once keep both cores busy.
  run() {
    name=$1; shift
    if "${vg[@]}" --log-file="$work/$name.valgrind" "$@" >"$work/$name.out" 2>&1 </dev/null; then
      echo "valgrind: $name: clean" >"$work/$name.result"
    else
      { echo "valgrind: $name: FOUND ERRORS (exit $?):"; head -n 40 "$work/$name.valgrind"; } >"$work/$name.result"
    fi
  }
  run snapshot-picture "${assist[@]}" --camera image:share/assist/camera/sample.jpg camera snapshot "$work/s1.ppm" &
  local pair=$!
  run snapshot-folder "${assist[@]}" --camera "dir:$work/frames" camera test --seconds 1
  wait $pair
  run snapshot-video "${assist[@]}" --camera "video:$work/clip.mp4" camera test --seconds 1 &
  pair=$!
  run read-text "${assist[@]}" run read-text --image "$work/page.png" --exit-at-end
  wait $pair
  run clock "${assist[@]}" run assist.clock &
  pair=$!
  run say "$bin/assist" --data-dir "$work/data" say --audio-out "wav:$work/say.wav" Checking memory.
  wait $pair
  run record "${assist[@]}" --mic "wav:$work/tone.wav" record 1 "$work/rec.wav"
  "$bin/assist" --data-dir "$work/data" outbox >/dev/null
  python3 - "$work/data/outbox.sqlite" "$port" <<'PY'
import json, sqlite3, sys
request = {"method": "POST", "url": f"http://127.0.0.1:{sys.argv[2]}/upload", "headers": [],
           "body": {"multipart": {"boundary": "vg", "parts": [{"name": "a", "text": "1"}]}}}
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO jobs (owner, request, max_attempts, idempotency_key) VALUES (?, ?, 1, 'k')",
           ("org.test.memcheck", json.dumps(request)))
db.commit()
PY
  run outbox "${assist[@]}" outbox send --timeout 60
  kill "$server" 2>/dev/null
  for name in snapshot-picture snapshot-folder snapshot-video read-text clock say record outbox; do
    cat "$work/$name.result"
    grep -q ": clean$" "$work/$name.result" || status=1
  done
  return $status
}

for lane in $lanes; do
  echo "== $lane"
  start=$(date +%s)
  case $lane in
    asan) asan || failed+=(asan) ;;
    tsan) tsan || failed+=(tsan) ;;
    valgrind) valgrind_lane || failed+=(valgrind) ;;
    asan-build) asan_build || failed+=(asan-build) ;;
    tsan-build) tsan_build || failed+=(tsan-build) ;;
    *) echo "Unknown lane $lane: use asan, tsan, valgrind, asan-build or tsan-build."; exit 64 ;;
  esac
  echo "== $lane took $(( $(date +%s) - start )) s"
done
if [ ${#failed[@]} -gt 0 ]; then
  # Again at the very end, where a CI log's tail shows it: each failing sanitizer lane's failed tests and how
  # each half ended.
  for lane in "${failed[@]}"; do
    case $lane in valgrind | *-build) continue ;; esac
    echo "memcheck: $lane's failures:"
    grep -hE "^✘ Test .*(recorded an issue|failed after)" .build-"$lane"/test-[123].log 2>/dev/null | cut -c1-300 | head -n 8
    for log in .build-"$lane"/test-[123].log; do
      [ -f "$log" ] && echo "$(basename "$log"): $(grep -E "Test run with|error:" "$log" | tail -n 1)"
    done
  done
  echo "memcheck: ${failed[*]} found problems."
  exit 1
fi
echo "memcheck: $lanes clean."
