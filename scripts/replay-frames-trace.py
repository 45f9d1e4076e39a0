#!/usr/bin/env python3
"""Traces a koth replay page playing in headless Chromium and prints its frame times.

usage: replay-frames-trace.py PAGE.html SECONDS TRACE.json

Starts Chromium with a DevTools port, records a performance trace (Tracing.start, the
categories of DevTools' Performance panel) from before the page loads, sets the page's speed
to its fastest and presses play, lets it play SECONDS seconds, and writes the trace to
TRACE.json (it opens in chrome://tracing or DevTools' Performance panel). Then it prints the
page's load time and, per frame, the renderer main thread's work: the tasks it ran from one
BeginMainThreadFrame to the next (the timer that steps a turn, the drawing, style, layout and
paint). Only Python's standard library: a minimal WebSocket client speaks the DevTools
protocol.
"""
import base64
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

CATEGORIES = ",".join([
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "toplevel",
    "blink.user_timing",
    "v8.execute",
])
FRAME_BUDGET_MS = 16.0


class DevTools:
    """One WebSocket connection to a DevTools target: send commands, read messages."""

    def __init__(self, url):
        host_port, path = url.removeprefix("ws://").split("/", 1)
        host, port = host_port.split(":")
        self.sock = socket.create_connection((host, int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(1)
        if b" 101 " not in response.split(b"\r\n")[0]:
            raise SystemExit(f"DevTools refused the WebSocket: {response!r}")
        self.next_id = 0
        # Events read while waiting for a command's result.
        self.events = []

    def _exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise SystemExit("DevTools closed the connection")
            data += chunk
        return data

    def send(self, method, **params):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)
        return self.next_id

    def receive(self):
        """The next whole text message, as JSON (fragments joined)."""
        message = b""
        while True:
            first, second = self._exact(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            opcode = first & 0x0F
            if opcode in (0x1, 0x0):
                message += payload
                if first & 0x80:
                    return json.loads(message)
            elif opcode == 0x8:
                raise SystemExit("DevTools closed the WebSocket")

    def call(self, method, **params):
        """Sends a command and returns its result, keeping the events that came before it."""
        ident = self.send(method, **params)
        while True:
            message = self.receive()
            if message.get("id") == ident:
                if "error" in message:
                    raise SystemExit(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)


def chromium(profile):
    """Starts headless Chromium with a DevTools port; returns the process and the port."""
    process = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "--window-size=1400,1000", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = os.path.join(profile, "DevToolsActivePort")
    for _ in range(300):
        if os.path.exists(port_file):
            with open(port_file) as f:
                lines = f.read().split()
            if lines:
                return process, int(lines[0])
        time.sleep(0.1)
    process.kill()
    raise SystemExit("Chromium wrote no DevToolsActivePort in 30 s")


def page_target(port):
    for _ in range(100):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
            targets = json.load(response)
        pages = [t for t in targets if t["type"] == "page"]
        if pages:
            return pages[0]["webSocketDebuggerUrl"]
        time.sleep(0.1)
    raise SystemExit("Chromium shows no page")


PLAY_FASTEST = """(() => {
  const select = document.getElementById("speed");
  select.value = select.options[select.options.length - 1].value;
  select.dispatchEvent(new Event("change"));
  document.getElementById("play").click();
  return select.value;
})()"""


def evaluate(tools, expression):
    """The value of a JavaScript expression in the page; its exception ends the script."""
    answer = tools.call("Runtime.evaluate", expression=expression)
    if "exceptionDetails" in answer:
        raise SystemExit(f"the page threw: {answer['exceptionDetails']}")
    return answer["result"]["value"]


def trace(page, seconds, trace_path):
    with tempfile.TemporaryDirectory() as profile:
        process, port = chromium(profile)
        try:
            tools = DevTools(page_target(port))
            tools.call("Page.enable")
            tools.call("Tracing.start", categories=CATEGORIES, transferMode="ReportEvents")
            tools.call("Page.navigate", url="file://" + os.path.abspath(page))
            while not any(e.get("method") == "Page.loadEventFired" for e in tools.events):
                tools.events.append(tools.receive())
            speed = evaluate(tools, PLAY_FASTEST)
            time.sleep(seconds)
            state = evaluate(tools, "`round ${round}, turn ${turn}`")
            tools.call("Tracing.end")
            events = []
            while True:
                message = tools.receive()
                if message.get("method") == "Tracing.dataCollected":
                    events.extend(message["params"]["value"])
                elif message.get("method") == "Tracing.tracingComplete":
                    break
        finally:
            process.kill()
            process.wait()
    with open(trace_path, "w") as f:
        json.dump({"traceEvents": events}, f)
    return events, speed, state


def renderer_main_thread(events):
    """The (pid, tid) of the page's renderer main thread: the one that ran its animation frames."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    counts = {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if names.get(key) == "CrRendererMain" and e.get("name") == "BeginMainThreadFrame":
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        raise SystemExit("the trace holds no frame of a renderer's main thread")
    return max(counts, key=counts.get)


def frames(events, after):
    """Per frame, the main thread's busy milliseconds, as wall time and as the thread's CPU time:
    its tasks (RunTask, the tasks of DevTools' Performance panel) from one BeginMainThreadFrame
    to the next. On a busy machine the wall time also holds the time the thread waited for a
    CPU; its CPU time does not. Only frames from `after` (the load event's time) count: the
    load is timed on its own. And the longest single task, both ways."""
    main = renderer_main_thread(events)
    on_main = [e for e in events if (e.get("pid"), e.get("tid")) == main]
    starts = sorted(e["ts"] for e in on_main
                    if e.get("name") == "BeginMainThreadFrame" and e["ts"] >= after)
    tasks = sorted((e["ts"], e.get("dur", 0), e.get("tdur", 0)) for e in on_main
                   if e.get("ph") == "X" and e.get("name") == "RunTask")
    wall = [0.0] * (len(starts) - 1)
    cpu = [0.0] * (len(starts) - 1)
    longest = (0.0, 0.0)
    index = 0
    for ts, dur, tdur in tasks:
        longest = max(longest, (dur / 1000, tdur / 1000))
        while index + 1 < len(starts) and starts[index + 1] <= ts:
            index += 1
        if starts[0] <= ts < starts[-1]:
            wall[index] += dur / 1000
            cpu[index] += tdur / 1000
    intervals = [(b - a) / 1000 for a, b in zip(starts, starts[1:])]
    return wall, cpu, intervals, longest


def load(events):
    """From navigation start to the load event: its time in ms and the load event's timestamp
    (None for both if the trace lacks either)."""
    marks = {}
    for e in events:
        if e.get("name") in ("navigationStart", "loadEventEnd", "MarkLoad") and e["name"] not in marks:
            marks[e["name"]] = e["ts"]
    end = marks.get("loadEventEnd", marks.get("MarkLoad"))
    if "navigationStart" in marks and end:
        return (end - marks["navigationStart"]) / 1000, end
    return None, None


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    page, seconds, trace_path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    events, speed, state = trace(page, seconds, trace_path)
    loaded, loaded_at = load(events)
    wall, cpu, intervals, longest = frames(events, loaded_at or 0)
    if not wall:
        raise SystemExit("fewer than two frames in the trace")
    print(f"played {seconds:g} s at speed {speed}x, to {state}; {len(wall)} frames")
    if loaded is not None:
        print(f"load: {loaded:.1f} ms (navigation start to the load event)")
    for what, busy in [("wall", wall), ("CPU", cpu)]:
        print(f"main-thread work per frame, {what}: median {statistics.median(busy):.2f} ms, "
              f"p95 {percentile(busy, 95):.2f} ms, max {max(busy):.2f} ms; "
              f"{sum(b > FRAME_BUDGET_MS for b in busy)} frame(s) over {FRAME_BUDGET_MS:g} ms")
    print(f"longest main-thread task: {longest[0]:.2f} ms wall, {longest[1]:.2f} ms CPU")
    print(f"frame intervals: median {statistics.median(intervals):.1f} ms, "
          f"p95 {percentile(intervals, 95):.1f} ms, max {max(intervals):.1f} ms")


if __name__ == "__main__":
    main()
