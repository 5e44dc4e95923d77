#!/usr/bin/env python3
"""read-text on a PDF with a text layer (issue 70): time from the command to the first audible sample of the
document's first sentence, against `pdftotext -l 1 FILE - | espeak-ng --stdout` to its first audible sample, in
alternating runs of one session. The document: 50 A4 pages of 40 lines each (Helvetica, nothing embedded),
written here. Assist's sound goes through ALSA's file plugin into a FIFO read here as it is written (raw 16-bit
samples), so a sample is timed when Assist plays it. Release build (bench/read-text.sh builds it)."""
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

import minimal_pdf

RUNS = int(os.environ.get("RUNS", "7"))
PAGES = 50
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ASSIST = os.path.join(ROOT, ".build", "release", "assist")
FIRST = "The letter you asked for is on its way to you by post."


def document(path):
    """A PDF 1.4 of PAGES pages with a text layer: a page tree, one content stream a page, Helvetica."""
    objects = [b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    pages_number = 2 + 2 * PAGES
    kids = []
    for page in range(PAGES):
        lines = [FIRST] if page == 0 else []
        lines += [f"Page {page + 1}, line {line + 1}: the quick brown fox jumps over the lazy dog."
                  for line in range(40 - len(lines))]
        text = "BT /F1 11 Tf 14 TL 50 800 Td " + " ".join(f"({line}) '" for line in lines) + " ET"
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text.encode()))
        contents = len(objects)
        objects.append(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 1 0 R >>"
                       b" >> /Contents %d 0 R >>" % (pages_number, contents))
        kids.append(b"%d 0 R" % len(objects))
    objects.append(b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % PAGES)
    objects.append(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_number)
    minimal_pdf.write(objects, path)


def first_audible(read, started, skip_header=0):
    """Reads 16-bit samples with `read` until one is audible: ms after `started`, or None at the end."""
    buffer = b""
    while True:
        chunk = read()
        if not chunk:
            return None
        buffer += chunk
        usable = (len(buffer) - skip_header) // 2
        if usable > 0 and any(abs(sample) > 64 for sample in struct.unpack(
                "<%dh" % usable, buffer[skip_header:skip_header + 2 * usable])):
            return (time.monotonic() - started) * 1000


def assist_run(pdf, data, fifo, check=True):
    """The first audible sample and the first printed line of `assist run read-text --file`, in ms; `check`:
    the document's first sentence must come first (the first run in a data folder says a notice before it)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [ASSIST, "run", "--data-dir", data, "--audio-out", f"alsa:file:FILE={fifo},FORMAT=raw", "read-text",
         "--file", pdf, "--exit-at-end"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    printed = {}

    def watch():
        for line in process.stdout:
            if line.strip() and "line" not in printed:
                printed["line"] = ((time.monotonic() - started) * 1000, line.strip())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    descriptor = os.open(fifo, os.O_RDONLY)
    try:
        heard = first_audible(lambda: os.read(descriptor, 65536), started)
    finally:
        process.kill()
        process.wait()
        os.close(descriptor)
    watcher.join(5)
    if check and (heard is None or printed.get("line", (0, ""))[1] != FIRST):
        sys.exit(f"read-text did not begin with the document's first sentence ({printed}): cannot measure")
    return heard, printed["line"][0]


def baseline_run(pdf):
    started = time.monotonic()
    process = subprocess.Popen(["/bin/sh", "-c", f"pdftotext -l 1 '{pdf}' - | espeak-ng --stdout"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    heard = first_audible(lambda: process.stdout.read1(65536), started, skip_header=44)
    process.stdout.read()
    process.wait()
    if heard is None:
        sys.exit("pdftotext | espeak-ng gave no sound: is poppler-utils installed (scripts/install-deps.sh)?")
    return heard


def main():
    if not os.access(ASSIST, os.X_OK):
        sys.exit("No release build: run bash bench/read-text.sh (or swift build -c release).")
    with tempfile.TemporaryDirectory() as folder:
        pdf = os.path.join(folder, "letter.pdf")
        document(pdf)
        fifo = os.path.join(folder, "sound")
        os.mkfifo(fifo)
        data = os.path.join(folder, "data")
        assist_run(pdf, data, fifo, check=False)  # the first-use notice, once
        heard, printed, baseline = [], [], []
        for _ in range(RUNS):
            first, line = assist_run(pdf, data, fifo)
            heard.append(first)
            printed.append(line)
            baseline.append(baseline_run(pdf))
    load = os.getloadavg()[0]
    print(f"read-text on a {PAGES}-page PDF with a text layer, the first sentence (median of {RUNS}, load {load:.2f}):")
    print(f"  Assist, first audible sample  {statistics.median(heard):6.0f} ms  {[round(x) for x in heard]}"
          " (goal < 150 ms)")
    print(f"  Assist, first line printed    {statistics.median(printed):6.0f} ms  {[round(x) for x in printed]}")
    print(f"  pdftotext | espeak-ng (base)  {statistics.median(baseline):6.0f} ms  {[round(x) for x in baseline]}")
    print(f"  share of the baseline's time: {statistics.median(heard) / statistics.median(baseline):.2f}")


if __name__ == "__main__":
    main()
