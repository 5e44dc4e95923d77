#!/usr/bin/env python3
"""Writes assist(1) in roff from the command-line help itself (`assist --experimental-dump-help`, the
argument parser's description of every command and option), so the manual never drifts from the program.

Usage: scripts/make-manpage.py PATH/TO/assist > assist.1
"""
import datetime
import json
import subprocess
import sys


def roff(text):
    """Text as roff reads it: backslashes and hyphens escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def names(argument):
    spelled = []
    for name in argument.get("names", []):
        spelled.append(("--" if name["kind"] == "long" else "-") + name["name"])
    return spelled


def describe(argument):
    """One option or argument as a tagged paragraph."""
    value = argument.get("valueName", "")
    if argument["kind"] == "positional":
        head = "\\fI" + roff(value) + "\\fR" + ("..." if argument.get("isRepeating") else "")
    else:
        head = ", ".join("\\fB" + roff(n) + "\\fR" for n in names(argument))
        if argument["kind"] == "option":
            head += " \\fI" + roff(value) + "\\fR"
    body = roff(argument.get("abstract", "") or "")
    if argument.get("defaultValue") not in (None, "", "false"):
        body += " (default: " + roff(str(argument["defaultValue"])) + ")"
    return ".TP\n" + head + "\n" + body + "\n"


def key(argument):
    return tuple(names(argument)) or (argument.get("valueName"),)


def visible(arguments):
    return [a for a in arguments if a.get("shouldDisplay", True) and "help" not in names(a)
            and "--version" not in names(a)]


def main():
    tool = sys.argv[1]
    dump = json.loads(subprocess.run([tool, "--experimental-dump-help"], check=True, capture_output=True,
                                     text=True).stdout)["command"]
    version = subprocess.run([tool, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    commands = [c for c in dump.get("subcommands", []) if c.get("shouldDisplay", True) and c["commandName"] != "help"]
    # The options the commands share (the shell takes only those) are listed once.
    example = next(c for c in commands if c["commandName"] == "shell")
    shared = {key(a) for a in visible(example.get("arguments", []))}
    date = datetime.date.fromtimestamp(int(subprocess.run(
        ["git", "log", "-1", "--format=%ct"], capture_output=True, text=True).stdout.strip() or "0")).isoformat()

    out = [
        '.TH ASSIST 1 "%s" "Assist %s" "User Commands"' % (date, roff(version)),
        ".SH NAME",
        "assist \\- " + roff(dump["abstract"]),
        ".SH SYNOPSIS",
        "\\fBassist\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
        ".SH DESCRIPTION",
        roff(dump["abstract"]),
        ".PP",
        roff(dump.get("discussion", "")),
        ".SH COMMANDS",
    ]

    def section(command, path):
        out.append('.SS "%s"' % roff(" ".join(path)))
        out.append(roff(command.get("abstract", "")))
        if command.get("discussion"):
            out.append(".PP")
            out.append(roff(command["discussion"]))
        own = [a for a in visible(command.get("arguments", [])) if key(a) not in shared]
        for argument in own:
            out.append(describe(argument).rstrip("\n"))
        for sub in command.get("subcommands", []):
            if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
                section(sub, path + [sub["commandName"]])

    for command in commands:
        section(command, ["assist", command["commandName"]])
    out.append(".SH OPTIONS")
    out.append("Every command takes these:")
    for argument in visible(example.get("arguments", [])):
        if key(argument) in shared:
            out.append(describe(argument).rstrip("\n"))
    out += [
        ".SH FILES",
        ".TP\n/etc/assist/config.toml, /etc/assist/conf.d/*.toml\nThe admin's settings, with [admin] locked and [kiosk].",
        ".TP\n~/.config/assist/config.toml\nThe user's settings.",
        ".TP\n~/.local/share/assist\nThe data folder (0700): databases, recordings, the outbox.",
        ".TP\n/usr/lib/assist/plugins\nThe installed features.",
        ".SH SEE ALSO",
        "\\fBsystemd.service\\fR(5), \\fBjournalctl\\fR(1); /usr/share/doc/assist/kiosk.md",
    ]
    print("\n".join(out))


main()
