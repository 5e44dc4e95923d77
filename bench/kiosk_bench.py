#!/usr/bin/env python3
"""The kiosk's figures (issue 21): boot to the first spoken word, and a crash until speech again.

The kiosk runs on a pseudo-terminal of its own with speech to a WAV file (--audio-out wav:PATH), which the
host writes at the pace it would play; the first spoken word is the first sample above a quiet level, seen by
polling the file every 2 ms. Times are from the process's start, as systemd's unit start would be.

Restart after a crash: the kiosk gets SIGSEGV, and is started again after RestartSec (the unit's 0.5 s), as
systemd would; the time is from the crash to the first sample spoken by the new process.

Baseline in the same run: `assist say` to the same kind of file, the least any command that speaks needs.
Usage: kiosk_bench.py ASSIST RUNS WORKDIR  (WORKDIR holds etc/, the set-up, made by bench/kiosk.sh)
"""
import os
import signal
import statistics
import struct
import subprocess
import sys
import time

assist, runs, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
RESTART_SEC = 0.5
QUIET = 500  # sample level above which a sample is speech (16-bit)
env = dict(os.environ, ASSIST_SYSCONFDIR=os.path.join(work, "etc"), HOME=work)


def first_sound(path, started, limit=20.0):
    """Seconds from `started` (time.monotonic) until `path` holds a sample above QUIET; None after `limit`."""
    offset = 44
    while time.monotonic() - started < limit:
        try:
            with open(path, "rb") as wav:
                wav.seek(offset)
                data = wav.read()
        except FileNotFoundError:
            data = b""
        usable = len(data) - len(data) % 2
        for (sample,) in struct.iter_unpack("<h", data[:usable]):
            if abs(sample) > QUIET:
                return time.monotonic() - started
        offset += usable
        time.sleep(0.002)
    return None


def start_kiosk(out, data):
    master, slave = os.openpty()
    started = time.monotonic()
    child = subprocess.Popen(
        [assist, "kiosk", "--audio-out", "wav:" + out, "--data-dir", data],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True)
    os.close(slave)
    return child, master, started


def drain(master):
    try:
        while True:
            import select
            ready, _, _ = select.select([master], [], [], 0)
            if not ready:
                return
            os.read(master, 65536)
    except OSError:
        return


def stop(child, master):
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(timeout=20)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    os.close(master)


boots, restarts, baselines = [], [], []
for run in range(runs):
    data = os.path.join(work, "data-%d" % run)
    # Baseline: assist say.
    out = os.path.join(work, "say-%d.wav" % run)
    started = time.monotonic()
    say = subprocess.Popen([assist, "say", "--audio-out", "wav:" + out, "--data-dir", data, "Ready."], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    baselines.append(first_sound(out, started))
    say.wait()
    # Boot.
    out = os.path.join(work, "boot-%d.wav" % run)
    child, master, started = start_kiosk(out, data)
    boots.append(first_sound(out, started))
    time.sleep(1.5)
    drain(master)
    # A crash, and systemd's restart after RestartSec.
    crashed = time.monotonic()
    child.send_signal(signal.SIGSEGV)
    child.wait()
    os.close(master)
    time.sleep(RESTART_SEC)
    out = os.path.join(work, "restart-%d.wav" % run)
    child, master, _ = start_kiosk(out, data)
    restarts.append(first_sound(out, crashed))
    time.sleep(1.5)
    drain(master)
    stop(child, master)

if None in boots + restarts + baselines:
    print("kiosk bench: some runs never spoke:", boots, restarts, baselines)
    sys.exit(1)
ms = lambda values: statistics.median(values) * 1000
base = ms(baselines)
print("kiosk, median of %d runs on %d cores" % (runs, os.cpu_count()))
print("assist say, start to first spoken sample (baseline): %6.0f ms" % base)
print("kiosk boot to first spoken word:                      %6.0f ms  (x%.2f baseline; goal <= 1000 ms)"
      % (ms(boots), ms(boots) / base))
print("crash to speech again (RestartSec=%.1f s included):    %6.0f ms  (x%.2f baseline; goal <= 2000 ms)"
      % (RESTART_SEC, ms(restarts), ms(restarts) / base))
