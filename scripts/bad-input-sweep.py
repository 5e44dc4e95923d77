#!/usr/bin/env python3
"""The bad-input sweep (issue 38), again on every run: each case gives the built `assist` one bad input as a
new user or a careless admin would (a wrong number, a truncated picture, a damaged database, a definition that
cannot be answered), then kills features with SIGKILL mid-run and checks nothing was turned off.

For each case it records whether the process crashed (ended by a signal, or printed a crash report), hung
(still running after its limit), and the message it gave: one line a person reads, checked against rules a
reviewer would apply (no internal names or error dumps, no doubled full stops, a sentence, a plural that
agrees, something said at all when it fails). docs/memory-safety.md keeps the reviewer's reading of a run.

Usage: scripts/bad-input-sweep.py [--assist PATH] [--table FILE] [--only SUBSTRING]
Exits 1 when anything crashed or hung or a message breaks a rule; prints the counts last.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60  # seconds a case may take before it counts as a hang

# What a crash prints (Swift's runtime and backtracer, the sanitizers, the shell).
CRASH = r"Fatal error|fatalError|Thread \d+ crashed|AddressSanitizer|Segmentation fault|Illegal instruction"

# What a person should never read: a program's insides instead of a sentence.
INTERNAL = [
    (r"Error Domain=|NSCocoaErrorDomain|NSPOSIXErrorDomain", "a Foundation error dump"),
    (r"Optional\(", "Optional(…)"),
    (r"\bSwift\.\w+Error\b|DecodingError|keyNotFound|typeMismatch|dataCorrupted|CodingKeys", "a decoding error"),
    (CRASH, "a crash"),
    (r"SQLITE_[A-Z]+|sqlite3_", "a SQLite name"),
    (r"\berrno\b|\bEINVAL\b|\bENOENT\b|\bEACCES\b", "an errno name"),
    (r"\b(?:nil|NULL)\b", "nil or NULL"),
    (r"\\\(|%@|%s|\{[a-z_]+\}", "an unfilled placeholder"),
    (r"\.\.(?!\.)", "a doubled full stop"),
    (r"[?!]\.", "a full stop after a question or exclamation mark"),
    (r"\b1 (?:questions|things|photos|videos|seconds|minutes|files|problems|features|uploads)\b", "1 with a plural"),
]


class Case:
    """One bad input: `args` after `assist`; `expect` "fail" (it must not be accepted) or "any" (accepted with a
    warning is right too); `data` a prepared data folder; `speaks` keeps speech on (the case is about it)."""

    def __init__(self, name, args, expect="fail", stdin=None, data=None, speaks=False, options=True):
        self.name, self.args, self.expect, self.stdin, self.data = name, args, expect, stdin, data
        self.speaks, self.options = speaks, options


def prepare(work: Path) -> dict:
    """The bad files the cases use, made now; their paths by name."""
    f = {}
    sample = ROOT / "share/assist/camera/sample.jpg"
    f["truncated.jpg"] = work / "truncated.jpg"
    f["truncated.jpg"].write_bytes(sample.read_bytes()[:400])
    f["text.jpg"] = work / "text.jpg"
    f["text.jpg"].write_text("this is not a picture\n")
    f["empty.png"] = work / "empty.png"
    f["empty.png"].write_bytes(b"")
    f["folder.jpg"] = work / "folder.jpg"
    f["folder.jpg"].mkdir()
    f["unreadable.jpg"] = work / "unreadable.jpg"
    shutil.copy(sample, f["unreadable.jpg"])
    os.chmod(f["unreadable.jpg"], 0)
    f["text.wav"] = work / "text.wav"
    f["text.wav"].write_text("RIFF but not really\n")
    f["truncated.wav"] = work / "truncated.wav"
    subprocess.run(["sox", "-V1", "-n", "-r", "16000", "-c", "1", "-b", "16", str(work / "tone.wav"), "synth", "1", "sine", "440"],
                   check=True)
    f["truncated.wav"].write_bytes((work / "tone.wav").read_bytes()[:30])
    f["stereo48k.wav"] = work / "stereo48k.wav"
    subprocess.run(["sox", "-V1", "-n", "-r", "48000", "-c", "2", "-b", "16", str(f["stereo48k.wav"]), "synth", "0.5", "sine", "300"],
                   check=True)
    f["text.mp4"] = work / "text.mp4"
    f["text.mp4"].write_text("not a video\n")
    # Damaged databases: an outbox that is not SQLite at all.
    f["damaged-outbox"] = work / "damaged-outbox"
    f["damaged-outbox"].mkdir(mode=0o700)
    (f["damaged-outbox"] / "outbox.sqlite").write_bytes(b"\x00garbage, not a database" * 100)
    # Configs an admin might write.
    configs = {
        "dup-key.toml": "[speech]\nrate = 200\nrate = 300\n",
        "misspelt.toml": "[speech]\nratee = 200\n",
        "wrong-type.toml": '[speech]\nrate = "fast"\n',
        "unterminated.toml": '[speech]\nvoice = "en-us\n',
        "plugin-wrong-type.toml": '[read-text]\nstreaming = "maybe"\n',
        "dup-table.toml": "[speech]\nrate = 200\n[speech]\nrate = 210\n",
        "binary.toml": "\x00\x01\x02[speech]\n",
        "kiosk-bad.toml": '[kiosk]\nadmin-key = "a"\nadmin-presses = 99\nquiet-hours = "25:00-07:00"\nstart = "nothing.here"\n'
        'pin-file = "/nonexistent/pin"\n[kiosk.features]\n"assist.clock" = "xyz"\n',
        "photo-bad.toml": '[photo-sensor]\nwatchDirectories = ["relative/path", "/nonexistent/folder", "%s"]\n'
        'recursive = "yes"\nbatchSize = 0\nsyncInterval = -1\nserverUrl = "not a url"\n' % (work / "tone.wav"),
        "photo-unreadable.toml": '[photo-sensor]\nwatchDirectories = ["%s"]\n' % (work / "closed"),
    }
    for name, text in configs.items():
        f[name] = work / name
        f[name].write_text(text)
    (work / "closed").mkdir()
    os.chmod(work / "closed", 0)
    # Survey definitions that cannot be answered: the shipped one, changed in one place each.
    shipped = json.loads((ROOT / "Plugins/Survey/share/surveys/covid19-sounds.json").read_text())

    def changed(change) -> str:
        definition = json.loads(json.dumps(shipped))
        recording = next(item for part in definition["parts"] for item in part["items"] if item["type"] == "recording")
        change(definition, recording)
        return json.dumps(definition)

    definitions = {
        "newline-id.json": changed(lambda d, r: d.update(id="x\nExecStartPre=touch\tpwned")),
        "huge-max.json": changed(lambda d, r: r.update(max_s=1e12)),
        "string-min.json": changed(lambda d, r: r.update(min_s="1")),
        "negative-eligible.json": changed(lambda d, r: d.update(eligible_after_s=-5)),
        "nul-key.json": changed(lambda d, r: r.update({"fi\u0000eld": "x"})),
        "truncated.json": changed(lambda d, r: None)[:500],
        "not-json.json": "this is not JSON",
        "empty.json": "",
        "array.json": "[1, 2, 3]",
    }
    for name, text in definitions.items():
        f[name] = work / name
        f[name].write_text(text)
    # A study set up for collect-videos, with a server nobody answers at.
    f["orbit.toml"] = work / "orbit.toml"
    f["orbit.toml"].write_text('[collect-videos]\nserver-url = "http://127.0.0.1:9/"\ncontact = "orbit@example.org"\n'
                               'app-credential = "sweep-credential"\n')
    # A per-person kiosk whose sittings would end after no time at all.
    f["kiosk-idle.toml"] = work / "kiosk-idle.toml"
    f["kiosk-idle.toml"].write_text('[kiosk]\nsession = "per-person"\nidle-minutes = 0\n')
    # Plugin packages that are not.
    f["text.assist-plugin"] = work / "text.assist-plugin"
    f["text.assist-plugin"].write_text("not a package\n")
    f["empty.assist-plugin"] = work / "empty.assist-plugin"
    f["empty.assist-plugin"].write_bytes(b"")
    f["random.assist-plugin"] = work / "random.assist-plugin"
    f["random.assist-plugin"].write_bytes(os.urandom(4096))
    f["no-manifest"] = work / "no-manifest"
    f["no-manifest"].mkdir()
    f["bad-manifest"] = work / "bad-manifest"
    f["bad-manifest"].mkdir()
    (f["bad-manifest"] / "manifest.json").write_text('{"id": "x", "name": "\\u001b[31mRed\\u0007\\u202e", "library": "../../etc/passwd"}')
    f["voice-empty"] = work / "voice-empty"
    f["voice-empty"].mkdir()
    return f


def cases(f: dict, work: Path) -> list:
    c = [
        # The command line itself.
        Case("unknown command", ["frobnicate"], options=False),
        Case("unknown feature", ["run", "no.such.feature"]),
        Case("unknown option", ["say", "--loud", "hello"]),
        Case("language not offered", ["say", "--lang", "xx", "hello"]),
        Case("speech rate too low", ["say", "--rate", "10", "hello"]),
        Case("speech rate a word", ["say", "--rate", "fast", "hello"]),
        Case("unknown espeak voice", ["say", "--voice", "no-such-voice", "--audio-out", "wav:%s" % (work / "v.wav"), "hello"],
             speaks=True),
        Case("audio out unknown kind", ["say", "--audio-out", "bogus:x", "hello"]),
        Case("audio out below a file", ["say", "--audio-out", "wav:%s/x.wav" % (work / "tone.wav"), "hello"], speaks=True),
        Case("nothing to say", ["say", "--audio-out", "null", ""]),
        Case("unknown cue", ["cue", "--audio-out", "null", "trumpet"]),
        Case("cue pan out of range", ["cue", "--audio-out", "null", "--pan", "5", "dot"]),
        Case("cue of no length", ["cue", "--audio-out", "null", "--seconds", "0", "dot"]),
        Case("cue pitch too low", ["cue", "--audio-out", "null", "--pitch", "1", "dot"]),
        Case("record zero seconds", ["record", "0", str(work / "r0.wav"), "--mic", "wav:%s" % (work / "tone.wav")]),
        Case("record negative seconds", ["record", "--", "-1", str(work / "r1.wav")]),
        Case("record a word for seconds", ["record", "abc", str(work / "r2.wav")]),
        Case("record too long", ["record", "99999", str(work / "r3.wav")]),
        Case("record into a folder", ["record", "1", str(work), "--mic", "wav:%s" % (work / "tone.wav")]),
        Case("record below a file", ["record", "1", str(work / "tone.wav/x.wav"), "--mic", "wav:%s" % (work / "tone.wav")]),
        Case("record at an odd rate", ["record", "1", str(work / "r4.wav"), "--rate", "12345"]),
        Case("microphone file missing", ["record", "1", str(work / "r5.wav"), "--mic", "wav:/nonexistent.wav"]),
        Case("microphone file not WAV", ["record", "1", str(work / "r6.wav"), "--mic", "wav:%s" % f["text.wav"]]),
        Case("microphone file cut short", ["record", "1", str(work / "r7.wav"), "--mic", "wav:%s" % f["truncated.wav"]],
             expect="any"),
        Case("microphone at another rate", ["record", "1", str(work / "r8.wav"), "--mic", "wav:%s" % f["stereo48k.wav"]],
             expect="any"),
        # Cameras and pictures.
        Case("camera of an unknown kind", ["camera", "test", "--seconds", "1", "--camera", "bogus:x"]),
        Case("camera picture missing", ["camera", "test", "--seconds", "1", "--camera", "image:/nonexistent.jpg"]),
        Case("camera picture truncated", ["camera", "snapshot", str(work / "s.ppm"), "--camera", "image:%s" % f["truncated.jpg"]]),
        Case("camera picture is text", ["camera", "snapshot", str(work / "s.ppm"), "--camera", "image:%s" % f["text.jpg"]]),
        Case("camera device is not one", ["camera", "test", "--seconds", "1", "--camera", "v4l2:/dev/null"]),
        Case("camera device missing", ["camera", "test", "--seconds", "1", "--camera", "v4l2:/dev/video99"]),
        Case("camera video is text", ["camera", "test", "--seconds", "1", "--camera", "video:%s" % f["text.mp4"]]),
        Case("camera folder empty", ["camera", "test", "--seconds", "1", "--camera", "dir:%s" % f["voice-empty"]]),
        Case("camera frame rate zero", ["camera", "test", "--seconds", "1", "--camera", "pattern", "--camera-fps", "0"]),
        Case("camera test too long", ["camera", "test", "--seconds", "1000", "--camera", "pattern"]),
        Case("snapshot zoom too far", ["camera", "snapshot", str(work / "z.ppm"), "--camera", "pattern", "--zoom", "50"]),
        Case("snapshot below a file", ["camera", "snapshot", str(work / "tone.wav/s.ppm"), "--camera", "pattern"]),
        Case("snapshot in an unknown format", ["camera", "snapshot", str(work / "f.ppm"), "--camera", "pattern", "--format", "cmyk"]),
        Case("read-text picture missing", ["run", "read-text", "--image", "/nonexistent.png", "--exit-at-end"]),
        Case("read-text picture truncated", ["run", "read-text", "--image", str(f["truncated.jpg"]), "--exit-at-end"]),
        Case("read-text picture is text", ["run", "read-text", "--image", str(f["text.jpg"]), "--exit-at-end"]),
        Case("read-text picture empty", ["run", "read-text", "--image", str(f["empty.png"]), "--exit-at-end"]),
        Case("read-text picture is a folder", ["run", "read-text", "--image", str(f["folder.jpg"]), "--exit-at-end"]),
        Case("read-text picture unreadable", ["run", "read-text", "--image", str(f["unreadable.jpg"]), "--exit-at-end"],
             expect="any"),  # root reads it all the same
        Case("find-object unknown name", ["run", "find-object", "flux capacitor"]),
        Case("find-object empty text", ["run", "find-object", "--text", ""]),
        Case("teach from a video that is text", ["run", "find-object", "teach", "keys", "--video", str(f["text.mp4"])]),
        Case("teach from a video that is missing", ["run", "find-object", "teach", "keys", "--video", "/nonexistent.mp4"]),
        Case("teach from a folder", ["run", "find-object", "teach", "keys", "--video", str(f["folder.jpg"])]),
        Case("teach a name of control characters", ["run", "find-object", "teach", "\x07\x1b", "--video", str(f["text.mp4"])]),
        Case("teach with an unknown option", ["run", "find-object", "teach", "keys", "--loud"]),
        Case("forget a thing never taught", ["run", "find-object", "forget", "keys", "--yes"]),
        Case("rename with one name", ["run", "find-object", "rename", "keys"]),
        Case("things with an argument", ["run", "find-object", "things", "all"]),
        # Settings an admin wrote.
        Case("config with a duplicate key", ["say", "--audio-out", "null", "--config", str(f["dup-key.toml"]), "hi"], expect="any"),
        Case("config with a duplicate table", ["say", "--audio-out", "null", "--config", str(f["dup-table.toml"]), "hi"],
             expect="any"),
        Case("config with a misspelt key", ["say", "--audio-out", "null", "--config", str(f["misspelt.toml"]), "hi"], expect="any"),
        Case("config with a wrong type", ["say", "--audio-out", "null", "--config", str(f["wrong-type.toml"]), "hi"], expect="any"),
        Case("config string not ended", ["say", "--audio-out", "null", "--config", str(f["unterminated.toml"]), "hi"]),
        Case("config plugin setting wrong type", ["run", "clock", "--config", str(f["plugin-wrong-type.toml"])], expect="any"),
        Case("config with binary bytes", ["say", "--audio-out", "null", "--config", str(f["binary.toml"]), "hi"]),
        Case("config file missing", ["say", "--audio-out", "null", "--config", "/nonexistent.toml", "hi"]),
        Case("kiosk set-up wrong everywhere", ["kiosk", "check", "--config", str(f["kiosk-bad.toml"])]),
        # Uploads.
        Case("outbox not a database", ["outbox"], data="damaged-outbox", expect="any"),  # moved aside, said, a new one
        Case("outbox send with a negative wait", ["outbox", "send", "--timeout", "-1"]),
        Case("events with a negative count", ["events", "--last", "-1"]),
        # Plugins.
        Case("install a missing package", ["plugins", "install", "--yes", "/nonexistent.assist-plugin"]),
        Case("install a text file", ["plugins", "install", "--yes", str(f["text.assist-plugin"])]),
        Case("install an empty file", ["plugins", "install", "--yes", str(f["empty.assist-plugin"])]),
        Case("install random bytes", ["plugins", "install", "--yes", str(f["random.assist-plugin"])]),
        Case("install a folder", ["plugins", "install", "--yes", str(f["no-manifest"])]),
        Case("pack a folder without a manifest", ["plugins", "pack", str(f["no-manifest"]), "--output", str(work)]),
        Case("pack a hostile manifest", ["plugins", "pack", str(f["bad-manifest"]), "--output", str(work)]),
        Case("check a hostile manifest", ["plugins", "check", str(f["bad-manifest"])]),
        Case("info of an unknown plugin", ["plugins", "info", "no.such"]),
        Case("reset an unknown plugin", ["plugins", "reset", "no.such"]),
        Case("permissions of an unknown plugin", ["plugins", "permissions", "no.such", "--network", "on"]),
        Case("permission value not on or off", ["plugins", "permissions", "clock", "--network", "maybe"]),
        Case("remove an unknown plugin", ["plugins", "remove", "--yes", "no.such"]),
        # Voice.
        Case("listen to a text file", ["listen", "--mic", "wav:%s" % f["text.wav"]]),
        Case("listen with a missing reference", ["listen", "--mic", "wav:%s" % (work / "tone.wav"), "--reference", "wav:/nonexistent.wav"]),
        Case("tune from an empty folder", ["voice", "tune", str(f["voice-empty"])]),
        Case("tune from a missing folder", ["voice", "tune", "/nonexistent/voices"]),
        # The survey.
        Case("survey id with a newline", ["survey", "check", str(f["newline-id.json"])]),
        Case("survey take of 1e12 seconds", ["survey", "check", str(f["huge-max.json"])]),
        Case("survey minimum as a string", ["survey", "check", str(f["string-min.json"])]),
        Case("survey negative wait", ["survey", "check", str(f["negative-eligible.json"])]),
        Case("survey key with a NUL", ["survey", "check", str(f["nul-key.json"])]),
        Case("survey definition cut short", ["survey", "check", str(f["truncated.json"])]),
        Case("survey definition not JSON", ["survey", "check", str(f["not-json.json"])]),
        Case("survey definition empty", ["survey", "check", str(f["empty.json"])]),
        Case("survey definition an array", ["survey", "check", str(f["array.json"])]),
        Case("survey definition missing", ["survey", "check", "/nonexistent.json"]),
        Case("survey unknown id", ["survey", "start", "--definition", "no-such-survey"], stdin=""),
        Case("survey reminders neither on nor off", ["survey", "reminders", "maybe"]),
        # collect-videos, before consent and with wrong numbers.
        Case("record a clip before consent", ["run", "collect-videos", "record", "Red mug", "--kind", "training", "--config", str(f["orbit.toml"])]),
        Case("add a thing before consent", ["run", "collect-videos", "thing", "add", "Red mug", "--config", str(f["orbit.toml"])]),
        Case("consent without an email", ["run", "collect-videos", "consent", "--name", "A", "--agree-all", "--config", str(f["orbit.toml"])]),
        Case("consent with a bad email", ["run", "collect-videos", "consent", "--name", "A", "--email", "not-an-email", "--agree-all", "--config", str(f["orbit.toml"])]),
        Case("delete a video of an unknown thing", ["run", "collect-videos", "video", "delete", "Nothing", "--kind", "testing", "--slot", "1", "--yes", "--config", str(f["orbit.toml"])]),
        Case("delete with a slot out of range", ["run", "collect-videos", "video", "delete", "Nothing", "--kind", "testing", "--slot", "9", "--yes", "--config", str(f["orbit.toml"])]),
        Case("collect-videos unknown verb", ["run", "collect-videos", "dance", "--config", str(f["orbit.toml"])]),
        Case("sync with a word for seconds", ["run", "collect-videos", "sync", "--wait", "soon", "--config", str(f["orbit.toml"])]),
        Case("survey sync waiting a word", ["survey", "sync", "--wait", "soon"]),
        Case("kiosk idle minutes of zero", ["kiosk", "check", "--config", str(f["kiosk-idle.toml"])]),
        # photo-sensor.
        Case("photo-sensor settings all wrong", ["run", "photo-sensor", "watch", "--once", "--config", str(f["photo-bad.toml"])],
             expect="any"),
        Case("photo-sensor folder unreadable", ["run", "photo-sensor", "status", "--config", str(f["photo-unreadable.toml"])],
             expect="any"),  # root reads it all the same
        Case("photo-sensor pause zero minutes", ["run", "photo-sensor", "pause", "--minutes", "0"]),
        Case("photo-sensor pause for ever", ["run", "photo-sensor", "pause", "--minutes", "100000"]),
        Case("photo-sensor pause a word", ["run", "photo-sensor", "pause", "--minutes", "abc"]),
        Case("photo-sensor export below a file", ["run", "photo-sensor", "export", str(work / "tone.wav/out")]),
    ]
    return c


LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\S+ (trace|debug|info|notice|warning|error|critical) [\w.-]+: (?:\[\w+\] )?")


def message_of(output: str) -> str:
    """What a person reads: the printed lines and the log's warnings and errors (without their time and
    source), joined; the log's lesser lines are left out."""
    lines = []
    for line in output.splitlines():
        line = line.strip()
        log = LOG_LINE.match(line)
        if log and log.group(1) in ("trace", "debug", "info", "notice"):
            continue
        if line:
            lines.append(line[log.end():] if log else line)
    return " / ".join(lines)[:400]


def judge(message: str, status: int, expect: str) -> list:
    problems = [why for pattern, why in INTERNAL if re.search(pattern, message)]
    if status != 0 and not message:
        problems.append("failed without a word")
    if expect == "fail" and status == 0:
        problems.append("accepted")
    return problems


def run_case(assist: str, case: Case, work: Path, index: int) -> dict:
    # A data folder of its own (or one prepared for it), and Assist's own options after the subcommand's words.
    data = work / case.data if case.data else work / "data" / f"case{index}"
    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    groups = {"plugins", "kiosk", "survey", "outbox", "voice", "setup", "camera"}
    words = case.args
    split = 2 if words[0] in groups and len(words) > 1 and not words[1].startswith("-") else 1
    own = ["--data-dir", str(data)] + ([] if case.speaks else ["--no-speech"]) if case.options else []
    argv = [assist] + words[:split] + own + words[split:]
    env = dict(os.environ, HOME=str(work / "home"), XDG_CONFIG_HOME=str(work / "home/.config"))
    start = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE if case.stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        out, _ = process.communicate(input=case.stdin.encode() if case.stdin is not None else None, timeout=LIMIT)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        hung = True
    seconds = time.monotonic() - start
    text = out.decode("utf-8", "replace")
    status = process.returncode
    crashed = (status < 0 and not hung) or bool(re.search(CRASH, text))
    message = message_of(text)
    return {"case": case, "status": status, "hung": hung, "crashed": crashed, "seconds": seconds,
            "message": message, "problems": [] if hung or crashed else judge(message, status, case.expect)}


def kill_cycles(assist: str, work: Path) -> list:
    """Features killed with SIGKILL twice each mid-run: afterwards none may be turned off."""
    results = []
    data = work / "data" / "kills"
    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    env = dict(os.environ, ASSIST_DATA_DIR=str(data), HOME=str(work / "home"))
    page = ROOT / "share/assist/camera/sample.jpg"
    runs = {
        "survey": ["survey", "start", "--no-speech"],
        "collect-videos": ["run", "collect-videos", "--no-speech", "--camera", "pattern"],
        "photo-sensor": ["run", "photo-sensor", "--no-speech"],
        "read-text": ["run", "read-text", "--no-speech", "--camera", "image:%s" % page],
    }
    for name, words in runs.items():
        for _ in range(2):
            process = subprocess.Popen([assist] + words, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, env=env, start_new_session=True)
            time.sleep(2)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        listed = subprocess.run([assist, "plugins", "list"], env=env, capture_output=True, text=True, timeout=LIMIT)
        off = [line for line in listed.stdout.splitlines() if name in line and "turned off" in line.lower()]
        results.append((name, off))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assist", default=str(ROOT / ".build/debug/assist"))
    parser.add_argument("--table", help="also write the table (Markdown) to this file")
    parser.add_argument("--only", help="only the cases whose name contains this")
    options = parser.parse_args()
    if not os.access(options.assist, os.X_OK):
        print(f"No assist at {options.assist}: build it first (swift build).")
        return 2
    work = Path(tempfile.mkdtemp(prefix="assist-sweep-"))
    (work / "home").mkdir()
    try:
        files = prepare(work)
        all_cases = cases(files, work)
        chosen = [c for c in all_cases if not options.only or options.only in c.name]
        rows = ["| # | input | exit | s | verdict | message |", "|---|---|---|---|---|---|"]
        crashes = hangs = flagged = 0
        for index, case in enumerate(chosen, 1):
            r = run_case(options.assist, case, work, index)
            verdict = "HANG" if r["hung"] else "CRASH" if r["crashed"] else ("; ".join(r["problems"]) or "ok")
            crashes += r["crashed"]
            hangs += r["hung"]
            flagged += bool(r["problems"])
            message = r["message"].replace("|", "\\|")
            rows.append(f"| {index} | {case.name} | {r['status']} | {r['seconds']:.1f} | {verdict} | {message} |")
            if verdict != "ok":
                print(f"{index}. {case.name}: {verdict}: {r['message'][:300]}", flush=True)
        kills = [] if options.only else kill_cycles(options.assist, work)
        turned_off = [name for name, off in kills if off]
        for name in turned_off:
            print(f"kill -9 twice: {name} was turned off")
        table = "\n".join(rows) + "\n"
        if options.table:
            Path(options.table).write_text(table)
        print(f"sweep: {len(chosen)} bad inputs, {2 * len(kills)} kill -9s: {crashes} crashes, {hangs} hangs, "
              f"{flagged} messages that break a rule, {len(turned_off)} features turned off by kills")
        return 1 if crashes or hangs or flagged or turned_off else 0
    finally:
        for path in work.rglob("*"):
            try:
                if not path.is_symlink():
                    os.chmod(path, 0o700)
            except OSError:
                pass
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
