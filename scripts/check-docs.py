#!/usr/bin/env python3
"""Checks that the docs name what is in the tree (`make test` runs it):

  - every file or folder of the project a page names in backticks (`Sources/...`, `scripts/...`) exists; a
    plugin's `share/...` may be in its own folder (`Plugins/<Name>/share/`), where it is installed from, and a
    name in capitals (`MAJOR.MINOR`) or angle brackets stands for many;
  - docs/architecture.md's table of files over 500 lines lists exactly the source files over 500 lines (generated
    ones aside) with their line counts today, and the sentence above it says how many there are.

Prints each thing that is untrue and exits 1; prints nothing and exits 0 when all hold.
"""
import glob
import os
import re
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
problems = []
ROOTS = r"^(Sources|Plugins|Tests|scripts|bench|share|docs|examples|\.ci|debian)/"


def exists(path):
    path = path.rstrip("/")
    if os.path.exists(path):
        return True
    if path.startswith("share/"):
        rest = re.sub(r"^share/(assist/[^/]+/)?", "", path)
        return any(os.path.exists(os.path.join(d, rest)) for d in glob.glob("Plugins/*/share"))
    return False


for page in sorted(glob.glob("docs/*.md")) + ["README.md"]:
    with open(page, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            for match in re.finditer(r"`([A-Za-z0-9_.+\-/<>*]+)`", line):
                path = match.group(1)
                if not re.match(ROOTS, path) or re.search(r"[<>*]|[A-Z]{3,}\.", path):
                    continue
                if not exists(path):
                    problems.append(f"{page}:{number}: names {path}, which is not in the tree")


def lines(path):
    with open(path, "rb") as file:
        return file.read().count(b"\n")


sources = [p for p in glob.glob("Sources/**/*", recursive=True) + glob.glob("Plugins/**/*", recursive=True)
           if p.endswith((".swift", ".c", ".h", ".py")) and "/generated/" not in p and os.path.isfile(p)]
long = {p: lines(p) for p in sources if lines(p) > 500}
with open("docs/architecture.md", encoding="utf-8") as file:
    text = file.read()
section = text.split("## Files over 500 lines, and why", 1)
if len(section) < 2:
    problems.append("docs/architecture.md: no section 'Files over 500 lines, and why'")
else:
    body = section[1].split("\n## ", 1)[0]
    listed = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| `([^`]+)` \| (\d+) \|", body, re.M)}
    for path, count in sorted(listed.items()):
        if path not in long:
            actual = lines(path) if os.path.exists(path) else "no such file"
            problems.append(f"docs/architecture.md: lists {path} at {count} lines; it has {actual} (500 or fewer)")
        elif long[path] != count:
            problems.append(f"docs/architecture.md: lists {path} at {count} lines; it has {long[path]}")
    for path in sorted(set(long) - set(listed)):
        problems.append(f"docs/architecture.md: {path} has {long[path]} lines and is not in the table")
    words = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"]
    said = re.search(r"(\w+) files? (?:is|are) longer than 500 lines", body)
    want = words[len(long)] if len(long) < len(words) else str(len(long))
    if not said or said.group(1) != want:
        problems.append(f"docs/architecture.md: should say \"{want} files are longer than 500 lines\"")

for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
