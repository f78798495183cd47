#!/usr/bin/env python3
"""whittle beside other MCP browsing servers, through one MCP client.

Each server runs as its client config would start it (stdio), driven by
the official Python MCP SDK: one session each, one tab, the same pages
served on loopback by this script, taking turns by blocks of pages so no
server is timed while another works. Per page, each server is asked for
what an agent asks first on arriving: go to the URL and read the page —
whittle's `navigate` (which returns the observation), Playwright MCP's
`browser_navigate` then `browser_snapshot` (its navigate saves the
snapshot to a file and answers with a link), chrome-devtools-mcp's
`navigate_page` then `take_snapshot`. It prints, per server: the time from
request to result (median, p90), the size of what the model reads in
o200k tokens (tiktoken; median, p90), failures, and the tokens of the tool
list the model reads (names, descriptions, input schemas).

    cargo build --release -p whittle
    npm install --prefix /tmp/peers @playwright/mcp@0.0.83 chrome-devtools-mcp@1.11.0
    python3 benches/mcp_peers.py --whittle target/release/whittle --peers /tmp/peers \
        [--pages 60] [--block 10] [--chromium /usr/bin/chromium]

Needs python3 with `mcp` and `tiktoken`, Node.js for the peers, a
Chromium for the peers to drive (whittle runs its default engine, `auto`),
and the shared corpus (Readability's and Bootstrap's pages; at
$WHITTLE_SHARED_CORPUS or ../shared/corpus). A peer whose package is not
under --peers is left out, and the table says so.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import statistics
import sys
import threading
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def corpus_dir() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    found = os.environ.get("WHITTLE_SHARED_CORPUS") or os.path.join(here, "..", "..", "shared", "corpus")
    if not os.path.isdir(found):
        sys.exit(f"mcp_peers: no shared corpus at {found} (set WHITTLE_SHARED_CORPUS): nothing measured")
    return os.path.abspath(found)


def pages(root: str, limit: int) -> list[str]:
    """Paths under root: Readability's pages, then Bootstrap's, alternating."""
    readability = sorted(
        f"readability/{d}/source.html" for d in os.listdir(os.path.join(root, "readability"))
        if os.path.isfile(os.path.join(root, "readability", d, "source.html"))
    )
    bootstrap = sorted(f"bootstrap/{f}" for f in os.listdir(os.path.join(root, "bootstrap")) if f.endswith(".html"))
    mixed = []
    for i in range(max(len(readability), len(bootstrap))):
        mixed += readability[i:i + 1] + bootstrap[i:i + 1]
    return mixed[:limit]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D401 - no access log
        pass

    def guess_type(self, path):  # pages as text/html with no charset, as the corpus benches send them
        return "text/html" if str(path).endswith(".html") else super().guess_type(path)


def serve(root: str) -> str:
    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def field(obj, *names):
    """An attribute under its SDK 2.x name or its 1.x one."""
    for n in names:
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


def failed(result) -> bool:
    return bool(field(result, "is_error", "isError"))


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


class Server:
    """One MCP server: how it starts and how it goes to a page and reads it."""

    def __init__(self, name: str, command: list[str]):
        self.name = name
        self.command = command
        self.session: ClientSession | None = None
        self.tool_tokens = 0
        self.times: list[float] = []
        self.tokens: list[int] = []
        self.failures: list[str] = []
        self.navigate_has_type = False

    async def visit(self, url: str) -> str:
        raise NotImplementedError


class Whittle(Server):
    async def visit(self, url: str) -> str:
        r = await self.session.call_tool("navigate", {"url": url})
        if failed(r) or (field(r, "structured_content", "structuredContent") or {}).get("ok") is False:
            raise RuntimeError(text_of(r)[:200])
        return text_of(r)


class Playwright(Server):
    async def visit(self, url: str) -> str:
        # Its navigate saves the snapshot to a file and answers with a
        # link; the model reads the page through browser_snapshot.
        r = await self.session.call_tool("browser_navigate", {"url": url})
        if failed(r):
            raise RuntimeError(text_of(r)[:200])
        s = await self.session.call_tool("browser_snapshot", {})
        if failed(s):
            raise RuntimeError(text_of(s)[:200])
        return text_of(s)


class DevTools(Server):
    page_id: int | None = None

    async def visit(self, url: str) -> str:
        if self.page_id is None:
            listed = text_of(await self.session.call_tool("list_pages", {}))
            ids = [int(line.split(":", 1)[0]) for line in listed.splitlines() if line.split(":", 1)[0].strip().isdigit()]
            self.page_id = ids[0] if ids else 1
        page = {"pageId": self.page_id}
        args = {"url": url, **page, **({"type": "url"} if self.navigate_has_type else {})}
        r = await self.session.call_tool("navigate_page", args)
        if failed(r):
            raise RuntimeError(text_of(r)[:200])
        s = await self.session.call_tool("take_snapshot", page)
        if failed(s):
            raise RuntimeError(text_of(s)[:200])
        return text_of(s)


def o200k():
    """tiktoken's o200k_base. Offline, tiktoken cannot download its table:
    the copy tiktoken-rs ships (in cargo's registry, as the Rust benches
    build it) is put where tiktoken looks first, and checked by its hash."""
    import glob
    import hashlib
    import shutil
    import tempfile

    import tiktoken

    with contextlib.suppress(Exception):
        return tiktoken.get_encoding("o200k_base")
    home = os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")
    found = sorted(glob.glob(os.path.join(home, "registry", "src", "*", "tiktoken-rs-*", "assets", "o200k_base.tiktoken")))
    if not found:
        sys.exit("mcp_peers: tiktoken cannot download o200k_base, and no copy was found in cargo's registry (build the benches once)")
    cache = tempfile.mkdtemp(prefix="whittle-tiktoken-")
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    shutil.copy(found[-1], os.path.join(cache, hashlib.sha1(url.encode()).hexdigest()))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    return tiktoken.get_encoding("o200k_base")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--whittle", required=True)
    ap.add_argument("--peers", help="npm prefix with @playwright/mcp and chrome-devtools-mcp")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--pages", type=int, default=60)
    ap.add_argument("--block", type=int, default=10)
    opts = ap.parse_args()

    enc = o200k()
    root = corpus_dir()
    base = serve(root)
    urls = [f"{base}/{p}" for p in pages(root, opts.pages)]

    servers: list[Server] = [Whittle("whittle", [os.path.abspath(opts.whittle), "mcp", "--allow-private"])]
    missing = []
    bin_dir = os.path.join(os.path.abspath(opts.peers or "."), "node_modules", ".bin")
    pw = os.path.join(bin_dir, "playwright-mcp")
    dt = os.path.join(bin_dir, "chrome-devtools-mcp")
    if opts.peers and os.path.exists(pw):
        servers.append(Playwright("Playwright MCP", [pw, "--headless", "--isolated", "--no-sandbox", "--executable-path", opts.chromium]))
    else:
        missing.append("Playwright MCP")
    if opts.peers and os.path.exists(dt):
        servers.append(DevTools("chrome-devtools-mcp", [
            dt, "--headless", "--isolated", "--executablePath", opts.chromium,
            "--chromeArg=--no-sandbox", "--no-usage-statistics",
        ]))
    else:
        missing.append("chrome-devtools-mcp")

    import tempfile

    work = tempfile.mkdtemp(prefix="whittle-mcp-peers-")
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(lambda: __import__("shutil").rmtree(work, ignore_errors=True))
        for s in servers:
            # In a folder of their own: a peer may save snapshots beside it.
            params = StdioServerParameters(command=s.command[0], args=s.command[1:], env={**os.environ, "CI": "1"}, cwd=work)
            read, write = await stack.enter_async_context(stdio_client(params, errlog=open(os.devnull, "w")))
            s.session = await stack.enter_async_context(ClientSession(read, write))
            await s.session.initialize()
            tools = (await s.session.list_tools()).tools
            listed = [{"name": t.name, "description": t.description, "inputSchema": field(t, "input_schema", "inputSchema")} for t in tools]
            s.tool_tokens = len(enc.encode(json.dumps(listed, separators=(",", ":"))))
            for t in tools:
                if t.name == "navigate_page":
                    s.navigate_has_type = "type" in ((field(t, "input_schema", "inputSchema") or {}).get("properties") or {})
            # The first visit starts a browser where there is one: not timed.
            with contextlib.suppress(Exception):
                await s.visit(urls[0])
        for start in range(0, len(urls), opts.block):
            for s in servers:
                for url in urls[start:start + opts.block]:
                    began = time.perf_counter()
                    try:
                        text = await s.visit(url)
                    except Exception as e:  # a failure is counted, the run goes on
                        s.failures.append(f"{url.removeprefix(base)}: {e}")
                        continue
                    s.times.append((time.perf_counter() - began) * 1000)
                    s.tokens.append(len(enc.encode(text)))

    print(f"{len(urls)} pages (Readability and Bootstrap, alternating) from loopback, blocks of {opts.block}, one session each\n")
    print("| server | go to a page and read it: median | p90 | what the model reads, o200k tokens: median | p90 | failures | tool list, o200k tokens |")
    print("|---|---|---|---|---|---|---|")
    for s in servers:
        print(
            f"| {s.name} | {statistics.median(s.times) if s.times else float('nan'):.1f} ms | {pct(s.times, 0.9):.1f} ms "
            f"| {statistics.median(s.tokens) if s.tokens else 0:,.0f} | {pct(s.tokens, 0.9):,.0f} | {len(s.failures)} | {s.tool_tokens:,} |"
        )
    for name in missing:
        print(f"| {name} | not measured (not installed under --peers) | | | | | |")
    for s in servers:
        for f in s.failures[:5]:
            print(f"{s.name}: failed: {f}")


if __name__ == "__main__":
    anyio.run(main)
