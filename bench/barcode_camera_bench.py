#!/usr/bin/env python3
"""barcode from the camera (issue 75: first read at most 300 ms after the code is steady). The camera is a still
picture of a code (`--camera image:`, 15 frames a second, as barcode asks), so the code is steady before the camera
opens: the time from barcode's first words (said just before it opens the camera) to the code said is the time
from a steady code to its first reading, with the camera's opening in it, an upper bound. The baseline, in the same
runs: the time from the process's start to barcode's first words. Pictures: the first PICTURES of bench/barcode.sh's
set whose codes are product numbers or QR (the kinds in turn), each read RUNS times. Release build.
Usage: barcode_camera_bench.py SET_FOLDER"""
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "3"))
PICTURES = int(os.environ.get("PICTURES", "12"))
ASSIST = os.path.join(os.path.dirname(__file__), "..", ".build", "release", "assist")


def run(picture, text, data):
    """(ms from start to the first words, ms from the first words to the code), or None when it was not read."""
    started = time.monotonic()
    process = subprocess.Popen(
        [ASSIST, "run", "--no-speech", "--data-dir", data, "--camera", f"image:{picture}", "--camera-fps", "15",
         "barcode"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    intro = None
    result = None
    deadline = started + 10
    pending = b""
    # Read as lines come, never blocking past the deadline (a code never read prints nothing more).
    while result is None and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.05)
        if not ready:
            continue
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            break
        now = time.monotonic()
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in (raw.decode("utf-8", "replace") for raw in lines):
            if intro is None and line.startswith("Barcode reader"):
                intro = now
            # An EAN-13 beginning with 0 is a UPC-A, said without it.
            elif intro is not None and (text in line or (len(text) == 13 and text[0] == "0" and text[1:] in line)):
                result = ((intro - started) * 1000, (now - intro) * 1000)
                break
    process.kill()
    process.wait()
    return result


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main():
    folder = sys.argv[1]
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(folder, "truth.tsv"))]
    chosen = [(name, text) for name, text in rows if text][:PICTURES]
    starts, reads, missed = [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "data")
        run(os.path.join(folder, chosen[0][0]), chosen[0][1], data)  # the first start's longer introduction
        for _ in range(RUNS):
            for name, text in chosen:
                timed = run(os.path.join(folder, name), text, data)
                if timed is None:
                    missed.append(name)
                    continue
                starts.append(timed[0])
                reads.append(timed[1])
    if not reads:
        sys.exit("barcode read no code from the camera: the benchmark cannot measure")
    load = os.getloadavg()[0]
    print(f"barcode from a still camera, {len(reads)} reads of {len(chosen)} pictures (load {load:.2f}):")
    print(f"  steady code to its first reading  median {statistics.median(reads):5.0f} ms, "
          f"p95 {percentile(reads, 0.95):5.0f} ms (goal 300 ms, the camera's opening included)")
    print(f"  start to barcode's first words (base) median {statistics.median(starts):5.0f} ms")
    print(f"  ratio {statistics.median(reads) / statistics.median(starts):.2f}")
    if missed:
        print(f"  not read within 10 s: {len(missed)} ({', '.join(sorted(set(missed)))})")


main()
