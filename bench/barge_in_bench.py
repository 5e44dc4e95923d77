#!/usr/bin/env python3
"""Barge-in figures (issue 33), for bench/voice.sh: commands said over Assist's own reading, heard through its echo.

  barge_in_bench.py WORK ASSIST SET

WORK is a scratch folder, ASSIST the binary, SET a voice set made by scripts/voice-set.py (renderings of the one-word
commands and launch phrases). Needs the test voices' Python (numpy) for scripts/echo-room.py, espeak-ng, sox, g++.

  1. A reading: docs/ rendered by espeak-ng at 175 words a minute (what read-text sounds like), READING_MINUTES long.
  2. Rooms made by scripts/echo-room.py: the reading's echo as loud as the voice (0 dB) and twice as loud (+6 dB),
     delays 40 and 140 ms, RT60 350 ms, noise; a command every 7 s from the 20th second on (the canceller learns the
     room over the first seconds of any session's speech).
  3. Through `assist listen --reference` (the canceller on) and without it (the microphone as it is: the baseline):
     recall per kind, commands heard as another, and the reading alone: false commands per 10 minutes.
  4. Echo return loss enhancement and the delay found, from listen's summary line; CPU over the same file with and
     without the reference.
  5. speexdsp against WebRTC on the same rooms (bench/echo/compare.cc): ERLE, CPU, and recall through each one's
     output.
  6. Latency from a word's end to Assist's sound cut: the shell reading its menu, "stop" said over it at a
     microphone's pace; the cut is found in what the speakers played, on the microphone's time line (the trace).
  7. The first seconds (FIRST_SECONDS_ONLY=1 runs this part alone): each command once at 1 to 11 s into a reading no
     canceller has heard, one room per command; with a canceller that starts afresh, and (FIRST_SECONDS_KEPT=1, the
     default) with one that starts from the room an earlier 40 s session in the same room kept (`--echo-path`).
"""
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import wave

work, assist, voice_set = sys.argv[1], sys.argv[2], sys.argv[3]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
python = os.path.join(root, ".build/voices/bin/python")
minutes = float(os.environ.get("READING_MINUTES", "10"))
one_word = ["stop", "pause", "next", "back", "slower", "faster"]
# Launch phrases said alone ("find object" waits for the name of a thing after it).
launch = ["read text", "collect videos", "start survey", "what time is it", "sync photos now"]


def run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs)


def seconds_of(path):
    with wave.open(path) as file:
        return file.getnframes() / file.getframerate()


def speech_end(path):
    """Where the voice in a rendering ends, in seconds: its files have room sound around it, some of it noisy, so the
    last 10 ms block well above the quietest fifth (8 times its RMS) and within 18 dB of the loudest."""
    with wave.open(path) as file:
        rate = file.getframerate()
        data = file.readframes(file.getnframes())
    samples = [int.from_bytes(data[i : i + 2], "little", signed=True) for i in range(0, len(data), 2)]
    step = rate // 100
    rms = [(sum(v * v for v in samples[i : i + step]) / step) ** 0.5 for i in range(0, len(samples) - step, step)]
    floor = sorted(rms)[len(rms) // 5] if rms else 0
    loudest = max(rms, default=1)
    threshold = max(8 * floor, loudest / 8)
    last = max((i for i, value in enumerate(rms) if value > threshold), default=0)
    return (last + 1) * step / rate


# Who said each rendering (scripts/voice-set.py --speakers), when the set says.
speakers_file = os.path.join(voice_set, "speakers.json")
said_by = json.load(open(speakers_file)) if os.path.exists(speakers_file) else {}
only_latency = os.environ.get("LATENCY_ONLY") == "1"
only_first_seconds = os.environ.get("FIRST_SECONDS_ONLY") == "1"
renderings = {}
for label in one_word + launch + ["repeat"]:
    folder = os.path.join(voice_set, label.replace(" ", "_"))
    if only_first_seconds and not os.path.isdir(folder):
        continue
    renderings[label] = sorted(os.path.join(folder, f) for f in os.listdir(folder))

def measure_latency():
    # 6. Latency: the shell reading its menu, "stop" said over it (no echo in the microphone: the canceller and the
    # person check run). The cut is where the speakers fall quiet while, in a run where nothing was said, they sounded:
    # both from what was played, on the microphone's time line (the trace's FILE.played.raw), lined up by the menu's
    # first sound.
    def shell_played(folder, mic):
        config = os.path.join(work, "always.toml")
        open(config, "w").write('[voice]\nmode = "always"\n')
        trace = os.path.join(folder, "trace.txt")
        process = subprocess.Popen([assist, "shell", "--data-dir", os.path.join(work, "data"), "--config", config,
                                    "--audio-out", f"wav:{folder}/out.wav", "--mic", f"live:{mic}"],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=dict(os.environ, ASSIST_VOICE_TRACE=trace))
        time.sleep(16)
        process.communicate(b"q\n", timeout=30)
        with open(trace + ".played.raw", "rb") as file:
            played = file.read()
        samples = [int.from_bytes(played[i : i + 2], "little", signed=True) for i in range(0, len(played), 2)]
        blocks = [max((abs(v) for v in samples[i : i + 160]), default=0) for i in range(0, len(samples), 160)]
        first = next((i for i, b in enumerate(blocks) if b > 300), 0)
        return blocks, first


    quiet = os.path.join(work, "quiet.wav")
    run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", quiet, "synth", "20", "pinknoise", "vol", "0.002"])
    os.makedirs(os.path.join(work, "latency-none"), exist_ok=True)
    uncut, uncut_first = shell_played(os.path.join(work, "latency-none"), quiet)
    latencies, held_after = [], []
    for index, path in enumerate(renderings["stop"][:int(os.environ.get("LATENCY_RUNS", "6"))]):
        folder = os.path.join(work, f"latency-{index}")
        when = 8 + index * 0.37
        run([python, os.path.join(root, "scripts/echo-room.py"), folder, "--reading", quiet, "--lead-seconds", "0",
             "--echo-db", "-90", "--say", f"{path}@{when}"])
        for stale in ("trace.txt", "trace.txt.raw", "trace.txt.played.raw"):
            if os.path.exists(os.path.join(folder, stale)):
                os.remove(os.path.join(folder, stale))
        blocks, first = shell_played(folder, os.path.join(folder, "mic.wav"))
        word_end = when + speech_end(path)
        # The two runs' menus lined up by their loudness over the first 6 s (each starts a little earlier or later).
        def likeness(lag):
            pairs = [(blocks[i] > 1000, uncut[i + lag] > 1000) for i in range(0, 600) if 0 <= i + lag < len(uncut)]
            return sum(a == b for a, b in pairs) / max(len(pairs), 1)
        lag = max(range(-40, 41), key=likeness)
        # The cut: the first 200 ms of quiet from the word on where the uncut run read on through most of it.
        cut = None
        for block in range(int(when * 100), len(blocks) - 20):
            other = block + lag
            if other < 0 or other + 20 > len(uncut):
                continue
            if all(b < 300 for b in blocks[block : block + 20]) and sum(b > 1000 for b in uncut[other : other + 20]) > 14:
                cut = block / 100
                break
        # The host's own account: when it held the sound (the trace's wall clock on the microphone's time line),
        # plus the WAV sink's 20 ms lead. Where the menu pauses in one run and not the other the loudness
        # comparison above takes the pause for the cut (up to half a second early); this one cannot.
        trace = open(os.path.join(folder, "trace.txt")).read()
        first_sample = float(re.search(r"first sample was recorded at ([0-9.]+)", trace).group(1))
        holds = [float(t) - first_sample for t in re.findall(r"^([0-9.]+) holding the sound", trace, re.M)]
        held = [t for t in holds if t >= when]
        if held:
            held_after.append((held[0] + 0.02 - word_end) * 1000)
        if cut is None or cut > word_end + 3:
            print(f"  latency run {index}: the menu was not cut (stop not heard)")
            continue
        latencies.append((cut - word_end) * 1000)
    def p95_of(values):
        values = sorted(values)
        return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    if held_after:
        print(f"the sound held after the word's end, by the host's trace ({len(held_after)} runs): "
              f"{[round(v) for v in held_after]} ms; median {statistics.median(held_after):.0f} ms, "
              f"p95 {p95_of(held_after):.0f} ms")
    if latencies:
        latencies.sort()
        p95 = p95_of(latencies)
        print(f"latency from the word's end to Assist's sound cut, the shell reading its menu ({len(latencies)} runs): "
              f"median {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms (as heard: into a WAV file, paced)")


def measure_first_seconds():
    # 7. The first seconds of a session's first reading, where the canceller has learnt nothing yet: one command per
    # room, so that each moment is the first command said.
    labels = ["stop", "pause", "next", "back", "repeat"]
    moments = [1, 2, 3, 4, 6, 8, 11]
    text = " ".join(re.sub(r"[`#*|_\[\]()>-]+", " ", open(os.path.join(root, "docs", "read-text.md")).read()).split()[:200])
    whole = os.path.join(work, "first-reading-whole.wav")
    first_reading = os.path.join(work, "first-reading.wav")
    run(["espeak-ng", "-s", "175", "-w", whole, text])
    run(["sox", whole, first_reading, "trim", "0", "20"])
    # FIRST_SECONDS_TRAINING=SECONDS: the speakers first play SECONDS of pink noise (peaks 12 dB under full scale,
    # 50 ms fades) and a second of quiet, as a start-up sound meant to train the canceller would; the moments still
    # count from the reading's start.
    training = float(os.environ.get("FIRST_SECONDS_TRAINING", "0"))
    offset = 0.0
    if training > 0:
        with wave.open(first_reading) as file:
            rate = str(file.getframerate())
        noise, quiet = os.path.join(work, "training.wav"), os.path.join(work, "quiet.wav")
        run(["sox", "-n", "-r", rate, "-c", "1", "-b", "16", noise, "synth", str(training), "pinknoise",
             "fade", "t", "0.05", str(training), "0.05", "gain", "-n", "-12"])
        run(["sox", "-n", "-r", rate, "-c", "1", "-b", "16", quiet, "trim", "0", "1"])
        trained = os.path.join(work, "first-reading-trained.wav")
        run(["sox", noise, quiet, first_reading, trained])
        first_reading, offset = trained, training + 1
    # The room kept (issue 71): before each first reading, an earlier session in the same room (the same room
    # response and levels: the same seed, the same voice said once at 30 s) reads another text for 40 s through
    # `assist listen --echo-path`, which keeps what its canceller learnt; the first reading then starts from it.
    # Both are measured in the same run: a canceller that starts afresh, and one that starts from the room kept.
    kept_arm = os.environ.get("FIRST_SECONDS_KEPT", "1") == "1"
    if kept_arm:
        other = " ".join(re.sub(r"[`#*|_\[\]()>-]+", " ", open(os.path.join(root, "docs", "voice.md")).read()).split()[:300])
        earlier_whole = os.path.join(work, "earlier-reading-whole.wav")
        earlier = os.path.join(work, "earlier-reading.wav")
        run(["espeak-ng", "-s", "175", "-w", earlier_whole, other])
        run(["sox", earlier_whole, earlier, "trim", "0", "40"])
    print("the first seconds: each command said once, at a moment of a reading the canceller had not heard before "
          "(RT60 350 ms, pink noise; a rendering each, taking turns)"
          + (f"; the canceller first trained on {training:g} s of pink noise" if training > 0 else ""))
    for name, echo_db, delay in [("as loud", 0, 40), ("twice as loud", 6, 150)]:
        heard_at, kept_at = [], []
        turn = 0
        for moment in moments:
            heard = kept = 0
            for label in labels:
                path = renderings[label][turn % len(renderings[label])]
                turn += 1
                folder = os.path.join(work, f"first-{echo_db}-{moment}-{label}")
                room = ["--echo-db", str(echo_db), "--delay-ms", str(delay), "--rt60-ms", "350",
                        "--seed", str(moment * 10 + echo_db)]
                run([python, os.path.join(root, "scripts/echo-room.py"), folder, "--reading", first_reading,
                     "--lead-seconds", "0", "--say", f"{path}@{moment + offset}"] + room)
                span = json.load(open(os.path.join(folder, "spans.json")))["commands"][0]

                def said(found):
                    return any(phrase == label and span["from_ms"] - 300 <= (start + end) / 2 <= span["to_ms"] + 300
                               for phrase, start, end in found)

                found, _, _ = listen(os.path.join(folder, "mic.wav"), os.path.join(folder, "reference.wav"))
                heard += said(found)
                if kept_arm:
                    earlier_room = folder + "-earlier"
                    run([python, os.path.join(root, "scripts/echo-room.py"), earlier_room, "--reading", earlier,
                         "--lead-seconds", "0", "--say", f"{path}@30"] + room)
                    echo_path = os.path.join(earlier_room, "echo-path.json")
                    listen(os.path.join(earlier_room, "mic.wav"), os.path.join(earlier_room, "reference.wav"),
                           echo_path=echo_path)
                    found, _, summary = listen(os.path.join(folder, "mic.wav"), os.path.join(folder, "reference.wav"),
                                               echo_path=echo_path)
                    kept += said(found) and summary.get("started_from_kept_room", False)
            heard_at.append(heard)
            kept_at.append(kept)
        print(f"  echo {name} as the voice ({delay} ms): "
              + ", ".join(f"{moment} s {count}/{len(labels)}" for moment, count in zip(moments, heard_at))
              + f"; in all {sum(heard_at)}/{len(labels) * len(moments)}")
        if kept_arm:
            print(f"    starting from the room kept: "
                  + ", ".join(f"{moment} s {count}/{len(labels)}" for moment, count in zip(moments, kept_at))
                  + f"; in all {sum(kept_at)}/{len(labels) * len(moments)}")


if only_latency:
    measure_latency()
    sys.exit(0)

def listen(mic, reference=None, trace=None, echo_path=None):
    args = [assist, "listen", "--mic", f"wav:{mic}", "--json", "--data-dir", os.path.join(work, "data")]
    if reference:
        args += ["--reference", f"wav:{reference}"]
    if echo_path:
        args += ["--echo-path", echo_path]
    env = dict(os.environ, ASSIST_VOICE_TRACE=trace) if trace else None
    if trace and os.path.exists(trace):
        os.remove(trace)
    started = os.times()
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    ended = os.times()
    cpu = (ended.children_user - started.children_user) + (ended.children_system - started.children_system)
    heard = []
    for line in done.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if "phrase" in item and not item.get("rejected"):
            heard.append((item["phrase"], item["start_ms"], item["end_ms"]))
    summary = {}
    for line in done.stderr.splitlines():
        if line.startswith("{"):
            summary = json.loads(line)
    return heard, cpu, summary


if only_first_seconds:
    measure_first_seconds()
    sys.exit(0)

# 1. The reading.
text = ""
for name in sorted(os.listdir(os.path.join(root, "docs"))):
    if name.endswith(".md"):
        text += re.sub(r"[`#*|_\[\]()>-]+", " ", open(os.path.join(root, "docs", name)).read()) + "\n"
words = text.split()
text = " ".join(words[: int(175 * minutes * 1.05)])
reading = os.path.join(work, "reading.wav")
run(["espeak-ng", "-s", "175", "-w", reading, text])
run(["sox", reading, os.path.join(work, "reading-cut.wav"), "trim", "0", str(minutes * 60)])
reading = os.path.join(work, "reading-cut.wav")
length = seconds_of(reading)

# 2. Rooms.
rng = random.Random(33)
said = []
at = 20.0
while at + 3 < length:
    label = rng.choice(one_word + launch)
    said.append((label, rng.choice(renderings[label]), at))
    at += 7
rooms = [("as loud", 0, 40), ("twice as loud", 6, 140)]
made = {}
for name, echo_db, delay in rooms:
    folder = os.path.join(work, f"room-{echo_db}")
    args = [python, os.path.join(root, "scripts/echo-room.py"), folder, "--reading", reading, "--lead-seconds", "0",
            "--echo-db", str(echo_db), "--delay-ms", str(delay), "--rt60-ms", "350", "--seed", str(echo_db + 1)]
    for _, path, when in said:
        args += ["--say", f"{path}@{when}"]
    run(args)
    alone = os.path.join(work, f"alone-{echo_db}")
    run([python, os.path.join(root, "scripts/echo-room.py"), alone, "--reading", reading, "--lead-seconds", "0",
         "--echo-db", str(echo_db), "--delay-ms", str(delay), "--rt60-ms", "350", "--seed", str(echo_db + 7)])
    made[name] = (folder, alone, delay)


def score(heard, spans):
    hits, confused, per = 0, 0, {"one-word": [0, 0], "launch": [0, 0]}
    used = set()
    for label, start, end in spans:
        inside = [(i, h) for i, h in enumerate(heard) if start - 300 <= (h[1] + h[2]) / 2 <= end + 300]
        kind = "launch" if " " in label else "one-word"
        per[kind][1] += 1
        if any(h[0] == label for _, h in inside):
            hits += 1
            per[kind][0] += 1
        confused += sum(1 for _, h in inside if h[0] != label)
        used.update(i for i, _ in inside)
    stray = sum(1 for i in range(len(heard)) if i not in used)
    return hits, confused, stray, per


print(f"barge-in: a reading of {length / 60:.1f} min (espeak-ng, 175 words a minute), {len(said)} commands said over "
      f"it from 20 s on, one every 7 s")
for name, (folder, alone, delay) in made.items():
    spans_file = json.load(open(os.path.join(folder, "spans.json")))
    spans = [(label, span["from_ms"], span["to_ms"]) for (label, _, _), span in zip(said, spans_file["commands"])]
    trace = os.path.join(folder, "trace.txt")
    heard, _, summary = listen(os.path.join(folder, "mic.wav"), os.path.join(folder, "reference.wav"), trace)
    raw, _, _ = listen(os.path.join(folder, "mic.wav"))
    hits, confused, stray, per = score(heard, spans)
    base_hits, _, base_stray, _ = score(raw, spans)
    # CPU while listening through a reading with nobody speaking, with the canceller and without it.
    false_heard, cpu_on, alone_summary = listen(os.path.join(alone, "mic.wav"), os.path.join(alone, "reference.wav"))
    false_raw, cpu_off, _ = listen(os.path.join(alone, "mic.wav"))
    total = len(spans)
    audio = seconds_of(os.path.join(folder, "mic.wav"))
    print(f"echo {name} as the voice (delay {delay} ms, RT60 350 ms):")
    print(f"  heard with the canceller: {hits}/{total} = {100 * hits / total:.1f} % (one-word "
          f"{per['one-word'][0]}/{per['one-word'][1]}, launch phrases {per['launch'][0]}/{per['launch'][1]}), "
          f"heard as another command {confused}, stray commands {stray}")
    if said_by:
        by_speaker = {}
        for (label, path, _), (_, start, end) in zip(said, spans):
            row = by_speaker.setdefault(said_by.get(os.path.relpath(path, voice_set), "?"), [0, 0])
            row[0] += any(h[0] == label and start - 300 <= (h[1] + h[2]) / 2 <= end + 300 for h in heard)
            row[1] += 1
        print("  per speaker: " + ", ".join(f"{who} {h}/{t}" for who, (h, t) in sorted(by_speaker.items())))
    print(f"  without it (the microphone as it is): {base_hits}/{total} = {100 * base_hits / total:.1f} %, "
          f"stray commands {base_stray}")
    print(f"  the reading alone ({length / 60:.1f} min): {len(false_heard)} false commands with the canceller "
          f"({len(false_heard) / (length / 600):.2f} per 10 min), {len(false_raw)} without it: "
          f"{sorted(set(h[0] for h in false_raw))[:8]}")
    print(f"  delay found {summary.get('echo_delay_ms')} ms (made {delay}); echo return loss enhancement "
          f"{summary.get('erle_db')} dB (reading alone: {alone_summary.get('erle_db')} dB)")
    # When the sound would be held: the first phrase spotted over each command and passed by the person check (the
    # trace's "heard … at FED ms over Assist's sound"), FED being how much of the microphone had been fed then, against
    # where the command's voice ends. A live microphone adds its period (20–25 ms) and the time to process a chunk.
    reported = [(int(m.group(2)), json.loads(m.group(1))) for m in
                re.finditer(r"heard (\{.*?\}) at (\d+) ms over Assist's sound", open(trace).read())]
    dropped = {int(m.group(1)) for m in re.finditer(r"at (\d+) ms is Assist's own voice", open(trace).read())}
    after_end = []
    for (label, path, when), (_, start, end) in zip(said, spans):
        word_end = (when + speech_end(path)) * 1000
        fed = [at for at, item in reported if start - 300 <= (item["start_ms"] + item["end_ms"]) / 2 <= end + 300
               and item["start_ms"] not in dropped]
        if fed:
            after_end.append(min(fed) - word_end)
    if after_end:
        after_end.sort()
        print(f"  the sound held after the word's end, by the microphone's time fed ({len(after_end)} commands): "
              f"median {statistics.median(after_end):.0f} ms, p95 "
              f"{after_end[min(len(after_end) - 1, int(round(0.95 * (len(after_end) - 1))))]:.0f} ms")
    print(f"  CPU listening through the reading alone: {100 * cpu_on / length:.1f} % of a core with the canceller, "
          f"{100 * cpu_off / length:.1f} % without: the canceller {100 * (cpu_on - cpu_off) / length:.1f} %")

def voice_kept(cleaned, said):
    """For each command: how far the person's voice stands above everything else left in the cleaned sound over it
    (the voice as scripts/echo-room.py placed it, scaled by its best fit), dB."""
    import numpy

    def samples_of(path):
        with wave.open(path) as file:
            return numpy.frombuffer(file.readframes(file.getnframes()), dtype="<i2").astype(float), file.getframerate()

    out, rate = samples_of(cleaned)
    figures = []
    for _, path, when in said:
        voice, voice_rate = samples_of(path)
        if voice_rate != rate:
            voice = numpy.interp(numpy.arange(int(len(voice) * rate / voice_rate)) * voice_rate / rate,
                                 numpy.arange(len(voice)), voice)
        at = int(when * rate)
        best = None
        # The cancellers' output comes a frame or so late (the preprocessor's): the best of the first 20 ms.
        for lag in range(0, 321, 8):
            part = out[at + lag : at + lag + len(voice)]
            fitted = voice[: len(part)]
            gain = (part @ fitted) / max(fitted @ fitted, 1)
            rest = part - gain * fitted
            figure = 10 * numpy.log10(max((gain * fitted) @ (gain * fitted), 1) / max(rest @ rest, 1))
            best = figure if best is None else max(best, figure)
        figures.append(best)
    return figures


# 5. speexdsp against WebRTC, on the same rooms.
compare = os.path.join(work, "compare")
run(["g++", "-O2", "-o", compare, os.path.join(root, "bench/echo/compare.cc")]
    + run(["pkg-config", "--cflags", "--libs", "speexdsp", "webrtc-audio-processing"]).stdout.split())
print("speexdsp against WebRTC (audio-processing 0.3), each given the same reference, 30 ms ahead of the delay:")
for name, (folder, alone, delay) in made.items():
    spans_file = json.load(open(os.path.join(folder, "spans.json")))
    spans = [(label, span["from_ms"], span["to_ms"]) for (label, _, _), span in zip(said, spans_file["commands"])]
    args = [compare, os.path.join(folder, "mic.wav"), os.path.join(folder, "reference.wav"),
            os.path.join(work, f"out-{delay}"), str(delay - 30)] + [f"{s}-{e}" for _, s, e in spans]
    lines = [json.loads(line) for line in run(args).stdout.splitlines()]
    for line in lines:
        cleaned = os.path.join(work, f"out-{delay}-{'speex' if line['canceller'] == 'speexdsp' else 'webrtc'}.wav")
        kept = voice_kept(cleaned, said)
        print(f"  echo {name}: {line['canceller']}: ERLE {line['erle_db']} dB, CPU {line['cpu_ms_per_s'] / 10:.1f} % "
              f"of a core; the person's voice over what is left of the echo, median over the commands: "
              f"{statistics.median(kept):.1f} dB (worst {min(kept):.1f} dB)")

measure_first_seconds()
measure_latency()
