#!/usr/bin/env python3
"""Makes barcode's benchmark set (issue 75): 200 pictures of codes made with zint (EAN-13, EAN-8, UPC-A, UPC-E,
Code 128, QR), each with a white quiet zone of 20 modules, pasted into photographs at 1280 x 720, turned in
perspective up to 30 degrees, blurred, saved as
JPEG at quality 60, some in low light and some under glare; and 100 pictures without a code (the same
photographs, cropped, turned, dimmed). truth.tsv lists each file and the code it holds ('' for none).
Usage: barcode_set.py FOLDER. Deterministic (seed 75)."""
import math, os, random, subprocess, sys

PHOTOS = ["/usr/share/darknet/data/%s.jpg" % n for n in ("dog", "eagle", "giraffe", "horses", "kite", "person", "scream")]
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
rng = random.Random(75)


def gs1(digits):
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def code(kind):
    """(zint symbology, data given to zint, text zbar gives back)."""
    if kind == "ean13":
        body = "".join(rng.choice("0123456789") for _ in range(12))
        return "EANX", body, body + gs1(body)
    if kind == "ean8":
        body = "".join(rng.choice("0123456789") for _ in range(7))
        return "EANX", body, body + gs1(body)
    if kind == "upca":
        body = "".join(rng.choice("0123456789") for _ in range(11))
        return "UPCA", body, body + gs1(body)
    if kind == "upce":
        # Last digit 5 to 9: the UPC-A is the five digits, 0000, then it; the fifth may not be 0.
        body = "0" + "".join(rng.choice("0123456789") for _ in range(4)) + rng.choice("123456789") + rng.choice("56789")
        # The check digit is the expanded UPC-A's.
        m = body[1:]
        upca = "0" + m[0:5] + "0000" + m[5]
        return "UPCE", body, body + gs1(upca)
    if kind == "code128":
        text = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-") for _ in range(rng.randint(6, 14)))
        return "CODE128", text, text
    words = ["tomato", "soup", "rice", "tea", "milk", "shelf", "room", "bin", "door", "pills"]
    text = " ".join(rng.choice(words) for _ in range(rng.randint(2, 8)))
    return "QRCODE", text, text


def run(arguments):
    subprocess.run(arguments, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


kinds = ["ean13", "ean8", "upca", "upce", "code128", "qr"]
truth = []
for index in range(200):
    kind = kinds[index % len(kinds)]
    symbology, data, text = code(kind)
    made = os.path.join(folder, "code-%03d.png" % index)
    run(["zint", "-b", symbology, "-d", data, "--scale=%d" % rng.choice([2, 2, 3]), "-o", made])
    width, height = map(int, subprocess.run(["identify", "-format", "%w %h", made], check=True,
                                            capture_output=True, text=True).stdout.split())
    w, h = width + 80, height + 80
    # Turned away up to 30 degrees: the width shortened by cos(angle), the far side shorter (as the tests do).
    angle = math.radians(rng.uniform(0, 30))
    d = 0.75 * w * (1 - math.cos(angle))
    corners = "0,0 %f,%f  %d,0 %d,0  %d,%d %d,%d  0,%d %f,%f" % (d, d / 2, w, w, w, h, w, h, h, d, h - d / 2)
    if rng.random() < 0.5:
        corners = "0,0 %f,0  %d,0 %f,%f  %d,%d %f,%f  0,%d %f,%d" % (d / 3, w, w - d, d / 2, w, h, w - d, h - d / 2, h, d / 3, h)
    x = rng.randint(-250, 250)
    y = rng.randint(-120, 120)
    effects = ["-blur", "0x%.2f" % rng.uniform(0, 1.2)]
    light = rng.random()
    if light < 0.25:
        effects += ["-evaluate", "multiply", "%.2f" % rng.uniform(0.25, 0.5), "-attenuate", "0.4", "+noise", "Gaussian"]
    elif light < 0.45:
        gx, gy = rng.randint(200, 1080), rng.randint(100, 620)
        effects += ["(", "-size", "1280x720", "radial-gradient:white-black", "-roll", "+%d+%d" % (gx - 640, gy - 360),
                    "-evaluate", "multiply", "0.6", ")", "-compose", "screen", "-composite"]
    out = os.path.join(folder, "scene-%03d.jpg" % index)
    run(["convert", rng.choice(PHOTOS), "-resize", "1280x720!", "(", made, "-bordercolor", "white", "-border", "40",
         "-virtual-pixel", "transparent", "-alpha", "set", "+distort", "Perspective", corners,
         "-resize", "%d%%" % rng.randint(80, 130), ")", "-gravity", "center", "-geometry", "%+d%+d" % (x, y),
         "-composite"] + effects + ["-quality", "60", out])
    os.remove(made)
    truth.append((os.path.basename(out), text))
for index in range(100):
    out = os.path.join(folder, "none-%03d.jpg" % index)
    photo = rng.choice(PHOTOS)
    run(["convert", photo, "-rotate", "%.1f" % rng.uniform(-20, 20), "-gravity", "center", "-crop",
         "%d%%x%d%%+0+0" % (rng.randint(50, 100), rng.randint(50, 100)), "+repage", "-resize", "1280x720!",
         "-evaluate", "multiply", "%.2f" % rng.uniform(0.3, 1.2), "-quality", "60", out])
    truth.append((os.path.basename(out), ""))
with open(os.path.join(folder, "truth.tsv"), "w") as f:
    for name, text in truth:
        f.write("%s\t%s\n" % (name, text))
print("barcode set: 200 pictures with a code, 100 without, in %s" % folder)
