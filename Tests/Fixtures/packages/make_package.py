#!/usr/bin/env python3
"""Writes plugin packages the way a careless or hostile third party could, for the install tests.

    make_package.py OUT SPEC.json

SPEC is a list of entries, written in order after an automatic SHA256SUMS (second, after the first entry):
  {"name": "manifest.json", "source": "/path"}            a regular file from disk
  {"name": "x", "data": "text"}                           a regular file with this text
  {"name": "big", "zeros": 600000000}                     a regular file of zeros (streamed, never in memory)
  {"name": "share/d", "type": "dir"}
  {"name": "share/l", "type": "symlink", "target": "/etc/passwd"}
  {"name": "share/h", "type": "hardlink", "target": "manifest.json"}
  {"name": "share/c", "type": "chardev"}
Entries with "unlisted": true are left out of SHA256SUMS; "sums": false leaves SHA256SUMS out altogether.
"""
import hashlib
import io
import json
import sys
import tarfile


class Zeros(io.RawIOBase):
    def __init__(self, size):
        self.left = size

    def readable(self):
        return True

    def readinto(self, buffer):
        count = min(len(buffer), self.left)
        buffer[:count] = bytes(count)
        self.left -= count
        return count


def content(entry):
    if "source" in entry:
        return open(entry["source"], "rb").read()
    if "data" in entry:
        return entry["data"].encode()
    return None


def digest(entry):
    if "zeros" in entry:
        sha, left, block = hashlib.sha256(), entry["zeros"], bytes(1 << 20)
        while left:
            sha.update(block[: min(left, len(block))])
            left -= min(left, len(block))
        return sha.hexdigest()
    return hashlib.sha256(content(entry)).hexdigest()


def main():
    out, spec_path = sys.argv[1], sys.argv[2]
    spec = json.load(open(spec_path))
    options = spec.get("options", {}) if isinstance(spec, dict) else {}
    entries = spec["entries"] if isinstance(spec, dict) else spec
    files = [e for e in entries if e.get("type", "file") == "file" and not e.get("unlisted")]
    sums = "".join(f"{digest(e)}  {e['name']}\n" for e in files)
    with tarfile.open(out, "w:gz", compresslevel=options.get("level", 6), format=tarfile.PAX_FORMAT) as tar:
        for index, entry in enumerate(entries):
            kind = entry.get("type", "file")
            info = tarfile.TarInfo(entry["name"])
            info.mode = 0o644
            if kind == "file":
                if "zeros" in entry:
                    info.size = entry["zeros"]
                    tar.addfile(info, io.BufferedReader(Zeros(entry["zeros"]), 1 << 20))
                else:
                    data = content(entry)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
            elif kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, entry["target"]
                tar.addfile(info)
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, entry["target"]
                tar.addfile(info)
            elif kind == "chardev":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
                tar.addfile(info)
            if index == 0 and options.get("sums", True):
                data = options.get("sums_text", sums).encode()
                info = tarfile.TarInfo("SHA256SUMS")
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))


main()
