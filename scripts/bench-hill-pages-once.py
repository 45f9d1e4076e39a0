# One start of `koth serve` on a hill folder, timed from outside as a reader sees it: until it
# listens, /api/hill's first read and 20 from the memo, 20 bots' records twice over (bot0,
# bot499, ... as scripts/bench-hill.sh names them) and 5 bots' pages, and the server's CPU.
# The short form of bench-hill.sh's part 3, which takes six starts (some 11 minutes at
# 10,000,000 games). Listens on 127.0.0.1 only.
#
# Usage: python3 scripts/bench-hill-pages-once.py KOTH_BINARY HILL_DIR
import os, resource, socket, statistics, subprocess, sys, time, urllib.request
koth, d = sys.argv[1], sys.argv[2]
def timed(url):
    s = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as a: a.read()
    return (time.perf_counter() - s) * 1000
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
t0 = time.perf_counter()
srv = subprocess.Popen([koth, "serve", d, "--addr", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL)
try:
    for _ in range(3000):
        try:
            socket.create_connection(("127.0.0.1", port)).close(); break
        except OSError: time.sleep(0.05)
    listen = (time.perf_counter() - t0) * 1000
    time.sleep(float(os.environ.get("WAIT", "0")))
    base = f"http://127.0.0.1:{port}"
    first = timed(base + "/api/hill")
    memo = [timed(base + "/api/hill") for _ in range(20)]
    bots = [timed(f"{base}/api/hill/bots/bot{499 * k}") for k in range(20)]
    bots2 = [timed(f"{base}/api/hill/bots/bot{499 * k}") for k in range(20)]
    page = [timed(f"{base}/bots/bot{499 * k}") for k in range(5)]
    with open(f"/proc/{srv.pid}/stat") as f: st = f.read().split()
    cpu = (int(st[13]) + int(st[14])) / os.sysconf("SC_CLK_TCK")
finally:
    srv.terminate(); srv.wait()
print(f"listening after {listen:.0f} ms; /api/hill first {first:.1f} ms, memo median {statistics.median(memo):.1f} ms")
print(f"bot record median {statistics.median(bots):.1f} ms (second pass {statistics.median(bots2):.1f}), bot page median {statistics.median(page):.1f} ms; server CPU {cpu:.2f} s")
