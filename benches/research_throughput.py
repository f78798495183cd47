#!/usr/bin/env python3
"""Throughput of `whittle research` against headless Chromium, end to end
from a loopback HTTP server.

    cargo build --release -p whittle --bin whittle
    python3 benches/research_throughput.py [--suites article,readability] [--pages N]
        [--runs 5] [--skip-chromium] [--chromium-tabs 1] [--concurrency N] [--per-host N]
        [--whittle PATH] [--chromium PATH]

Pages: suites of the shared corpus, `--suites` (comma-separated): `article`
(the article-extraction benchmark, 181 pages, gunzipped), `readability`
(Readability's test pages, 130) and `htmlparser` (htmlparser-benchmark);
by default article and readability. They are interleaved by suite so any
`--pages N` takes from each (default: every page of the suites, 311 for
the default two). They are written to a temp dir and served by a separate
process (this script with `--serve`): a ThreadingHTTPServer on 127.0.0.1
at an ephemeral port, HTTP/1.1 keep-alive, every page preloaded with its
headers (`Content-Type: text/html`, no charset: the bytes as saved, sniffed
by each client), one `sendall` per response.

1. Server check: a plain fetch of every page (16 Python threads, or
   `--concurrency`'s count, one keep-alive connection each), and the
   server's own CPU time during each whittle run (from /proc), so the
   server is shown not to be what limits.
2. whittle: `whittle research --jsonl --allow-private --urls-file F`
   (`--allow-private`: the pages are on loopback, which whittle refuses
   otherwise), `--runs` times (default 5: a run takes about a second, so
   one busy moment of the machine moves it). whittle's own limits apply
   unless `--concurrency N` / `--per-host N` are given, which are passed
   on: 16 pages in flight, 4 fetches at once per host. Every page is on
   one loopback host, so by default the per-host limit holds; to let that
   host stand in for many, raise it (`--concurrency 16 --per-host 16`, as
   the 2026-11-30 figures in benches/README.md were run). Timed from spawn
   to exit (process start, fetch, digest, JSON out); peak RSS is the
   child's own `ru_maxrss` (wait4); every output line must parse, every
   index must come back once, and at least one page must be digested. Best
   and median reported, and the CPU time per page (what the rate would be
   with every core free for whittle).
3. Chromium: one headless browser (the one on $PATH, or --chromium), one tab
   by default, driven over the DevTools protocol on a pipe
   (`--remote-debugging-pipe`: standard library only, no websocket client).
   Per page: `Page.navigate`, wait for `Page.loadEventFired`, evaluate
   `document.body.innerText` (alert()s are answered). Other hosts fail to
   resolve (`--host-resolver-rules`) and IP literals go to a proxy that is
   not there, so nothing leaves the machine and the loop does not time the
   internet; the pages' own inline scripts do run. A page whose `load`
   never fires (one whose image error handler retries forever) is cut
   after 10 s; the rate used for the ratio leaves such pages' time out. Five
   warm-up pages first (renderer start); the browser's start is reported
   apart. Memory: the peak of the summed PSS of Chromium's processes,
   sampled every 0.2 s.

Skips (exit 0, with the reason) when the shared corpus or the whittle binary
is missing; skips only the Chromium part when Chromium is missing. Nothing
here touches the internet. Linux only (/proc, wait4).
"""

from __future__ import annotations

import argparse
import fcntl
import gzip
import http.client
import http.server
import json
import os
import pathlib
import platform
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
TARGETS = {"pages_per_s": 300, "ratio": 30, "rss_mb": 200}
PAGE_TIMEOUT_S = 10
WARMUP_PAGES = 5


# ---------------------------------------------------------------- corpus


def shared_dir() -> pathlib.Path | None:
    env = os.environ.get("WHITTLE_SHARED_CORPUS")
    d = pathlib.Path(env) if env else REPO.parent / "shared" / "corpus"
    return d if d.is_dir() else None


SUITES = {
    "article": "article-extraction-benchmark",
    "readability": "readability",
    "htmlparser": "htmlparser-benchmark",
}


def suite_pages(root: pathlib.Path, suite: str) -> list[pathlib.Path]:
    """The pages of one suite, sorted by path (as `whittle-corpus` lists
    them)."""
    if suite == "article":
        return sorted((root / "article-extraction-benchmark" / "html").glob("*.html.gz"))
    if suite == "readability":
        return sorted(p / "source.html" for p in (root / "readability").iterdir() if (p / "source.html").is_file())
    if suite == "htmlparser":
        return sorted((root / "htmlparser-benchmark").glob("*.html"))
    raise SystemExit(f"unknown suite {suite!r} (known: {', '.join(SUITES)})")


def corpus_pages(root: pathlib.Path, suites: list[str], count: int) -> list[tuple[str, bytes]]:
    """(name, bytes) of the pages of `suites`, interleaved (so any `count`
    takes from each), each suite sorted by path."""
    lists = [suite_pages(root, s) for s in suites]
    order: list[pathlib.Path] = []
    for i in range(max(len(s) for s in lists)):
        order += [s[i] for s in lists if i < len(s)]
    if count:
        order = order[:count]
    pages = []
    for p in order:
        data = p.read_bytes()
        if p.name.endswith(".gz"):
            data = gzip.decompress(data)
        pages.append((str(p.relative_to(root)), data))
    return pages


# ---------------------------------------------------------------- server


def serve(directory: str) -> None:
    """`--serve DIR`: serves DIR/<n>.html at /<n>.html, prints the port."""
    responses = {}
    for p in pathlib.Path(directory).glob("*.html"):
        body = p.read_bytes()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n\r\n"
        responses["/" + p.name] = head.encode("ascii") + body

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # noqa: N802 (http.server's name)
            whole = responses.get(self.path.split("?", 1)[0])
            if whole is None:
                self.send_error(404)
                return
            self.wfile.write(whole)

        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

        def handle_error(self, request, client_address):
            pass  # a client that drops a keep-alive connection (Chromium does)

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def plain_fetch(urls: list[str], threads: int = 16) -> tuple[float, int]:
    """Wall time and bytes to fetch every URL with `threads` keep-alive
    connections (a Python client: an upper bound on the server's cost)."""
    work: queue.Queue[str] = queue.Queue()
    for u in urls:
        work.put(u)
    total = [0]
    lock = threading.Lock()
    failed: list[str] = []

    def worker():
        conn = None
        while True:
            try:
                u = work.get_nowait()
            except queue.Empty:
                break
            host, path = u.split("/", 3)[2], "/" + u.split("/", 3)[3]
            if conn is None:
                conn = http.client.HTTPConnection(host, timeout=30)
            conn.request("GET", path)
            r = conn.getresponse()
            body = r.read()
            with lock:
                total[0] += len(body)
                if r.status != 200:
                    failed.append(u)
        if conn is not None:
            conn.close()

    start = time.perf_counter()
    ts = [threading.Thread(target=worker) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    elapsed = time.perf_counter() - start
    if failed:
        raise SystemExit(f"the server failed {len(failed)} pages, e.g. {failed[0]}")
    return elapsed, total[0]


# ---------------------------------------------------------------- whittle


def run_whittle(binary: str, urls_file: str, n: int, args) -> dict:
    # The pages are on loopback, which whittle refuses unless allowed.
    cmd = [binary, "research", "--jsonl", "--allow-private", "--urls-file", urls_file]
    if args.concurrency:
        cmd += ["--concurrency", str(args.concurrency)]
    if args.per_host:
        cmd += ["--per-host", str(args.per_host)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err_chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()))
    reader.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    reader.join()
    if proc.returncode != 0:
        raise SystemExit(f"whittle research exited {proc.returncode}: {b''.join(err_chunks).decode(errors='replace')[-2000:]}")
    lines = out.decode("utf-8").splitlines()
    seen, ok, tokens, needs_scripts, errors = set(), 0, 0, 0, {}
    for line in lines:
        page = json.loads(line)  # every line must parse
        seen.add(page["index"])
        if page["ok"]:
            ok += 1
            tokens += page["tokens"]
            needs_scripts += bool(page.get("needs_scripts"))
        else:
            code = (page.get("error") or {}).get("code", "?")
            errors[code] = errors.get(code, 0) + 1
    if len(lines) != n or seen != set(range(1, n + 1)):
        raise SystemExit(f"whittle research gave {len(lines)} lines for {n} pages (indices seen: {len(seen)})")
    if ok == 0:
        raise SystemExit(f"whittle research digested none of the {n} pages: {errors}")
    return {"wall": elapsed, "rss_mb": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime,
            "ok": ok, "tokens": tokens, "needs_scripts": needs_scripts, "errors": errors}


# ---------------------------------------------------------------- Chromium


def find_chromium(explicit: str | None) -> str | None:
    for c in [explicit] if explicit else [os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]:
        if c:
            path = shutil.which(c)
            if path:
                return path
    return None


class Cdp:
    """The DevTools protocol over `--remote-debugging-pipe`: JSON messages
    ending in NUL, written to the browser's fd 3, read from its fd 4. One
    reader thread routes replies by id and events by session."""

    def __init__(self, chromium: str, profile: str):
        to_browser_r, self._w = os.pipe()
        self._r, from_browser_w = os.pipe()
        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-default-apps", "--disable-extensions", "--disable-sync",
                "--no-first-run", "--no-default-browser-check", "--mute-audio", "--hide-scrollbars",
                "--window-size=1280,800", f"--user-data-dir={profile}",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                # IP literals skip the resolver: send them to a proxy that is
                # not there (loopback never goes through a proxy).
                "--proxy-server=http://127.0.0.1:9",
                "--remote-debugging-pipe", "about:blank"]

        # The browser's fds 3 and 4, set by posix_spawn (every fd Python
        # opens is close-on-exec, so nothing else leaks into the browser).
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)
        self.pid = os.posix_spawn(chromium, args, os.environ, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, high[0], 3),
            (os.POSIX_SPAWN_DUP2, high[1], 4),
        ])
        for fd in high:
            os.close(fd)
        self._next = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue] = {}
        self.events: dict[str | None, queue.Queue] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    q = self._waiting.pop(msg["id"], None)
                    if q:
                        q.put(msg)
                else:
                    q = self.events.get(msg.get("sessionId"))
                    if q:
                        q.put(msg)
        os.close(self._r)
        for q in list(self._waiting.values()):
            q.put({"error": {"message": "the browser closed the pipe"}})

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = PAGE_TIMEOUT_S):
        reply: queue.Queue = queue.Queue()
        with self._lock:
            self._next += 1
            msg = {"id": self._next, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            self._waiting[self._next] = reply
            data = json.dumps(msg).encode() + b"\0"
            while data:
                data = data[os.write(self._w, data):]
        got = reply.get(timeout=timeout)
        if "error" in got:
            raise RuntimeError(f"{method}: {got['error'].get('message')}")
        return got["result"]

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        deadline = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        os.close(self._w)


class Tab:
    def __init__(self, cdp: Cdp):
        self.cdp = cdp
        target = cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.events: queue.Queue = queue.Queue()
        cdp.events[self.session] = self.events
        # Page events only (for `load`): Runtime.evaluate needs no
        # Runtime.enable, which would stream every console message.
        cdp.call("Page.enable", session=self.session)

    def load_text(self, url: str) -> tuple[bool, int, str]:
        """Navigates, waits for the load event, returns (ok, innerText length, why)."""
        while not self.events.empty():
            self.events.get_nowait()
        deadline = time.monotonic() + PAGE_TIMEOUT_S
        nav = self.cdp.call("Page.navigate", {"url": url}, session=self.session)
        if nav.get("errorText"):
            return False, 0, nav["errorText"]
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.cdp.call("Page.stopLoading", session=self.session)
                return False, 0, "timeout"
            try:
                ev = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if ev.get("method") == "Page.loadEventFired":
                break
            if ev.get("method") == "Page.javascriptDialogOpening":
                # alert() and confirm() would block the page until answered.
                self.cdp.call("Page.handleJavaScriptDialog", {"accept": True}, session=self.session)
        r = self.cdp.call("Runtime.evaluate", {
            "expression": "[location.href, document.body ? document.body.innerText : '']",
            "returnByValue": True}, session=self.session)
        href, text = r["result"].get("value") or ["", ""]
        if href != url:
            return True, len(text), f"moved it to {href[:60]}"
        return True, len(text), ""


def tree_pss_mb(root: int) -> float:
    """Summed PSS of `root` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(pathlib.Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack += children.get(pid, [])
        try:
            for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def run_chromium(chromium: str, urls: list[str], tabs: int) -> dict:
    profile = tempfile.mkdtemp(prefix="whittle-bench-chromium-")
    try:
        start = time.perf_counter()
        cdp = Cdp(chromium, profile)
        version = cdp.call("Browser.getVersion")["product"]
        workers = [Tab(cdp) for _ in range(tabs)]
        started = time.perf_counter() - start
        for u in urls[:WARMUP_PAGES]:
            workers[0].load_text(u)
        peak = [0.0]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], tree_pss_mb(cdp.pid))
                stop.wait(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        work: queue.Queue[str] = queue.Queue()
        for u in urls:
            work.put(u)
        results: list[tuple[bool, int, str]] = []
        lock = threading.Lock()

        def drive(tab: Tab):
            while True:
                try:
                    u = work.get_nowait()
                except queue.Empty:
                    return
                t = time.perf_counter()
                try:
                    ok, chars, why = tab.load_text(u)
                except Exception as e:  # noqa: BLE001 (one page's failure is counted, not fatal)
                    ok, chars, why = False, 0, str(e)
                with lock:
                    results.append((ok, chars, why, time.perf_counter() - t, u))

        t0 = time.perf_counter()
        threads = [threading.Thread(target=drive, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        stop.set()
        sampler.join()
        cdp.close()
        failures = [(u.rsplit("/", 1)[1], why) for ok, _, why, _, u in results if not ok]
        moved = [(u.rsplit("/", 1)[1], why) for ok, _, why, _, u in results if ok and why]
        # A page that never fires `load` holds its tab until the timeout:
        # the rate without those pages leaves that time out (exact for one
        # tab; with more, their time is shared among the tabs).
        lost = sum(d for ok, _, _, d, _ in results if not ok) / tabs
        ok_pages = len(results) - len(failures)
        return {"version": version, "wall": wall, "start": started, "ok": ok_pages,
                "rate": len(results) / wall, "rate_loaded": ok_pages / max(wall - lost, 1e-9),
                "chars": sum(r[1] for r in results), "failures": failures, "moved": moved, "pss_mb": peak[0]}
    finally:
        shutil.rmtree(profile, ignore_errors=True)


# ---------------------------------------------------------------- main


def machine() -> str:
    model = "?"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = int(pathlib.Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024
    except OSError:
        mem = 0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores ({model}), {mem:.0f} GiB, {platform.system()} {platform.release()}, load average {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=0, help="pages to use (default: all of the suites)")
    parser.add_argument("--suites", default="article,readability",
                        help="comma-separated, interleaved: article, readability, htmlparser (default: article,readability)")
    parser.add_argument("--runs", type=int, default=5, help="whittle runs (best and median reported)")
    parser.add_argument("--concurrency", type=int, default=0, help="whittle's --concurrency (default: whittle's own, 16)")
    parser.add_argument("--per-host", type=int, default=0, help="whittle's --per-host (default: whittle's own, 4)")
    parser.add_argument("--whittle", default=str(REPO / "target" / "release" / "whittle"))
    parser.add_argument("--chromium", default=None, help="default: $CHROMIUM, then chromium on $PATH")
    parser.add_argument("--chromium-tabs", type=int, default=1, help="tabs loading pages at once (default 1)")
    parser.add_argument("--skip-chromium", action="store_true")
    parser.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return

    root = shared_dir()
    if root is None:
        print("research_throughput: skipped: the shared corpus was not found (set WHITTLE_SHARED_CORPUS, or put it at ../shared/corpus)")
        return
    if not os.access(args.whittle, os.X_OK):
        print(f"research_throughput: skipped: no whittle binary at {args.whittle} (cargo build --release -p whittle --bin whittle)")
        return
    chromium = None
    if not args.skip_chromium:
        chromium = find_chromium(args.chromium)
        if chromium is None:
            print("research_throughput: Chromium skipped: not found (--chromium, $CHROMIUM, chromium on $PATH)")

    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    pages = corpus_pages(root, suites, args.pages)
    n = len(pages)
    html_mb = sum(len(b) for _, b in pages) / 1e6
    print(f"machine at the start: {machine()}")
    print(f"pages: {n} ({html_mb:.1f} MB of HTML: {' + '.join(SUITES[s] for s in suites)})")

    with tempfile.TemporaryDirectory(prefix="whittle-bench-research-") as tmp:
        site = pathlib.Path(tmp) / "site"
        site.mkdir()
        for i, (_, body) in enumerate(pages):
            (site / f"{i}.html").write_bytes(body)
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(site)], stdout=subprocess.PIPE)
        try:
            port = int(server.stdout.readline())
            urls = [f"http://127.0.0.1:{port}/{i}.html" for i in range(n)]
            urls_file = pathlib.Path(tmp) / "urls.txt"
            urls_file.write_text("".join(u + "\n" for u in urls))

            plain_fetch(urls[:WARMUP_PAGES])
            cpu0 = cpu_seconds(server.pid)
            fetch_s, fetched = plain_fetch(urls, args.concurrency or 16)
            fetch_cpu = cpu_seconds(server.pid) - cpu0
            print(f"server check: plain fetch of all {n} pages ({fetched / 1e6:.1f} MB, {args.concurrency or 16} keep-alive "
                  f"connections, Python client): {fetch_s:.2f} s = {n / fetch_s:.0f} pages/s; server CPU {fetch_cpu:.2f} s")

            runs = []
            for k in range(args.runs):
                cpu0 = cpu_seconds(server.pid)
                r = run_whittle(args.whittle, str(urls_file), n, args)
                r["server_cpu"] = cpu_seconds(server.pid) - cpu0
                runs.append(r)
                errs = ", ".join(f"{c} {m}" for c, m in sorted(r["errors"].items())) or "none"
                print(f"whittle run {k + 1}: {r['wall']:.2f} s = {n / r['wall']:.0f} pages/s; {r['ok']}/{n} ok "
                      f"(failures: {errs}); peak RSS {r['rss_mb']:.1f} MB; whittle CPU {r['cpu']:.2f} s "
                      f"({r['cpu'] / r['wall'] / (os.cpu_count() or 1):.0%} of the machine); server CPU {r['server_cpu']:.2f} s; "
                      f"{r['tokens']} digest tokens, {r['needs_scripts']} pages flagged needs_scripts")

            chrome = None
            if chromium:
                chrome = run_chromium(chromium, urls, max(1, args.chromium_tabs))
                print(f"chromium: {chrome['version']}, {args.chromium_tabs} tab(s), started in {chrome['start']:.2f} s; "
                      f"{n} pages in {chrome['wall']:.2f} s = {chrome['rate']:.2f} pages/s; {chrome['ok']}/{n} loaded "
                      f"({len(chrome['moved'])} moved elsewhere by script), {chrome['rate_loaded']:.2f} pages/s without "
                      f"the pages that never loaded; innerText {chrome['chars'] / 1e6:.1f} M chars; "
                      f"peak PSS (sampled) {chrome['pss_mb']:.0f} MB")
                for page, why in chrome["moved"]:
                    print(f"  chromium: {pages[int(page.split('.')[0])][0]}: its script {why} (counted as loaded)")
                for page, why in chrome["failures"]:
                    print(f"  chromium: {pages[int(page.split('.')[0])][0]}: {why}")
        finally:
            server.terminate()
            server.wait()

    walls = sorted(r["wall"] for r in runs)
    best, median = n / walls[0], n / statistics.median(walls)
    rss = max(r["rss_mb"] for r in runs)
    print()
    print(f"summary ({time.strftime('%Y-%m-%d')}; machine at the end: {machine()}):")
    print(f"  pages                    {n} ({html_mb:.1f} MB), {min(r['ok'] for r in runs)} digested ok")
    print(f"  whittle pages/s          best {best:.0f}, median {median:.0f} over {len(runs)} runs   (target >= {TARGETS['pages_per_s']})")
    cpu = statistics.median(r["cpu"] for r in runs)
    print(f"  whittle CPU              median {cpu:.2f} s = {cpu / n * 1000:.1f} ms per page: {n / (cpu / (os.cpu_count() or 1)):.0f} pages/s "
          f"if every core were whittle's")
    print(f"  whittle peak RSS         {rss:.1f} MB   (target <= {TARGETS['rss_mb']} MB for 200 pages)")
    if chrome:
        cps = chrome["rate_loaded"]
        print(f"  chromium pages/s         {cps:.2f} ({args.chromium_tabs} tab(s), load + document.body.innerText; "
              f"{chrome['rate']:.2f} counting the {n - chrome['ok']} pages that hit the {PAGE_TIMEOUT_S} s timeout)")
        print(f"  ratio whittle/chromium   best {best / cps:.1f}x, median {median / cps:.1f}x   (target >= {TARGETS['ratio']}x)")
    else:
        print("  chromium                 skipped")


if __name__ == "__main__":
    main()
