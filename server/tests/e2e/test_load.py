"""`whittle serve` under load and abuse, driven by the official Python MCP
SDK over Streamable HTTP against pages served on loopback.

    python3 server/tests/e2e/test_load.py --whittle target/debug/whittle
    python3 server/tests/e2e/test_load.py --whittle target/release/whittle --soak   # the bench's sizes

Four parts, each with its own server, each failing the run when it fails:

  steady    S sessions at once, C calls each (navigate, type, observe, find,
            extract, back) on the demo shop: 0 errors, and no session ever
            sees another's typed value; latency percentiles printed.
  chromium  K sessions on Chromium, each typing its own name into a page
            that scripts render and reading its own greeting back: 0 errors;
            every session's browser context closed once it ends, and after
            SIGTERM no process left and no profile folder.
  churn     N sessions opened, used once and abandoned without DELETE, with a
            short idle timeout: the server's RSS once they have expired and
            it has given back the memory they freed,
            against its RSS before.
  abuse     while one client keeps calling: garbage JSON-RPC, oversized
            bodies, thousands of connection attempts, slow bodies and slow
            headers. The server answers errors or closes connections, stays
            up, keeps its RSS bounded, and the client's p99 latency is
            measured against its p99 without the abuse.

The last line is a JSON object of the figures (`--json FILE` writes it too).
Exit status 0 when every check held, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shop import Shop  # noqa: E402

import httpx2  # noqa: E402  (the SDK's HTTP client)
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

FAILURES: list[str] = []


def check(cond: bool, message: str) -> None:
    if not cond:
        FAILURES.append(message)
        print(f"FAIL: {message}", flush=True)


def say(message: str) -> None:
    print(message, flush=True)


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------


class Serve:
    """`whittle serve` on an ephemeral loopback port, its log collected."""

    LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+/mcp)")

    def __init__(self, whittle: str, args: list[str], tmpdir: str | None = None):
        self.lines: list[str] = []
        self.url: str | None = None
        ready = threading.Event()
        env = {**os.environ, "RUST_BACKTRACE": "1"}
        env.pop("WHITTLE_PROFILE", None)
        if tmpdir:
            env["TMPDIR"] = tmpdir
        self.proc = subprocess.Popen(
            [whittle, "serve", "--listen", "127.0.0.1:0", "--allow-private", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=env, text=True, errors="replace",
        )

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
                m = self.LISTENING.search(line)
                if m and self.url is None:
                    self.url = m.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(30) or self.url is None:
            self.stop()
            raise SystemExit("whittle serve did not start:\n" + "\n".join(self.lines[-20:]))

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def count(self, needle: str) -> int:
        return sum(needle in line for line in list(self.lines))

    def live_sessions(self) -> int | None:
        """The `live=` of the last session line logged."""
        for line in reversed(list(self.lines)):
            m = re.search(r"session (?:started|ended).* live=(\d+)", line)
            if m:
                return int(m.group(1))
        return None

    # How long the server keeps an idle worker thread (its
    # THREAD_KEEP_ALIVE): the memory a thread cached goes back to the heap
    # when it exits, and the server gives memory back once more after that.
    THREAD_KEEP_ALIVE_S = 10

    @staticmethod
    def _when(line: str) -> float | None:
        """The time a log line was written, in seconds, from its timestamp."""
        m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z", line)
        return datetime.strptime(m.group(1)[:26], "%Y-%m-%dT%H:%M:%S.%f").timestamp() if m else None

    def threads_gave_back(self) -> bool:
        """Whether memory was given back after the threads that ran the
        ended sessions had exited: a give-back logged THREAD_KEEP_ALIVE or
        more after the last session ended. (Counting give-backs after the
        last end is not enough: while sessions keep ending the server also
        gives back on a timer, and one of those may land just after the
        last end.)"""
        lines = list(self.lines)
        last_end = next((self._when(l) for l in reversed(lines) if "session ended" in l), None)
        if last_end is None:
            return False
        return any(
            "freed given back" in l and (t := self._when(l)) is not None and t - last_end >= self.THREAD_KEEP_ALIVE_S
            for l in lines
        )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 30) -> int | None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode


@contextlib.asynccontextmanager
async def session(url: str, delete: bool = True):
    """An MCP session over Streamable HTTP; `delete=False` abandons it
    (no DELETE when it closes), as a crashed worker would."""
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx2.AsyncClient(timeout=httpx2.Timeout(120.0)))
        streams = await stack.enter_async_context(streamable_http_client(url, http_client=client, terminate_on_close=delete))
        s = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await s.initialize()
        yield s


def content(result) -> dict:
    """The result's envelope (structured content), as on the wire."""
    return result.model_dump(by_alias=True, mode="json").get("structuredContent") or {}


def ref_of(sc: dict, role: str, name: str) -> int | None:
    for e in (sc.get("page_content") or {}).get("elements") or []:
        if e.get("role") == role and name in (e.get("name") or ""):
            return e.get("ref")
    return None


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


# ---------------------------------------------------------------------------
# steady: many sessions on the static path
# ---------------------------------------------------------------------------


async def steady(whittle: str, shop: Shop, sessions: int, calls: int) -> dict:
    serve = Serve(whittle, ["--engine", "static"])
    latencies: list[float] = []
    errors: list[str] = []
    leaks: list[str] = []
    canaries = [f"canary{n:03d}x{os.urandom(3).hex()}" for n in range(sessions)]

    async def one(n: int) -> None:
        mine = canaries[n]
        others = [c for i, c in enumerate(canaries) if i != n]
        made = 0

        async def call(tool: str, **args) -> dict:
            nonlocal made
            t0 = time.perf_counter()
            r = await s.call_tool(tool, args)
            latencies.append((time.perf_counter() - t0) * 1000)
            made += 1
            sc = content(r)
            if not sc.get("ok"):
                errors.append(f"session {n} {tool}: {(sc.get('server') or {}).get('error')}")
            seen = text_of(r) + json.dumps(sc)
            for o in others:
                if o in seen:
                    leaks.append(f"session {n} saw another session's value in {tool}")
            return sc

        async with session(serve.url) as s:
            # A page to go back to from the first round's.
            await call("navigate", url=shop.url("/about"))
            while made < calls:
                sc = await call("navigate", url=shop.url("/"))
                box = ref_of(sc, "searchbox", "Search")
                if box is None:
                    errors.append(f"session {n}: no search box")
                    break
                await call("act", **{"do": "type", "ref": box, "text": mine})
                sc = await call("observe")
                if mine not in json.dumps(sc):
                    errors.append(f"session {n}: its typed value is not in its own observation")
                await call("find", q="Brass")
                await call("extract", kind="text")
                await call("navigate", url="back")

    t0 = time.perf_counter()
    results = await asyncio.gather(*(one(n) for n in range(sessions)), return_exceptions=True)
    wall = time.perf_counter() - t0
    errors += [f"session {i}: {r!r}" for i, r in enumerate(results) if isinstance(r, BaseException)]
    rss = serve.rss_kib()
    serve.stop()
    figures = {
        "sessions": sessions, "calls": len(latencies), "errors": len(errors), "leaks": len(leaks),
        "calls_per_s": round(len(latencies) / wall, 1), "p50_ms": round(pct(latencies, 50), 2),
        "p90_ms": round(pct(latencies, 90), 2), "p99_ms": round(pct(latencies, 99), 2),
        "max_ms": round(max(latencies or [0]), 2), "rss_mib": round(rss / 1024, 1), "wall_s": round(wall, 1),
    }
    say(f"steady: {figures}")
    check(not errors, f"steady: {len(errors)} errors, first: {errors[:3]}")
    check(not leaks, f"steady: {len(leaks)} cross-session leaks: {leaks[:3]}")
    check(len(latencies) >= sessions * calls, f"steady: {len(latencies)} calls made, wanted {sessions * calls}")
    return figures


# ---------------------------------------------------------------------------
# chromium: sessions in their own browser contexts
# ---------------------------------------------------------------------------

APP = """<!doctype html><title>Greeter</title><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
document.getElementById('root').innerHTML = '<main><h1>Greeter</h1><form id="f"><label>Your name <input name="who"></label> <button>Greet me</button></form><p id="out"></p></main>';
document.getElementById('f').addEventListener('submit', (ev) => {
  ev.preventDefault();
  document.getElementById('out').textContent = 'Hello, ' + new FormData(ev.target).get('who') + '!';
});
</script>"""


class _App(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        body = APP.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def processes_under(tmpdir: str) -> list[str]:
    needle = f"TMPDIR={tmpdir}".encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(pid)
        except OSError:
            pass
    return found


async def chromium(whittle: str, sessions: int, rounds: int) -> dict:
    if not shutil.which("chromium") and not os.environ.get("WHITTLE_CHROMIUM"):
        if os.environ.get("WHITTLE_CHROMIUM_TESTS") == "require":
            check(False, "chromium: WHITTLE_CHROMIUM_TESTS=require but no chromium on PATH")
        else:
            say("chromium: SKIPPED, no chromium on PATH (apt-get install -y chromium)")
        return {"skipped": True}
    app = ThreadingHTTPServer(("127.0.0.1", 0), _App)
    app.daemon_threads = True
    threading.Thread(target=app.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{app.server_address[1]}/app"
    tmpdir = tempfile.mkdtemp(prefix="whittle-load-")
    serve = Serve(whittle, ["--engine", "chromium", "--nav-timeout", "30"], tmpdir=tmpdir)
    errors: list[str] = []
    latencies: list[float] = []

    async def one(n: int) -> None:
        async with session(serve.url) as s:
            for r in range(rounds):
                name = f"Visitor{n}r{r}"
                t0 = time.perf_counter()
                sc = content(await s.call_tool("navigate", {"url": url}))
                field = ref_of(sc, "textbox", "Your name")
                if not sc.get("ok") or field is None:
                    errors.append(f"session {n}: navigate: {(sc.get('server') or {}).get('error') or 'no name field'}")
                    return
                await s.call_tool("act", {"do": "type", "ref": field, "text": name})
                button = ref_of(sc, "button", "Greet me")
                await s.call_tool("act", {"do": "click", "ref": button})
                seen = json.dumps(content(await s.call_tool("observe", {})))
                latencies.append((time.perf_counter() - t0) * 1000)
                if f"Hello, {name}!" not in seen:
                    errors.append(f"session {n}: its greeting is not on its page")
                for other in range(sessions):
                    if other != n and f"Visitor{other}r" in seen:
                        errors.append(f"session {n} sees session {other}'s name")

    t0 = time.perf_counter()
    results = await asyncio.gather(*(one(n) for n in range(sessions)), return_exceptions=True)
    wall = time.perf_counter() - t0
    errors += [f"session {i}: {r!r}" for i, r in enumerate(results) if isinstance(r, BaseException)]
    # Every session ended (DELETE): each one's context is closed.
    deadline = time.monotonic() + 20
    while serve.count("browser context closed") < sessions and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    closed = serve.count("browser context closed")
    running = len(processes_under(tmpdir))
    code = serve.stop()
    deadline = time.monotonic() + 10
    while processes_under(tmpdir) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    left = processes_under(tmpdir)
    profiles = [n for n in os.listdir(tmpdir) if n.startswith("whittle-chromium-")]
    shutil.rmtree(tmpdir, ignore_errors=True)
    app.shutdown()
    figures = {"sessions": sessions, "rounds": rounds, "errors": len(errors), "contexts_closed": closed,
               "chromium_processes_while_running": running, "processes_left": len(left), "profiles_left": len(profiles),
               "p50_round_ms": round(pct(latencies, 50), 1), "p99_round_ms": round(pct(latencies, 99), 1),
               "wall_s": round(wall, 1), "exit": code}
    say(f"chromium: {figures}")
    check(not errors, f"chromium: {len(errors)} errors, first: {errors[:3]}")
    check(closed >= sessions, f"chromium: {closed} browser contexts closed of {sessions} sessions ended")
    check(not left, f"chromium: {len(left)} processes left after SIGTERM")
    check(not profiles, f"chromium: profile folders left: {profiles}")
    check(code == 0, f"chromium: serve exited with {code} after SIGTERM")
    return figures


# ---------------------------------------------------------------------------
# churn: abandoned sessions
# ---------------------------------------------------------------------------


async def churn(whittle: str, shop: Shop, count: int, idle_s: int) -> dict:
    serve = Serve(whittle, ["--engine", "static", "--session-idle", f"{idle_s}s", "--max-sessions", str(max(count, 16))])
    gate = asyncio.Semaphore(16)
    errors: list[str] = []

    async def abandon(n: int) -> None:
        async with gate:
            try:
                async with session(serve.url, delete=False) as s:
                    sc = content(await s.call_tool("navigate", {"url": shop.url(f"/product/{n % 30 + 1}")}))
                    if not sc.get("ok"):
                        errors.append(f"{n}: {(sc.get('server') or {}).get('error')}")
            except Exception as e:  # noqa: BLE001
                errors.append(f"{n}: {e!r}")

    async def expired() -> float:
        """Until every session has ended and the server has given back
        what they freed, the last time once the threads that ran them have
        exited."""
        t0 = time.monotonic()
        while serve.live_sessions() not in (0, None) and time.monotonic() - t0 < idle_s * 4 + 30:
            await asyncio.sleep(0.2)
        t1 = time.monotonic()
        while not serve.threads_gave_back() and time.monotonic() - t1 < 60:
            await asyncio.sleep(0.2)
        return time.monotonic() - t0

    # Warm up (the allocator's pools, the shop's pages), let those expire,
    # then take the baseline.
    await asyncio.gather(*(abandon(n) for n in range(50)))
    await expired()
    before = serve.rss_kib()
    t0 = time.perf_counter()
    samples = []
    batch = 100
    for start in range(0, count, batch):
        await asyncio.gather(*(abandon(n) for n in range(start, min(count, start + batch))))
        samples.append(serve.rss_kib())
    opened_s = time.perf_counter() - t0
    peak = max(samples)
    waited = await expired()
    after = serve.rss_kib()
    live = serve.live_sessions()
    serve.stop()
    figures = {"sessions": count, "errors": len(errors), "sessions_per_s": round(count / opened_s, 1),
               "rss_before_mib": round(before / 1024, 1), "rss_peak_mib": round(peak / 1024, 1),
               "rss_after_mib": round(after / 1024, 1), "after_over_before": round(after / before, 3),
               "live_after": live, "expiry_wait_s": round(waited, 1),
               "rss_mib_over_time": [round(x / 1024, 1) for x in samples]}
    say(f"churn: {figures}")
    check(not errors, f"churn: {len(errors)} errors, first: {errors[:3]}")
    check(live == 0, f"churn: {live} sessions still live after the idle timeout")
    # The target is 120%, measured 109-115% here; the check leaves a
    # little room for a busy machine. Without the memory given back it
    # measured 120-140%.
    check(after <= before * 1.25, f"churn: RSS {after} KiB after expiry, over 125% of {before} KiB before")
    return figures


# ---------------------------------------------------------------------------
# abuse: bad clients beside a good one
# ---------------------------------------------------------------------------


async def raw(host: str, port: int, data: bytes, read: bool = True, timeout: float = 15) -> bytes:
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, asyncio.TimeoutError):
        return b""
    try:
        w.write(data)
        await w.drain()
        if read:
            return await asyncio.wait_for(r.read(4096), timeout)
        return b""
    except (OSError, asyncio.TimeoutError, ConnectionError):
        return b""
    finally:
        w.close()
        with contextlib.suppress(Exception):
            await w.wait_closed()


async def abuse(whittle: str, shop: Shop, attempts: int, victim_calls: int) -> dict:
    serve = Serve(whittle, ["--engine", "static"])
    m = re.match(r"http://([\d.]+):(\d+)/mcp", serve.url or "")
    assert m
    host, port = m.group(1), int(m.group(2))

    async def victim(calls: int, stop: asyncio.Event | None = None) -> list[float]:
        lat: list[float] = []
        async with session(serve.url) as s:
            await s.call_tool("navigate", {"url": shop.url("/")})
            while len(lat) < calls or (stop is not None and not stop.is_set()):
                t0 = time.perf_counter()
                sc = content(await s.call_tool("observe", {}))
                lat.append((time.perf_counter() - t0) * 1000)
                if not sc.get("ok"):
                    raise AssertionError(f"victim observe failed: {sc}")
        return lat

    base = await victim(victim_calls)
    rss_before = serve.rss_kib()
    rss_peak = rss_before
    stop = asyncio.Event()
    outcomes = {"garbage": 0, "oversized": 0, "connections": 0, "slow": 0}
    head = f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"

    async def garbage() -> None:
        for body in [b"{not json", b'{"jsonrpc":"2.0","id":1}', b"[]", b"\xff\xfe\x00", b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}'] * 20:
            await raw(host, port, (head + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body)
            outcomes["garbage"] += 1

    async def oversized() -> None:
        body = b" " * (6 * 1024 * 1024)
        for _ in range(10):
            await raw(host, port, (head + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body)
            outcomes["oversized"] += 1

    async def storm() -> None:
        # Attempts in waves of 500 at once; each opens, sends half a
        # request line and hangs up.
        for start in range(0, attempts, 500):
            await asyncio.gather(*(raw(host, port, b"POST /mcp HT", read=False, timeout=5) for _ in range(min(500, attempts - start))))
            outcomes["connections"] += min(500, attempts - start)

    async def slow() -> None:
        socks = []
        for i in range(50):
            try:
                r, w = await asyncio.open_connection(host, port)
            except OSError:
                continue
            w.write((head + "Content-Length: 100000\r\n\r\n{").encode() if i % 2 else f"POST /mcp HTTP/1.1\r\nHost: {host}\r\n".encode())
            socks.append((r, w))
        for _ in range(12):
            for r, w in socks:
                with contextlib.suppress(Exception):
                    w.write(b" ")
            await asyncio.sleep(1)
        for r, w in socks:
            w.close()
        outcomes["slow"] = len(socks)

    async def watch_rss() -> None:
        nonlocal rss_peak
        while not stop.is_set():
            rss_peak = max(rss_peak, serve.rss_kib())
            await asyncio.sleep(0.2)

    async def abusers() -> None:
        try:
            await asyncio.gather(garbage(), oversized(), storm(), slow())
        finally:
            stop.set()

    watcher = asyncio.create_task(watch_rss())
    t0 = time.perf_counter()
    during, _ = await asyncio.gather(victim(victim_calls, stop), abusers())
    wall = time.perf_counter() - t0
    await watcher
    after = await victim(20)
    alive = serve.alive()
    serve.stop()
    figures = {"victim_calls_unloaded": len(base), "victim_calls_during": len(during),
               "p50_unloaded_ms": round(pct(base, 50), 2), "p99_unloaded_ms": round(pct(base, 99), 2),
               "p50_during_ms": round(pct(during, 50), 2), "p99_during_ms": round(pct(during, 99), 2),
               "p99_ratio": round(pct(during, 99) / pct(base, 99), 2), "abuse": outcomes,
               "rss_before_mib": round(rss_before / 1024, 1), "rss_peak_mib": round(rss_peak / 1024, 1), "wall_s": round(wall, 1)}
    say(f"abuse: {figures}")
    check(alive, "abuse: the server died")
    check(len(after) == 20, "abuse: the server stopped serving after the abuse")
    check(rss_peak < rss_before + 256 * 1024, f"abuse: RSS grew from {rss_before} to {rss_peak} KiB")
    return figures


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--whittle", required=True)
    ap.add_argument("--soak", action="store_true", help="the bench's sizes (longer)")
    ap.add_argument("--only", choices=["steady", "chromium", "churn", "abuse"], action="append")
    ap.add_argument("--sessions", type=int, default=32, help="steady: sessions at once (32)")
    ap.add_argument("--calls", type=int, default=200, help="steady: calls per session (200)")
    ap.add_argument("--churn", type=int, help="churn: sessions abandoned (1000; 2000 with --soak)")
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()
    parts = args.only or ["steady", "chromium", "churn", "abuse"]
    shop = Shop().start()
    figures: dict = {}
    try:
        if "steady" in parts:
            figures["steady"] = await steady(args.whittle, shop, args.sessions, args.calls)
        if "chromium" in parts:
            figures["chromium"] = await chromium(args.whittle, 8, 3 if args.soak else 1)
        if "churn" in parts:
            figures["churn"] = await churn(args.whittle, shop, args.churn or (2000 if args.soak else 1000), 2)
        if "abuse" in parts:
            figures["abuse"] = await abuse(args.whittle, shop, 10_000, 200 if args.soak else 100)
    finally:
        shop.stop()
    figures["failures"] = FAILURES
    line = json.dumps(figures)
    if args.json:
        with open(args.json, "w") as f:
            f.write(line + "\n")
    print(line, flush=True)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
