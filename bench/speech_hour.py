#!/usr/bin/env python3
"""False actions in an hour of speech that is not meant for Assist (issue 71, item 3), for bench/voice.sh.

  speech_hour.py WORK ASSIST [PHRASE ...]

A room where a radio talks, or people talk among themselves, for HOUR_MINUTES (60): prose read aloud by Debian
flite's four voices (kal, slt, rms, awb) taking turns paragraph by paragraph, each paragraph at its own pace and
pitch, a third of a second between them, pink noise 20 dB under it. The prose is the licence texts every Debian
system has (/usr/share/common-licenses), read in order and again from the start if an hour needs more: plain
English that nobody wrote to be near a command. Through `assist listen` always-on with the shipped thresholds
(the PHRASES given, as the rest of the bench), every phrase it prints is a false action: their count, per hour,
and which phrases. Needs flite and sox.
"""
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import flite_voices  # noqa: E402

work, assist, phrases = sys.argv[1], sys.argv[2], sys.argv[3:]
minutes = float(os.environ.get("HOUR_MINUTES", "60"))
os.makedirs(work, exist_ok=True)

# The licence texts, each once (GPL is GPL-3 under another name), as paragraphs of prose.
seen, paragraphs = set(), []
folder = "/usr/share/common-licenses"
for name in sorted(os.listdir(folder)):
    path = os.path.realpath(os.path.join(folder, name))
    if path in seen or not os.path.isfile(path):
        continue
    seen.add(path)
    text = open(path, encoding="utf-8", errors="replace").read()
    for block in re.split(r"\n\s*\n", text):
        words = re.sub(r"[^A-Za-z0-9,.;:'?! ]+", " ", block).split()
        if len(words) >= 8:
            paragraphs.append(" ".join(words))

rng = random.Random(71)
speakers = list(flite_voices.PITCH)
parts, seconds, index = [], 0.0, 0
gap = os.path.join(work, "gap.wav")
subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", "0.33"], check=True)
while seconds < minutes * 60:
    paragraph = paragraphs[index % len(paragraphs)]
    speaker = speakers[index % len(speakers)]
    raw = os.path.join(work, f"p{index:04d}.raw.wav")
    path = os.path.join(work, f"p{index:04d}.wav")
    flite_voices.say(speaker, paragraph, raw, rng, pace=(0.85, 1.2))
    subprocess.run(["sox", "-V1", raw, "-r", "16000", "-c", "1", "-b", "16", path], check=True)
    os.remove(raw)
    seconds += float(subprocess.run(["soxi", "-D", path], capture_output=True, text=True).stdout) + 0.33
    parts += [path, gap]
    index += 1
speech = os.path.join(work, "speech.wav")
subprocess.run(["sox"] + parts + [speech, "trim", "0", str(minutes * 60)], check=True)
for path in parts:
    if path != gap:
        os.remove(path)
# The room: pink noise 20 dB under the speech's RMS.
stats = subprocess.run(["sox", speech, "-n", "stat"], capture_output=True, text=True).stderr
rms = next(float(line.split()[-1]) for line in stats.splitlines() if line.startswith("RMS     amplitude"))
noise = os.path.join(work, "noise.wav")
subprocess.run(["sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", str(minutes * 60),
                "pinknoise", "vol", f"{rms * 0.1 * 3:.6f}"], check=True)
room = os.path.join(work, "room.wav")
subprocess.run(["sox", "-R", "-V1", "-G", "-m", speech, noise, "-b", "16", room], check=True)
args = [assist, "listen", "--mic", f"wav:{room}", "--json", "--no-score", "--data-dir", os.path.join(work, "data")]
for phrase in phrases:
    args += ["--phrase", phrase]
done = subprocess.run(args, capture_output=True, text=True)
heard = []
for line in done.stdout.splitlines():
    try:
        item = json.loads(line)
    except ValueError:
        continue
    if "phrase" in item and not item.get("rejected"):
        heard.append((item["phrase"], item["start_ms"]))
per_hour = len(heard) * 60 / minutes
print(f"always-on, {minutes:.0f} min of prose read by flite's kal, slt, rms and awb taking turns (pink noise 20 dB "
      f"under it), nobody speaking to Assist: {len(heard)} false actions = {per_hour:.1f} per hour (goal <= 1); "
      f"{', '.join(f'{phrase} at {ms / 1000:.0f} s' for phrase, ms in heard[:12])}")
