#!/usr/bin/env python3
"""The cost of many live dashboard pages: starts `KOTH serve DIR`, opens N server-sent-event
clients (/api/events), waits for each one's first event, then measures the server's threads and
the CPU it uses over S seconds while they stay open.

usage: scripts/bench-live-clients.py KOTH DIR [N=250] [S=10]   (N at most the server's
--max-connections, 256 by default; older builds had no cap)"""
import os
import socket
import subprocess
import sys
import time

koth, folder = sys.argv[1], sys.argv[2]
clients = int(sys.argv[3]) if len(sys.argv) > 3 else 250
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
server = subprocess.Popen([koth, "serve", folder, "--addr", f"127.0.0.1:{port}"],
                          stdout=subprocess.DEVNULL)
try:
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            break
        except OSError:
            time.sleep(0.1)
    streams = []
    for _ in range(clients):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        streams.append(s)
    for s in streams:
        s.settimeout(30)
        seen = b""
        while b"event: progress" not in seen:
            chunk = s.recv(4096)
            if not chunk:
                sys.exit("a stream ended before its first event")
            seen += chunk
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu():
        fields = open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before = cpu()
    time.sleep(seconds)
    used = cpu() - before
    threads = next(l for l in open(f"/proc/{server.pid}/status") if l.startswith("Threads:"))
    print(f"{clients} live clients: {100 * used / seconds:.1f}% of a core over {seconds:.0f} s, "
          f"{threads.split()[1]} threads")
finally:
    server.kill()
    server.wait()
