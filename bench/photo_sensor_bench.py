"""The photo-sensor benchmark (bench/photo-sensor.sh runs it): real processes, real files, real inotify."""
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ASSIST = os.path.abspath(sys.argv[1])
FILES = int(os.environ.get("FILES", "10000"))
RUNS = int(os.environ.get("RUNS", "3"))
FOLDERS = 100
TICKS = os.sysconf("SC_CLK_TCK")


def picture_bytes():
    """One small real JPEG (a photo's header, size and all); each copy gets its own trailing bytes."""
    path = os.path.join(tempfile.gettempdir(), "assist-bench-seed.jpg")
    subprocess.run(["convert", "-size", "64x48", "plasma:", path], check=True)
    with open(path, "rb") as handle:
        data = handle.read()
    os.remove(path)
    return data


def make_tree(root, seed):
    for folder in range(FOLDERS):
        os.makedirs(os.path.join(root, f"d{folder:03}"), exist_ok=True)
    for index in range(FILES):
        with open(os.path.join(root, f"d{index % FOLDERS:03}", f"IMG_{index:05}.jpg"), "wb") as handle:
            handle.write(seed + index.to_bytes(4, "little"))


def configure(work, watched):
    config = os.path.join(work, "config.toml")
    with open(config, "w") as handle:
        handle.write(
            "[photo-sensor]\n"
            f'watchDirectories = ["{watched}"]\n'
            "recursive = true\n"
            "debounceSeconds = 0.2\n"
            "transparency = false\n"
        )
    return config


def options(work, config):
    return ["--no-speech", "--data-dir", os.path.join(work, "data"), "--config", config]


def rows(work):
    path = os.path.join(work, "data", "plugins", "assist.photo-sensor", "aware_photos.sqlite")
    if not os.path.exists(path):
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT count(*) FROM ios_photos").fetchone()[0]
    except sqlite3.Error:
        return 0


def shell(work, config):
    """`assist shell` with the sensor in the background; its stdin stays open until it is told to quit."""
    return subprocess.Popen(
        [ASSIST, "shell"] + options(work, config),
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def quit_shell(process):
    process.stdin.write(b"quit\n")
    process.stdin.close()
    process.wait(timeout=30)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    seed = picture_bytes()
    drops, hashes, catchups, starts, idles, extras = [], [], [], [], [], []
    for _ in range(RUNS):
        work = tempfile.mkdtemp(prefix="assist-photo-bench-")
        try:
            watched = os.path.join(work, "Pictures")
            staging = os.path.join(work, "staging")
            os.makedirs(watched)
            make_tree(staging, seed)
            config = configure(work, watched)
            # Baseline in the same run: hashing the same files, as a sync tool would.
            hashes.append(timed(["sh", "-c", f"find {staging} -type f -print0 | xargs -0 sha256sum"]))
            subprocess.run([ASSIST, "run", "photo-sensor", "watch", "--once", "--no-sync"] + options(work, config),
                           check=True, stdout=subprocess.DEVNULL)  # the first start's empty baseline
            sensor = shell(work, config)
            time.sleep(1.5)
            # Dropped: every folder moved in at once would be one event; files arrive one by one as a camera
            # import writes them, so each is renamed in from the staging tree.
            start = time.perf_counter()
            for folder in range(FOLDERS):
                os.makedirs(os.path.join(watched, f"d{folder:03}"))
            for index in range(FILES):
                name = os.path.join(f"d{index % FOLDERS:03}", f"IMG_{index:05}.jpg")
                os.rename(os.path.join(staging, name), os.path.join(watched, name))
            while rows(work) < FILES and time.perf_counter() - start < 600:
                time.sleep(0.05)
            drops.append(time.perf_counter() - start)
            recorded = rows(work)
            # Idle with everything watched.
            time.sleep(2)
            before = cpu_seconds(sensor.pid)
            time.sleep(10)
            idles.append((cpu_seconds(sensor.pid) - before) / 10 * 100)
            with_sensor = rss_mb(sensor.pid)
            quit_shell(sensor)
            # The same shell without the sensor's folders: the host's own memory.
            empty = os.path.join(work, "empty.toml")
            with open(empty, "w") as handle:
                handle.write("[photo-sensor]\nenabled = false\n")
            plain = shell(work, empty)
            time.sleep(13.5)
            extras.append(with_sensor - rss_mb(plain.pid))
            quit_shell(plain)
            # Catch-up of the unchanged tree at start, beside the same command with nothing to do.
            catchups.append(timed([ASSIST, "run", "photo-sensor", "watch", "--once", "--no-sync"] + options(work, config)))
            starts.append(timed([ASSIST, "run", "photo-sensor", "status"] + options(work, config)))
            if recorded != FILES:
                print(f"warning: {recorded} of {FILES} recorded")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    drop = statistics.median(drops)
    sha = statistics.median(hashes)
    catchup = statistics.median(catchups)
    start = statistics.median(starts)
    print(f"photo-sensor benchmark: {FILES} files in {FOLDERS} folders, medians of {RUNS} runs, release build")
    print(f"  dropped into the watched tree until all recorded: {drop:.2f} s = {FILES / drop:.0f} rows/s")
    print(f"  find | xargs sha256sum on the same files:         {sha:.2f} s -> {drop / sha:.1f}x the time")
    print(f"  catch-up of {FILES} unchanged files (watch --once): {catchup:.2f} s "
          f"({catchup - start:.2f} s beyond `status`, {start:.2f} s); goal <= 1 s")
    print(f"  CPU while idle, {FOLDERS + 1} folders watched:         {statistics.median(idles):.2f} % of a core")
    print(f"  resident memory beyond the host's own:             {statistics.median(extras):.1f} MB; goal <= 30 MB")


if __name__ == "__main__":
    main()
