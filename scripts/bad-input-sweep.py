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
import concurrent.futures
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
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
    (r"(?<!\.)\.\.(?!\.)", "a doubled full stop"),  # an ellipsis is not one
    (r"[?!]\.", "a full stop after a question or exclamation mark"),
    (r"\b1 (?:questions|things|photos|videos|seconds|minutes|files|problems|features|uploads)\b", "1 with a plural"),
]


class Case:
    """One bad input: `args` after `assist`; `expect` "fail" (it must not be accepted) or "any" (accepted with a
    warning is right too); `data` a prepared data folder; `speaks` keeps speech on (the case is about it); `names`
    what the message must name."""

    def __init__(self, name, args, expect="fail", stdin=None, data=None, speaks=False, options=True, names=None,
                 env=None):
        self.name, self.args, self.expect, self.stdin, self.data = name, args, expect, stdin, data
        self.speaks, self.options, self.env = speaks, options, env or {}
        # What the message must name (a setting's key, a file's name): a message that does not is unclear.
        self.names = names


def one_page_pdf(text: str) -> bytes:
    """A whole PDF of one page holding `text` in its text layer, with its cross-reference table."""
    content = b"BT /F1 14 Tf 40 700 Td (%s) Tj ET" % text.encode("latin-1")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> "
               b"/Contents 4 0 R >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return out + b"trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


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
    f["echo-path.json"] = work / "echo-path.json"
    f["echo-path.json"].write_text('{"format": 1, "frame": 160, "taps": [12, 4')
    # Whole and of the right size, but with a delay no canceller finds: it once overflowed when printed.
    f["echo-path-numbers.json"] = work / "echo-path-numbers.json"
    f["echo-path-numbers.json"].write_text(json.dumps({
        "format": 1, "frame": 160, "tailSamples": 4096, "taps": [0] * 4160, "shiftBlocks": 0,
        "lagBlocks": -(2 ** 62), "devices": "recordings (assist listen --reference)", "enhancementDecibels": 30.0}))
    f["truncated.wav"] = work / "truncated.wav"
    subprocess.run(["sox", "-V1", "-n", "-r", "16000", "-c", "1", "-b", "16", str(work / "tone.wav"), "synth", "1", "sine", "440"],
                   check=True)
    f["truncated.wav"].write_bytes((work / "tone.wav").read_bytes()[:30])
    f["silence.wav"] = work / "silence.wav"  # a microphone that heard nothing of the reference
    subprocess.run(["sox", "-V1", "-n", "-r", "16000", "-c", "1", "-b", "16", str(f["silence.wav"]), "trim", "0", "1"],
                   check=True)
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
    def single(change) -> str:
        """The shipped definition with its first one-choice question changed by `change(question)`."""
        definition = json.loads(json.dumps(shipped))
        question = next(item for part in definition["parts"] for item in part["items"] if item["type"] == "single")
        change(question)
        return json.dumps(definition)

    def options(count, label=lambda n: {"en": f"Option {n}"}):
        return [{"key": f"k{n}", "label": label(n)} for n in range(count)]

    definitions.update({
        "thousand-options.json": single(lambda q: q.update(options=options(1000))),
        "empty-labels.json": single(lambda q: q.update(options=options(3, lambda n: {"en": ""}))),
        "same-labels.json": single(lambda q: q.update(options=options(12, lambda n: {"en": "Yes"}))),
        "long-label.json": single(lambda q: q.update(options=options(2, lambda n: {"en": "x" * 10_000}))),
        "unknown-max.json": single(lambda q: q.update(maximum=3)),
        "then-list.json": single(lambda q: [o.update(then=["covid_never"]) for o in q.get("options", [])]),
    })
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
    # A good plugin folder (the C example), to pack where a package cannot go.
    f["hello"] = work / "hello"
    f["hello"].mkdir()
    subprocess.run(["cc", "-std=c99", "-fPIC", "-shared", "-I", str(ROOT / "Sources/PluginAPI/include"),
                    str(ROOT / "examples/c-hello/hello.c"), "-o", str(f["hello"] / "libhello.so")], check=True)
    shutil.copy(ROOT / "examples/c-hello/manifest.json", f["hello"] / "manifest.json")
    # Documents: a PDF cut short, a web page saved as .pdf, an empty one, TIFFs that are not, one locked.
    page = ("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] "
            "/Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\n"
            "trailer << /Root 1 0 R >>\n%%EOF\n")
    f["cut.pdf"] = work / "cut.pdf"
    f["cut.pdf"].write_text(page[:60])
    f["html.pdf"] = work / "html.pdf"
    f["html.pdf"].write_text("%PDF-<html><body>Not found</body></html>")
    f["empty.pdf"] = work / "empty.pdf"
    f["empty.pdf"].write_bytes(b"")
    f["text.tif"] = work / "text.tif"
    f["text.tif"].write_text("II*\0 but only text after it\n")
    subprocess.run(["convert", str(sample), "-compress", "Group4", "-type", "bilevel", str(work / "whole.tif")], check=True)
    f["cut.tif"] = work / "cut.tif"
    f["cut.tif"].write_bytes((work / "whole.tif").read_bytes()[:200])
    plain = f["plain.pdf"] = work / "plain.pdf"
    plain.write_bytes(one_page_pdf("A letter of one page, read while it is killed."))
    if shutil.which("qpdf"):
        f["locked.pdf"] = work / "locked.pdf"
        subprocess.run(["qpdf", "--encrypt", "secret", "owner", "256", "--", str(plain), str(f["locked.pdf"])],
                       check=True)
    # Label files a family might send to barcode.
    for name, data in {"empty.csv": b"", "no-header.csv": b"4006381333931,Tomato soup\n",
                       "binary.csv": os.urandom(2048), "control.csv": b"code,name\n4006381333931,Soup\x1b[2J\x07\n",
                       "short-row.csv": b"code,name\n4006381333931\n"}.items():
        f[name] = work / name
        f[name].write_bytes(data)
    f["folder.csv"] = work / "folder.csv"
    f["folder.csv"].mkdir()
    # Data folders with a file damaged: settings, the event journal, barcode's labels, find-object's things.
    for name, file, data in [("damaged-settings", "assist/settings.toml", b"[speech\nrate = = 3\x00"),
                             ("journal-nul", "events.jsonl", b"\x00" * 1_000_000),
                             ("damaged-labels", "plugins/assist.barcode/labels.sqlite", b"\x00not a database" * 64),
                             ("damaged-things", "plugins/assist.find-object/things.sqlite", b"\x00not a database" * 64)]:
        path = work / name / file
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(data)
    (work / "journal-folder" / "events.jsonl").mkdir(parents=True, mode=0o700)
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
        Case("pack into a folder that does not exist", ["plugins", "pack", str(f["hello"]), "--output", "/nonexistent/dir"],
             names="/nonexistent/dir"),
        Case("pack into a file", ["plugins", "pack", str(f["hello"]), "--output", str(work / "tone.wav")],
             names="tone.wav"),
        Case("info of an unknown plugin", ["plugins", "info", "no.such"]),
        Case("reset an unknown plugin", ["plugins", "reset", "no.such"]),
        Case("permissions of an unknown plugin", ["plugins", "permissions", "no.such", "--network", "on"]),
        Case("permission value not on or off", ["plugins", "permissions", "clock", "--network", "maybe"]),
        Case("remove an unknown plugin", ["plugins", "remove", "--yes", "no.such"]),
        # Voice.
        Case("listen to a text file", ["listen", "--mic", "wav:%s" % f["text.wav"]]),
        Case("listen with a missing reference", ["listen", "--mic", "wav:%s" % (work / "tone.wav"), "--reference", "wav:/nonexistent.wav"]),
        Case("listen with a damaged echo path", ["listen", "--mic", "wav:%s" % (work / "tone.wav"), "--reference",
                                                  "wav:%s" % (work / "tone.wav"), "--echo-path", str(f["echo-path.json"])],
             expect="any", names="echo-path.json"),
        Case("listen with an echo path of impossible numbers", ["listen", "--mic", "wav:%s" % f["silence.wav"],
                                                                "--reference", "wav:%s" % (work / "tone.wav"),
                                                                "--echo-path", str(f["echo-path-numbers.json"])],
             expect="any", names="echo-path-numbers.json"),
        Case("an echo path without a reference", ["listen", "--mic", "wav:%s" % (work / "tone.wav"), "--echo-path",
                                                  str(f["echo-path.json"])], names="--reference"),
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
    return c + generated(f, work)


# Wrong values for each kind of setting, three each, each a different way to be wrong; every one must be named
# by its key in the warning (accepted with the default or the nearest value is right: a file is never refused
# for one value).
BAD_VALUES = {
    "wholeNumber": ['"twelve"', "-999999999999", "1.5"],
    "number": ['"loud"', "1e300", "nan"],
    "flag": ['"maybe"', "2", "[true]"],  # "yes", "on", "true" and their opposites are flags
    "text": ["42", '["a"]', "true"],
    "oneOf": ['"bogus"', "7", '""'],
    "choice": ['"bogus"', "7", '""'],
    "list": ['"one"', "{ a = 1 }", "3"],  # a list of numbers is read as their texts
}


def settings_keys() -> list:
    """(key, kind) for every setting a config file may give: the host's, read from its schema (whose table is
    one `"key": .kind(...)` a line), and each first-party plugin's, from its manifest's user_settings."""
    schema = (ROOT / "Sources/AssistCore/SettingsSchema.swift").read_text()
    keys = re.findall(r'^\s+"([a-z-]+\.[a-z-]+)": \.(wholeNumber|number|flag|text|oneOf|list)\b', schema, re.M)
    for manifest in sorted((ROOT / "Plugins").glob("*/manifest.json")):
        for setting in json.loads(manifest.read_text()).get("user_settings") or []:
            keys.append((setting["key"], setting["type"]))
    return keys


def generated(f: dict, work: Path) -> list:
    """The families of cases made from tables: every setting key with wrong values, every photo feature with
    every bad picture, every document kind damaged, every command with an option it does not have, and the
    settings files themselves in shapes an editor or another system leaves."""
    c = []
    # Every setting with wrong values: the file is read, the value named with its key, line and what it takes.
    configs = work / "configs"
    configs.mkdir(exist_ok=True)
    keys = settings_keys()
    assert len(keys) >= 50, keys
    for key, kind in keys:
        for number, value in enumerate(BAD_VALUES[kind]):
            path = configs / f"{key}-{number}.toml"
            path.write_text(f'"{key}" = {value}\n')
            c.append(Case(f"setting {key} = {value}", ["say", "--audio-out", "null", "--config", str(path), "hi"],
                          expect="any", names=key))
    # Every photo feature with every bad picture: refused, the picture named.
    pictures = {"missing": Path("/nonexistent/photo.jpg"), "cut short": f["truncated.jpg"], "text": f["text.jpg"],
                "empty": f["empty.png"], "a folder": f["folder.jpg"]}
    for feature in ["light", "colour", "barcode"]:
        for what, path in pictures.items():
            c.append(Case(f"{feature} picture {what}", ["run", feature, "--image", str(path)], names=path.name))
        c.append(Case(f"{feature} --image without a picture", ["run", feature, "--image"]))
    # Documents: refused with the document named, or, locked with no password given, said so.
    documents = {"cut short": f["cut.pdf"], "a web page": f["html.pdf"], "empty": f["empty.pdf"],
                 "a TIFF that is text": f["text.tif"], "a TIFF cut short": f["cut.tif"], "a folder": f["folder.jpg"],
                 "missing": Path("/nonexistent/letter.pdf")}
    for what, path in documents.items():
        c.append(Case(f"read-text document {what}", ["run", "read-text", "--file", str(path), "--exit-at-end"],
                      names=path.name))
    if "locked.pdf" in f:
        c.append(Case("read-text document locked, no password given", ["run", "read-text", "--file", str(f["locked.pdf"]),
                                                                      "--exit-at-end"], stdin="", names="locked.pdf"))
    # Every feature and every command with an option it does not have: refused, the option named.
    for feature in ["read-text", "find-object", "collect-videos", "photo-sensor", "clock", "survey", "light",
                    "colour", "barcode"]:
        c.append(Case(f"{feature} with an unknown option", ["run", feature, "--frobnicate"], names="--frobnicate"))
    commands = [["shell"], ["say", "hi"], ["cue", "dot"], ["record", "1", str(work / "u.wav")], ["camera", "info"],
                ["camera", "test"], ["camera", "snapshot", str(work / "u.ppm")], ["events"], ["outbox"],
                ["outbox", "send"], ["plugins", "list"], ["plugins", "info", "clock"], ["plugins", "check", "clock"],
                ["doctor"], ["setup", "models"], ["survey", "check", str(f["empty.json"])], ["survey", "export"],
                ["survey", "reminders", "on"], ["listen"], ["voice", "tune", str(f["voice-empty"])], ["kiosk", "check"]]
    for words in commands:
        c.append(Case(f"{' '.join(words[:2])} with an unknown option", words + ["--frobnicate"], names="--frobnicate"))
    # Numbers an option cannot take.
    for value in ["-1", "abc", "1e9"]:
        c.append(Case(f"camera frame rate {value}", ["camera", "test", "--seconds", "1", "--camera", "pattern",
                                                      "--camera-fps", value]))
        c.append(Case(f"events --last {value}", ["events", "--last", value], expect="fail" if value != "1e9" else "any"))
    for value in ["", "xx", "en_US.UTF-8", "english"]:
        c.append(Case(f"language {value!r}", ["say", "--audio-out", "null", "--lang", value, "hi"]))
    # Settings files in shapes an editor or another system leaves: read (CRLF, a BOM, an inline table are TOML)
    # or named with what is wrong, never a crash, never a hang.
    shapes = {
        "Windows line endings": ("[speech]\r\nrate = 200\r\n", "any"),
        "a byte order mark": ("\ufeff[speech]\nrate = 200\n", "any"),
        "an inline table": ("speech = { rate = 200 }\n", "any"),
        "an array of tables": ("[[speech]]\nrate = 200\n", "any"),
        "a date for a number": ("[speech]\nrate = 2026-12-03\n", "any"),
        "a NUL in a key": ('"spe\\u0000ech" = 1\n', "any"),
        "tables 200 deep": ("[" + ".".join(["a"] * 200) + "]\nx = 1\n", "any"),
        "a line of 1 MB": ("x = \"" + "a" * 1_000_000 + "\"\n", "any"),
        "only a comment": ("# nothing here\n", "any"),
        "a key without a value": ("[speech]\nrate =\n", "fail"),
        "a table never closed": ("[speech\nrate = 200\n", "fail"),
        "Latin-1 bytes": (None, "fail"),
    }
    for what, (text, expect) in shapes.items():
        path = configs / f"shape-{len(c)}.toml"
        if text is None:
            path.write_bytes(b"[speech]\nvoice = \"caf\xe9\"\n")
        else:
            path.write_text(text)
        c.append(Case(f"config with {what}", ["say", "--audio-out", "null", "--config", str(path), "hi"], expect=expect))
    c.append(Case("config that is a folder", ["say", "--audio-out", "null", "--config", str(configs), "hi"]))
    # Survey definitions nobody can answer by ear (issue 73, item 4): refused by `survey check`.
    for what, name in [("a question of 1,000 options", "thousand-options.json"), ("empty option labels", "empty-labels.json"),
                       ("12 options read the same", "same-labels.json"), ("a label of 10,000 characters", "long-label.json"),
                       ("an unknown key in a question", "unknown-max.json"), ("then given as a list", "then-list.json")]:
        c.append(Case(f"survey definition with {what}", ["survey", "check", str(f[name])]))
    # The survey's and the kiosk's own settings given wrong (issue 73, items 4 and 7): named, never ignored.
    for key, value in [("sample-rate", "8000"), ("reminder-time", '"25:99"'), ("retry-seconds", '"x"'),
                       ("eligible-after-seconds", "-7")]:
        path = configs / f"survey-{key}.toml"
        path.write_text(f"[survey]\n{key} = {value}\n")
        shipped = ROOT / "Plugins/Survey/share/surveys/covid19-sounds.json"
        c.append(Case(f"survey setting {key} = {value}", ["survey", "check", str(shipped), "--config", str(path)],
                      expect="any", names=key))
    for key, value in [("session", '["per-person"]'), ("idle-minutes", "1.5")]:
        path = configs / f"kiosk-{key}.toml"
        path.write_text(f"[kiosk]\n{key} = {value}\n")
        c.append(Case(f"kiosk setting {key} = {value}", ["kiosk", "check", "--config", str(path)], expect="any",
                      names=key))
    # Sound files that hold no sound (issue 73, item 8): said, never a silent end.
    header = work / "header-only.wav"
    header.write_bytes((work / "tone.wav").read_bytes()[:44])
    sample = work / "one-sample.wav"
    sample.write_bytes((work / "tone.wav").read_bytes()[:46])
    for what, path in [("a header only", header), ("one sample", sample)]:
        c.append(Case(f"listen to a WAV of {what}", ["listen", "--mic", "wav:%s" % path], expect="any", names=path.name))
    # Barcode labels imported from files a family might send.
    for what, name in [("empty", "empty.csv"), ("without a header", "no-header.csv"), ("binary", "binary.csv"),
                       ("with control characters", "control.csv"), ("with a missing column", "short-row.csv"),
                       ("missing", "nonexistent.csv"), ("a folder", "folder.csv")]:
        path = f.get(name, work / name)
        c.append(Case(f"barcode labels import {what}", ["run", "barcode", "import", str(path)], expect="any",
                      names=Path(path).name))
    c.append(Case("barcode labels export below a file", ["run", "barcode", "export", str(work / "tone.wav/labels.csv")]))
    c.append(Case("barcode forget a label never given", ["run", "barcode", "forget", "Soup", "--yes"]))
    c.append(Case("barcode rename with one name", ["run", "barcode", "rename", "Soup"]))
    # Files in the data folder damaged by a crash or a full disk: said, kept aside, a way on.
    c.append(Case("saved settings not TOML", ["say", "--audio-out", "null", "hi"], expect="any",
                  env={"XDG_CONFIG_HOME": str(work / "damaged-settings")}, names="settings"))
    for what, data, words in [("the event journal a folder", "journal-folder", ["events", "--last", "3"]),
                              ("the event journal NUL bytes", "journal-nul", ["events", "--last", "3"]),
                              ("barcode's labels not a database", "damaged-labels", ["run", "barcode", "labels"]),
                              ("find-object's things not a database", "damaged-things", ["run", "find-object", "things"])]:
        c.append(Case(f"data folder: {what}", words, data=data, expect="any"))
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


def judge(message: str, status: int, expect: str, names=None) -> list:
    """The rules a message is judged by: no insides of the program (INTERNAL), something said when it fails,
    a bad input never accepted where it must be refused, and the input named where the case says what it is."""
    problems = [why for pattern, why in INTERNAL if re.search(pattern, message)]
    if status != 0 and not message:
        problems.append("failed without a word")
    if expect == "fail" and status == 0:
        problems.append("accepted")
    if names and names not in message:
        problems.append(f"does not name {names}")
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
    env.update(case.env)
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
            "message": message, "problems": [] if hung or crashed else judge(message, status, case.expect, case.names)}


# When each feature is killed, in seconds after it starts: while it loads, while it asks or opens its camera or
# files, and once it is running (five kills a feature).
KILL_MOMENTS = [0.3, 0.8, 1.5, 2.5, 4.0]


def kill_cycles(assist: str, work: Path, f: dict) -> list:
    """Each feature killed with SIGKILL at each of KILL_MOMENTS, in a data folder of its own: afterwards it may not
    be turned off, and nothing may be left half-written (every SQLite database passes its quick check, the saved
    settings are TOML). (name, problems) for each feature; the features run four at a time."""
    page = ROOT / "share/assist/camera/sample.jpg"
    runs = {
        "survey": ["survey", "start", "--no-speech"],
        "collect-videos": ["run", "collect-videos", "--no-speech", "--camera", "pattern"],
        "photo-sensor": ["run", "photo-sensor", "--no-speech"],
        "read-text": ["run", "read-text", "--no-speech", "--camera", "image:%s" % page],
        "read-text document": ["run", "read-text", "--no-speech", "--file", str(f["plain.pdf"])],
        "find-object": ["run", "find-object", "--no-speech", "--camera", "image:%s" % page, "cup"],
        "barcode": ["run", "barcode", "--no-speech", "--camera", "pattern"],
        "light": ["run", "light", "--no-speech", "--camera", "pattern"],
        "colour": ["run", "colour", "--no-speech", "--camera", "pattern"],
        "clock": ["run", "clock", "--no-speech"],
        "shell": ["shell", "--no-speech"],
    }

    def cycle(name, words):
        data = work / "data" / "kills" / name.replace(" ", "-")
        data.mkdir(parents=True, exist_ok=True, mode=0o700)
        env = dict(os.environ, ASSIST_DATA_DIR=str(data), HOME=str(work / "home"))
        for moment in KILL_MOMENTS:
            process = subprocess.Popen([assist] + words, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, env=env, start_new_session=True)
            time.sleep(moment)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        problems = []
        listed = subprocess.run([assist, "plugins", "list"], env=env, capture_output=True, text=True, timeout=LIMIT)
        feature = name.split()[0]
        problems += [f"turned off: {line.strip()}" for line in listed.stdout.splitlines()
                     if feature in line and "turned off" in line.lower()]
        for database in data.rglob("*.sqlite"):
            try:
                connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
                verdict = connection.execute("PRAGMA quick_check").fetchone()[0]
                connection.close()
            except sqlite3.Error as error:
                verdict = str(error)
            if verdict != "ok":
                problems.append(f"{database.relative_to(data)} half-written: {verdict}")
        for settings in data.rglob("settings.toml"):
            try:
                tomllib.loads(settings.read_text())
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                problems.append(f"{settings.relative_to(data)} half-written: {error}")
        return name, problems

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda item: cycle(*item), runs.items()))


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
        # Three cases at a time, each in a data folder of its own (those given a prepared folder only read it
        # or keep its damaged file aside, once each); results in the table's order.
        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
            results = list(pool.map(lambda item: run_case(options.assist, item[1], work, item[0]),
                                    enumerate(chosen, 1)))
        for index, (case, r) in enumerate(zip(chosen, results), 1):
            verdict = "HANG" if r["hung"] else "CRASH" if r["crashed"] else ("; ".join(r["problems"]) or "ok")
            crashes += r["crashed"]
            hangs += r["hung"]
            flagged += bool(r["problems"])
            message = r["message"].replace("|", "\\|")
            rows.append(f"| {index} | {case.name} | {r['status']} | {r['seconds']:.1f} | {verdict} | {message} |")
            if verdict != "ok":
                print(f"{index}. {case.name}: {verdict}: {r['message'][:300]}", flush=True)
        kills = [] if options.only else kill_cycles(options.assist, work, files)
        turned_off = [name for name, problems in kills if problems]
        for name, problems in kills:
            for problem in problems:
                print(f"kill -9 {len(KILL_MOMENTS)} times: {name}: {problem}")
        table = "\n".join(rows) + "\n"
        if options.table:
            Path(options.table).write_text(table)
        print(f"sweep: {len(chosen)} bad inputs, {len(KILL_MOMENTS) * len(kills)} kill -9s: {crashes} crashes, "
              f"{hangs} hangs, {flagged} messages that break a rule, {len(turned_off)} features turned off or left "
              "half-written by kills")
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
