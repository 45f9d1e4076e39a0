#!/usr/bin/env python3
"""The hill's door for strangers, measured (docs/submissions.md):
  1. a 1 MiB upload answered 202: median of 21, on an idle hill;
  2. an archive bomb (1 GiB of zeros in a few MB) refused at the unpacking cap: median of 5;
  3. from upload to its first ranked game: the build, the validation game, and the rest;
  4. games per second of a hill taking one upload a second against the same hill taking none;
  5. another author's status requests while uploads are handled (bombs and 1 MiB uploads);
  6. a WASI compile bomb (240 KiB) refused by its build's caps: the time, and `hill run`'s own
     memory high-water mark before and after;
  7. games per second while builds spin 8 processes each for their whole limit, against none
     (builds have a tenth of a bot's CPU share where control groups allow).
Every server listens on 127.0.0.1; every loop is bounded in count and time.
    python3 scripts/bench-submissions.py target/release/koth"""

import gzip, io, json, os, re, sqlite3, statistics, subprocess, sys, tarfile, tempfile, threading
import time
import urllib.error, urllib.request

KOTH = os.path.abspath(sys.argv[1])
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRADED = open(os.path.join(REPO, "scripts/graded-ttt/graded.py")).read()
WINDOW = 30  # seconds of play for each side of the games-per-second comparison


def bot_files(name, p, extra=b""):
    manifest = f'name = "{name}"\nrun = "python3 -u graded.py {p}"\ngames = ["tictactoe"]\n'
    return {"bot.toml": manifest.encode(), "graded.py": GRADED.encode(), "padding.bin": extra}


def tar_gz(files, level=6):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), compresslevel=level)


def bomb():
    header = tarfile.TarInfo("zeros")
    header.size = 1 << 30
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as gz:
        gz.write(header.tobuf())
        zeros = bytes(1 << 20)
        for _ in range(1024):
            gz.write(zeros)
    return out.getvalue()


def leb(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def compile_bomb(locals_=50_000, loops=5_000):
    """One function: `locals_` i64 locals, `loops` empty loops, then every local read."""
    vec = lambda items: leb(len(items)) + b"".join(items)
    section = lambda kind, payload: bytes([kind]) + leb(len(payload)) + payload
    body = (leb(1) + leb(locals_) + b"\x7e" + b"\x03\x40\x0b" * loops
            + b"".join(b"\x20" + leb(i) + b"\x1a" for i in range(locals_)) + b"\x0b")
    return (b"\x00asm\x01\x00\x00\x00" + section(1, vec([b"\x60\x00\x00"]))
            + section(3, vec([leb(0)])) + section(7, vec([leb(6) + b"_start\x00" + leb(0)]))
            + section(10, vec([leb(len(body)) + body])))


def peak_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def post(url, token, body):
    request = urllib.request.Request(url + "/api/submissions", data=body, method="POST",
                                     headers={"Authorization": "Bearer " + token,
                                              "Content-Type": "application/gzip"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            code, answer = response.status, json.load(response)
    except urllib.error.HTTPError as err:
        code, answer = err.code, json.load(err)
    return code, answer, time.perf_counter() - started


def status(url, token, sid):
    request = urllib.request.Request(f"{url}/api/submissions/{sid}",
                                     headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def query(hill, sql, *args):
    db = sqlite3.connect(f"file:{hill}/results.sqlite?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(sql, args).fetchone()[0]
    finally:
        db.close()


def start_hill(work, name, build_s=1):
    hill = os.path.join(work, name)
    config = os.path.join(work, name + ".toml")
    with open(config, "w") as f:
        f.write('game = "tictactoe"\nrounds = 2\nanswer_ms = 2000\nseed = 1\njobs = 2\n'
                f"placement_games = 4\nbuild_timeout_s = {build_s}\nmemory_mb = 512\n"
                f"[submissions]\nper_hour = {3600 // build_s}\nbuild_queue = 1000\n"
                "stored_mb = 100000\nactive_bots = 100\n")
    subprocess.run([KOTH, "hill", "create", config, "--dir", hill], check=True,
                   stdout=subprocess.DEVNULL)
    token = subprocess.run([KOTH, "hill", "author", "add", "bench", "--hill", hill], check=True,
                           capture_output=True, text=True).stdout.strip().splitlines()[-1]
    for i, p in enumerate([0.2, 0.5, 0.8]):
        folder = os.path.join(work, f"{name}-house{i}")
        os.makedirs(folder)
        for file, data in bot_files(f"House {i}", p).items():
            open(os.path.join(folder, file), "wb").write(data)
        subprocess.run([KOTH, "hill", "add", folder, "--hill", hill], check=True,
                       stdout=subprocess.DEVNULL)
    run = subprocess.Popen([KOTH, "hill", "run", hill, "--serve", "127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in run.stdout:
        match = re.match(r"Dashboard: (http://[^/ ]+)", line)
        if match:
            return hill, token, run, match.group(1)
    raise SystemExit("hill run printed no address")


def stop(run):
    run.terminate()
    run.wait(timeout=60)


def main():
    with tempfile.TemporaryDirectory() as work:
        hill, token, run, url = start_hill(work, "idle")
        try:
            # 1. 1 MiB uploads (incompressible padding, each different), answered 202.
            times = []
            for i in range(21):
                body = tar_gz(bot_files("Upload", 0.5, os.urandom(1 << 20)), level=1)
                code, answer, took = post(url, token, body)
                assert code == 202, answer
                times.append(took * 1000)
            print(f"1 MiB upload answered 202: median {statistics.median(times):.1f} ms "
                  f"(min {min(times):.1f}, max {max(times):.1f}; body {len(body) >> 10} KiB)")
            # 2. The bomb.
            payload = bomb()
            times = []
            for _ in range(5):
                code, answer, took = post(url, token, payload)
                assert code == 413, answer
                times.append(took)
            print(f"archive bomb ({len(payload) >> 10} KiB, 1 GiB inside) refused with 413: "
                  f"median {statistics.median(times):.2f} s")
            # 5. Another author's status while uploads are handled: polled every 20 ms.
            other = subprocess.run([KOTH, "hill", "author", "add", "other", "--hill", hill],
                                   check=True, capture_output=True,
                                   text=True).stdout.strip().splitlines()[-1]
            waits, done = [], threading.Event()

            def poll():
                while not done.is_set():
                    request = urllib.request.Request(url + "/api/submissions",
                                                     headers={"Authorization": "Bearer " + other})
                    started = time.perf_counter()
                    with urllib.request.urlopen(request, timeout=30) as response:
                        response.read()
                    waits.append((time.perf_counter() - started) * 1000)
                    time.sleep(0.02)

            poller = threading.Thread(target=poll)
            poller.start()
            for i in range(5):
                post(url, token, payload)
                post(url, token, tar_gz(bot_files("Upload", 0.5, os.urandom(1 << 20)), level=1))
            done.set()
            poller.join()
            print(f"another author's GET /api/submissions while 5 bombs and 5 1 MiB uploads were "
                  f"handled: median {statistics.median(waits):.1f} ms, max {max(waits):.1f} ms "
                  f"({len(waits)} requests)")
        finally:
            stop(run)

        hill, token, run, url = start_hill(work, "fresh")
        try:
            # 3. Upload to first ranked game, once the hill is idle of builds.
            time.sleep(2)
            code, answer, _ = post(url, token, tar_gz(bot_files("Newcomer", 0.7)))
            assert code == 202, answer
            sent, sid, seen = time.perf_counter(), answer["id"], {}
            deadline = sent + 120
            while time.perf_counter() < deadline:
                state = status(url, token, sid)["status"]
                seen.setdefault(state, time.perf_counter() - sent)
                if state == "active":
                    break
                if state == "refused":
                    raise SystemExit(status(url, token, sid))
                time.sleep(0.01)
            while time.perf_counter() < deadline:
                if query(hill, "SELECT COALESCE(MAX(games), 0) FROM hill_versions "
                               "WHERE name = 'Newcomer'") > 0:
                    break
                time.sleep(0.01)
            first_game = time.perf_counter() - sent
            building = seen.get("validating", 0) - seen.get("building", seen.get("validating", 0))
            validating = seen["active"] - seen.get("validating", seen["active"])
            rest = first_game - building - validating
            print(f"upload to first ranked game: {first_game:.2f} s = build {building:.2f} s + "
                  f"validation game {validating:.2f} s + {rest:.2f} s (waiting for the builder, "
                  "choosing, playing and recording the game)")
        finally:
            stop(run)

        # 6. A WASI compile bomb: refused by its build's caps, hill run's memory untouched.
        hill, token, run, url = start_hill(work, "bomb")
        try:
            time.sleep(2)
            before = peak_kib(run.pid)
            files = {"bot.toml": b'name = "Bomb"\nwasm = "bomb.wasm"\ngames = ["tictactoe"]\n',
                     "bomb.wasm": compile_bomb()}
            body = tar_gz(files)
            code, answer, _ = post(url, token, body)
            assert code == 202, answer
            sent, sid = time.perf_counter(), answer["id"]
            while time.perf_counter() - sent < 600:
                state = status(url, token, sid)
                if state["status"] in ("active", "refused"):
                    break
                time.sleep(0.05)
            print(f"compile bomb ({len(files['bomb.wasm']) >> 10} KiB module, {len(body) >> 10} "
                  f"KiB upload): {state['status']} after {time.perf_counter() - sent:.2f} s "
                  f"({state.get('reason')}); hill run's peak memory {before >> 10} MiB before, "
                  f"{peak_kib(run.pid) >> 10} MiB after")
        finally:
            stop(run)

        # 4. Games per second, none versus one upload a second; 7. versus spinning builds.
        spin = (b'build = "for i in 1 2 3 4 5 6 7 8; do (while :; do :; done) & done; wait"\n')
        for name, uploads in (("quiet", False), ("busy", True), ("spinning", "spin")):
            hill, token, run, url = start_hill(work, name, WINDOW if uploads == "spin" else 1)
            try:
                time.sleep(3)
                start_games = query(hill, "SELECT COUNT(*) FROM games WHERE state = 'done'")
                started = time.perf_counter()
                i = 0
                if uploads == "spin":
                    files = bot_files("Spinner", 0.5)
                    files["bot.toml"] += spin
                    post(url, token, tar_gz(files))
                while time.perf_counter() - started < WINDOW:
                    if uploads is True:
                        i += 1
                        post(url, token, tar_gz(bot_files(f"Churn {i % 5}", (i % 10) / 10,
                                                          str(i).encode())))
                    time.sleep(1)
                games = query(hill, "SELECT COUNT(*) FROM games WHERE state = 'done'") - start_games
                rate = games / (time.perf_counter() - started)
                print(f"{name}: {rate:.2f} games/s over {WINDOW} s"
                      + (f" with {i} uploads" if uploads is True else ""))
                if uploads == "spin":
                    print(f"games per second while a build spins 8 processes: "
                          f"{rate / quiet:.2f}x the quiet hill's")
                elif uploads:
                    print(f"games per second while taking an upload a second: "
                          f"{rate / quiet:.2f}x the quiet hill's")
                else:
                    quiet = rate
            finally:
                stop(run)


if __name__ == "__main__":
    main()
