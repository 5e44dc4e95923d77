#!/usr/bin/env python3
"""read-text on a scanned document opened again partway (issue 70): time from the command to the first sentence
of the page reading stopped at (page 8 of 10, "yes" typed as soon as Assist asks), against the time to the first
page's first sentence of the same document opened afresh, in alternating runs of one session. Each page is a
picture only (an A4 scan at 300 dpi, 30 lines, JPEG), so every page is recognised by tesseract. Before
DocumentPageOrder the eighth page came after the seven before it were recognised (a ratio near 8); now it is
recognised first, while the question is asked (a ratio near 1). On a pseudo-terminal, with `--audio-out null`
(reading at a sound card's pace); a line is timed when Assist prints it. Release build (bench/read-text.sh builds
it); ASSIST=PATH measures another build."""
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import minimal_pdf

RUNS = int(os.environ.get("RUNS", "5"))
PAGES, RESUME_AT = 10, 8
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ASSIST = os.environ.get("ASSIST", os.path.join(ROOT, ".build", "release", "assist"))
WIDTH, HEIGHT = 2480, 3508


def first_line(page):
    return f"Page {page} of the statement begins here."


def scan(page, path):
    """One A4 page at 300 dpi as a grey JPEG: its first line, then 29 lines of running text."""
    lines = [first_line(page)] + [
        f"Line {line} of page {page} tells what was paid and when it was paid." for line in range(2, 31)]
    draw = []
    for number, line in enumerate(lines):
        draw += ["-annotate", f"+200+{300 + number * 95}", line]
    made = subprocess.run(
        ["convert", "-size", f"{WIDTH}x{HEIGHT}", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "42",
         "-fill", "black", *draw, "-type", "Grayscale", "-quality", "80", path], capture_output=True, text=True)
    if made.returncode != 0:
        sys.exit(f"ImageMagick could not draw a page ({made.stderr.strip()}): run scripts/install-deps.sh")


def image_only_pdf(jpegs, path):
    """A PDF 1.4 whose pages are the JPEGs, A4, nothing else (no text layer)."""
    objects, kids = [], []
    pages_number = 3 * len(jpegs) + 1
    for jpeg in jpegs:
        with open(jpeg, "rb") as file:
            data = file.read()
        objects.append(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                       b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % (WIDTH, HEIGHT, len(data))
                       + data + b"\nendstream")
        image = len(objects)
        draw = b"q 595 0 0 842 0 0 cm /Im0 Do Q"
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(draw), draw))
        contents = len(objects)
        objects.append(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 %d 0 R"
                       b" >> >> /Contents %d 0 R >>" % (pages_number, image, contents))
        kids.append(b"%d 0 R" % len(objects))
    objects.append(b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % len(jpegs))
    objects.append(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_number)
    minimal_pdf.write(objects, path)


class Session:
    """`assist run read-text --file PDF` on a pseudo-terminal."""

    def __init__(self, pdf, data):
        master, slave = os.openpty()
        self.started = time.monotonic()
        self.child = subprocess.Popen(
            [ASSIST, "run", "--audio-out", "null", "--data-dir", data, "read-text", "--file", pdf],
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True, close_fds=True)
        os.close(slave)
        self.master, self.text = master, ""

    def wait_for(self, words, limit=300):
        """Seconds from the command until `words` were printed."""
        deadline = time.monotonic() + limit
        while words not in self.text:
            if time.monotonic() > deadline:
                self.stop()
                sys.exit(f"read-text never printed {words!r}; it printed:\n{self.text[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.text += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    pass
        return time.monotonic() - self.started

    def type(self, keys):
        for key in keys:
            os.write(self.master, key.encode())
            time.sleep(0.02)

    def stop(self):
        """Hangs up, as closing the terminal does: read-text keeps where reading is."""
        self.child.send_signal(signal.SIGHUP)
        try:
            self.child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
        os.close(self.master)


def main():
    if not os.access(ASSIST, os.X_OK):
        sys.exit("No release build: run bash bench/read-text.sh (or swift build -c release).")
    with tempfile.TemporaryDirectory() as folder:
        jpegs = []
        for page in range(1, PAGES + 1):
            jpegs.append(os.path.join(folder, f"page-{page}.jpg"))
            scan(page, jpegs[-1])
        pdf = os.path.join(folder, "statement.pdf")
        image_only_pdf(jpegs, pdf)
        kept, fresh = os.path.join(folder, "kept"), os.path.join(folder, "fresh")
        # Reading left at page 8 once (the first use's notice said there, and in the fresh folder).
        first = Session(pdf, kept)
        first.wait_for(first_line(1))
        first.type(f"/page {RESUME_AT}\r")
        first.wait_for(first_line(RESUME_AT))
        first.stop()
        notice = Session(pdf, fresh)
        notice.wait_for(first_line(1))
        notice.stop()
        resumed, afresh = [], []
        for _ in range(RUNS):
            again = Session(pdf, kept)
            again.wait_for("Go on from there?")
            again.type("y")
            resumed.append(again.wait_for(first_line(RESUME_AT)) * 1000)
            again.stop()
            new = Session(pdf, fresh)
            afresh.append(new.wait_for(first_line(1)) * 1000)
            new.stop()
    load = os.getloadavg()[0]
    print(f"read-text on a {PAGES}-page scanned PDF opened again at page {RESUME_AT} (median of {RUNS}, "
          f"load {load:.2f}):")
    print(f"  page {RESUME_AT}'s first line, yes typed at the question  {statistics.median(resumed):6.0f} ms  "
          f"{[round(x) for x in resumed]}")
    print(f"  page 1's first line, opened afresh (base)         {statistics.median(afresh):6.0f} ms  "
          f"{[round(x) for x in afresh]}")
    print(f"  ratio: {statistics.median(resumed) / statistics.median(afresh):.2f} (one page's recognition: about 1;"
          f" the {RESUME_AT - 1} pages before it first: about {RESUME_AT})")


if __name__ == "__main__":
    main()
