#!/usr/bin/env python3
"""How many of the package's tests spawn the built `assist` (issue 69's figure), read from the test sources.

A test spawns it when its body names `BuildProducts.assist` (or `PseudoTerminal(`, `ViewedShell`, which run it)
other than as the program of a plugin's helper process or a kiosk unit, or calls a helper of its own file or of
HostTesting that does, followed through helpers calling helpers. A parameterised test counts once. Prints the
counts and the share; `--list` prints each spawning test.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPAWNS = re.compile(r"BuildProducts\.assist\b|PseudoTerminal\(|ViewedShell\b")
# Lines that name the binary without running it: the program helper processes are started from (a plugin's
# helper, not the app), a kiosk unit's ExecStart.
NAMED_ONLY = re.compile(r"^.*(helperExecutable|executable: BuildProducts\.assist).*$", re.M)


def bodies(text):
    """(name, is_test, body) for every function in `text`, its body found by matching braces."""
    found = []
    inside = -1  # where the body of the last function found ends: a function inside it is part of it
    for match in re.finditer(r"\bfunc\s+(\w+)", text):
        start = text.find("{", match.end())
        if start < 0 or match.start() < inside:
            continue
        # A test: `@Test` (with its arguments, which may span lines) before `func`, with no other declaration or
        # end of one between.
        before = text[:match.start()]
        at = before.rfind("@Test")
        between = before[at:] if at >= 0 else ""
        is_test = at >= 0 and "func " not in between and not re.search(r"\n\s*}\s*\n\s*\n", between)
        depth, index = 0, start
        while index < len(text):
            if text.startswith('"""', index):  # a multi-line string: its braces are text
                index = text.find('"""', index + 3) + 3
                if index < 3:
                    break
                continue
            if text[index] == '"':  # a string on one line
                end = index + 1
                while end < len(text) and text[end] not in '"\n':
                    end += 2 if text[end] == "\\" else 1
                index = end + 1
                continue
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                break
            index += 1
        inside = index
        found.append((match.group(1), is_test, NAMED_ONLY.sub("", text[start:index + 1])))
    return found


def spawning_names(functions, known):
    """Names of helpers in `functions` that spawn, given helpers `known` to spawn elsewhere."""
    names = set(known)
    changed = True
    while changed:
        changed = False
        for name, is_test, body in functions:
            if is_test or name in names:
                continue
            if SPAWNS.search(body) or any(re.search(r"\b%s\(" % re.escape(n), body) for n in names):
                names.add(name)
                changed = True
    return names


def main():
    shared = []
    for path in (ROOT / "Sources/HostTesting").glob("*.swift"):
        shared += bodies(path.read_text())
    shared_spawning = spawning_names(shared, set()) - {"run", "typing", "when"}
    total = spawning = 0
    listed = []
    for path in sorted((ROOT / "Tests").rglob("*.swift")):
        if "Fixtures" in path.parts:
            continue
        functions = bodies(path.read_text())
        own = spawning_names(functions, shared_spawning)
        for name, is_test, body in functions:
            if not is_test:
                continue
            total += 1
            if SPAWNS.search(body) or any(re.search(r"\b%s\(" % re.escape(n), body) for n in own):
                spawning += 1
                listed.append(f"{path.relative_to(ROOT)}: {name}")
    print(f"tests: {total}; spawning assist: {spawning} ({100 * spawning / total:.1f} %)")
    if "--list" in sys.argv:
        print("\n".join(listed))


main()
