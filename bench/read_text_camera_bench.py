#!/usr/bin/env python3
"""read-text with the camera (issue 37): time from start to the first line read from a still camera, with the
early start (a settling picture recognised before the stability wait ends) and without it, alternating runs in
one session. The page: 20 lines of print on a 1400x1000 picture, rendered here with ImageMagick; the camera: the
picture repeated at 16 frames a second (`--camera image:`). Release build, OMP_THREAD_LIMIT=1 as installed."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "7"))
ASSIST = os.path.join(os.path.dirname(__file__), "..", ".build", "release", "assist")


def page(path):
    lines = []
    for index in range(20):
        lines += ["-annotate", f"+30+{50 + index * 46}",
                  f"Line {index + 1} is printed here with the quick brown fox and the lazy dog."]
    subprocess.run(["convert", "-size", "1400x1000", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "30",
                    "-fill", "black", *lines, "-blur", "0x0.6", path], check=True)


def first_line(picture, data, early):
    environment = dict(os.environ, OMP_THREAD_LIMIT="1")
    if not early:
        environment["ASSIST_READ_TEXT_NO_EARLY_START"] = "1"
    started = time.monotonic()
    process = subprocess.Popen(
        [ASSIST, "run", "--no-speech", "--data-dir", data, "--camera", f"image:{picture}", "--camera-fps", "16",
         "read-text", "--exit-at-end"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=environment)
    elapsed = None
    for line in process.stdout:
        if line.startswith("Line "):
            elapsed = (time.monotonic() - started) * 1000
            break
    process.kill()
    process.wait()
    if elapsed is None:
        sys.exit("read-text read nothing from the page: the benchmark cannot measure")
    return elapsed


def main():
    with tempfile.TemporaryDirectory() as folder:
        picture = os.path.join(folder, "page.png")
        page(picture)
        data = os.path.join(folder, "data")
        first_line(picture, data, True)  # the first-use notice, once
        early, waited = [], []
        for _ in range(RUNS):
            early.append(first_line(picture, data, True))
            waited.append(first_line(picture, data, False))
    load = os.getloadavg()[0]
    print(f"read-text from a still camera, first line (median of {RUNS}, load {load:.2f}):")
    print(f"  early start           {statistics.median(early):6.0f} ms  {[round(x) for x in early]}")
    print(f"  after the wait (base) {statistics.median(waited):6.0f} ms  {[round(x) for x in waited]}")
    print(f"  ratio {statistics.median(early) / statistics.median(waited):.2f}")


main()
