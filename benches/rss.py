"""Peak memory of `whittle mcp` with ten static tabs open (printed beside
a budget of 50 MB RSS).

Serves ten of the largest real pages of the shared corpus on loopback, has
one MCP client (the official Python SDK) open each in its own tab through
`whittle mcp` over stdio and observe it, then reads the server's VmRSS and
VmHWM from /proc. Linux only.

    cargo build --release -p whittle
    python3 benches/rss.py [--whittle target/release/whittle] [--tabs 10] [--pick median|largest]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import http.server
import os
import pathlib
import threading


def corpus_pages(root: pathlib.Path, count: int, pick: str) -> list[bytes]:
    """`count` real pages (readability, article-extraction-benchmark,
    bootstrap): the largest, or those around the median size."""
    found = []
    for suite in ("readability", "article-extraction-benchmark", "bootstrap"):
        for p in (root / suite).rglob("*"):
            if p.name.endswith(".html") or p.name.endswith(".html.gz"):
                found.append(p)
    found.sort(key=lambda p: p.stat().st_size, reverse=True)
    if pick == "median":
        mid = len(found) // 2
        found = found[max(0, mid - count // 2):]
    pages = []
    for p in found[:count]:
        data = p.read_bytes()
        pages.append(gzip.decompress(data) if p.name.endswith(".gz") else data)
    return pages


def serve(pages: list[bytes]) -> str:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            try:
                body = pages[int(self.path.strip("/").split(".")[0])]
            except (ValueError, IndexError):
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def server_pid(binary: str) -> int:
    """The pid of our `whittle mcp` child."""
    me = os.getpid()
    target = os.path.realpath(binary)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            exe = os.path.realpath(f"/proc/{entry}/exe")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and exe == target:
            return int(entry)
    raise SystemExit("the whittle mcp process was not found")


def memory(pid: int) -> dict[str, int]:
    out = {}
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])  # kB
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whittle", default="target/release/whittle")
    parser.add_argument("--tabs", type=int, default=10)
    parser.add_argument("--pick", choices=["largest", "median"], default="median")
    args = parser.parse_args()
    root = pathlib.Path(os.environ.get("WHITTLE_SHARED_CORPUS", "../shared/corpus"))
    if not root.is_dir():
        raise SystemExit(f"rss: skipped: no shared corpus at {root} (set WHITTLE_SHARED_CORPUS)")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    pages = corpus_pages(root, args.tabs, args.pick)
    base = serve(pages)
    params = StdioServerParameters(command=args.whittle, args=["mcp", "--allow-private"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            pid = server_pid(args.whittle)
            print(f"started: {memory(pid)['VmRSS'] / 1024:.1f} MB")
            for i in range(len(pages)):
                if i > 0:
                    await session.call_tool("tabs", {"op": "open"})
                result = await session.call_tool("navigate", {"url": f"{base}/{i}.html"})
                failed = getattr(result, "is_error", None) or getattr(result, "isError", None)
                assert not failed, result
                await session.call_tool("observe", {})
            listing = await session.call_tool("tabs", {"op": "list"})
            tabs = listing.content[0].text.count("\n")
            m = memory(pid)
            total = sum(len(p) for p in pages) / 1e6
            print(f"{tabs} tabs open ({total:.1f} MB of HTML): RSS {m['VmRSS'] / 1024:.1f} MB, peak {m['VmHWM'] / 1024:.1f} MB")


if __name__ == "__main__":
    asyncio.run(main())
