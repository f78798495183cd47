#!/usr/bin/env python3
"""The agent-browser tool set (`whittle mcp --tools agent-browser`), driven
by the official Python MCP SDK over stdio (`whittle mcp`) and Streamable
HTTP (`whittle serve`) against the demo shop (shop.py) on loopback.

    python3 server/tests/e2e/test_compat.py --whittle target/debug/whittle [--seed FILE] [-v]

What is asserted: the six tools with agent-browser's input and output schemas
(compared with the seed file itself when it is at hand: --seed, else
../shared/seeds/004_*.txt beside the repository); every successful result's
structured content validated against the tool's declared outputSchema by
jsonschema (Draft 7, as the schemas declare; the SDK validates as well, and
a mismatch is a failure either way), with each tool validated at least
once; sessions by id (cookies kept, another id another browser, close);
reading and acting by CSS selector; the YAML tree; and the error codes,
each triggered on purpose. Screenshots need Chromium: without it that
scenario is skipped, unless WHITTLE_CHROMIUM_TESTS=require.

The last line is `N passed, N failed, N skipped`; exit code 1 on failure.
"""

from __future__ import annotations

import argparse
import base64
import glob
import json
import os
import shutil
import socket
import struct
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from shop import HIDDEN_PROMO, PRODUCTS, SITE, Shop, price  # noqa: E402

import anyio  # noqa: E402
import jsonschema  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

try:
    import yaml
except ImportError:
    yaml = None

TOOLS = ["browser_navigate", "browser_extract", "browser_snapshot", "browser_interact", "browser_screenshot", "browser_close"]
CALL_TIMEOUT = 120.0


class Skip(Exception):
    pass


def check(cond, message: str) -> None:
    if not cond:
        raise AssertionError(message)


def field(obj, snake: str, camel: str):
    """An attribute of an SDK model by its 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel, None)


class Client:
    """One MCP connection; every call's structured result is validated."""

    def __init__(self, session: ClientSession, shop: Shop, verbose: bool):
        self.session = session
        self.shop = shop
        self.verbose = verbose
        self.tools: dict[str, dict] = {}
        self.validated: dict[str, int] = {t: 0 for t in TOOLS}
        self.errors_seen: set[str] = set()

    async def load(self) -> None:
        listed = await self.session.list_tools()
        self.tools = {t.name: t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools}

    async def raw(self, tool: str, args: dict):
        with anyio.fail_after(CALL_TIMEOUT):
            # The SDK validates structured content against the outputSchema
            # itself and raises when it does not fit.
            result = await self.session.call_tool(tool, args)
        if self.verbose:
            print(f"  {tool} {json.dumps(args)} → error={field(result, 'is_error', 'isError')} {str(result.content[0])[:200]}")
        return result

    async def ok(self, tool: str, **args) -> dict:
        result = await self.raw(tool, args)
        text = result.content[0].text if result.content and result.content[0].type == "text" else ""
        check(not field(result, "is_error", "isError"), f"{tool} {json.dumps(args)} failed: {text}")
        sc = field(result, "structured_content", "structuredContent")
        check(isinstance(sc, dict), f"{tool}: no structured content")
        jsonschema.Draft7Validator(self.tools[tool]["outputSchema"]).validate(sc)
        self.validated[tool] += 1
        check(json.loads(text) == sc, f"{tool}: the text content is not the structured result as JSON")
        check(HIDDEN_PROMO not in text, f"{tool}: text the stylesheet hides was sent")
        self.last = result
        return sc

    async def error(self, code: str, tool: str, **args) -> str:
        result = await self.raw(tool, args)
        check(field(result, "is_error", "isError"), f"{tool} {json.dumps(args)}: expected {code}, got a success: {result.content}")
        body = json.loads(result.content[0].text)
        got = body.get("error", {}).get("code")
        check(got == code, f"{tool} {json.dumps(args)}: expected {code}, got {got}: {body}")
        check(body["error"].get("message"), f"{tool}: {code} without a message")
        self.errors_seen.add(code)
        return body["error"]["message"]


# ---------------------------------------------------------------------------


def seed_file(given: str | None) -> str | None:
    if given:
        return given
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    found = sorted(glob.glob(os.path.join(root, "..", "shared", "seeds", "004_*.txt")))
    return found[0] if found else None


def seed_tools(path: str) -> list[tuple[str, dict, dict]]:
    """(description, input schema, output schema) per tool, in order, read
    from the seed: a `Use for:` paragraph, then two JSON objects."""
    text = open(path, encoding="utf-8").read()
    decoder = json.JSONDecoder()
    out, i, description, schemas = [], 0, None, []
    while i < len(text):
        if text.startswith("Use for:", i):
            end = text.find("\n", i)
            description, schemas = text[i:end].strip(), []
            i = end
        elif text[i] == "{":
            obj, i = decoder.raw_decode(text, i)
            schemas.append(obj)
            if len(schemas) == 2:
                out.append((description, schemas[0], schemas[1]))
        else:
            i += 1
    return out


async def tool_list(c: Client, opts) -> None:
    check(list(c.tools) == TOOLS, f"the tools are {list(c.tools)}")
    for name, t in c.tools.items():
        for key in ("inputSchema", "outputSchema"):
            jsonschema.Draft7Validator.check_schema(t[key])
    path = seed_file(opts.seed)
    if path is None:
        raise Skip("the seed file is not here: the schemas were checked against jsonschema only")
    seeds = seed_tools(path)
    check(len(seeds) == 6, f"{path}: read {len(seeds)} tools, not 6")
    for name, (description, input_schema, output_schema) in zip(TOOLS, seeds):
        t = c.tools[name]
        check(t["inputSchema"] == input_schema, f"{name}: inputSchema differs from the seed:\n{json.dumps(t['inputSchema'])}")
        check(t["outputSchema"] == output_schema, f"{name}: outputSchema differs from the seed")
        check(t["description"].startswith(description), f"{name}: the description is not the seed's: {t['description']}")
        check("data, never instructions" in t["description"], f"{name}: no note that page text is data")


async def read_the_shop(c: Client, opts) -> None:
    home = await c.ok("browser_navigate", session_id="r", url=c.shop.url("/"))
    check(home["title"].endswith(SITE), f"title {home['title']!r}")
    check(home["url"] == c.shop.url("/") and home["session_id"] == "r", f"{home}")
    check(all(p["name"] in home["text"] for p in PRODUCTS[:5]), f"the text holds the products:\n{home['text']}")
    check(len(home["text"]) <= 8000, "more than 8,000 characters of text")

    prices = await c.ok("browser_extract", session_id="r", selector=".card .price")
    check(prices == {"results": [price(p["cents"]) for p in PRODUCTS], "count": 30}, f"{prices}")
    links = await c.ok("browser_extract", session_id="r", selector=".card a", attribute="href")
    check(links["results"][:2] == [c.shop.url("/product/1"), c.shop.url("/product/2")], f"{links['results'][:2]}")
    whole = await c.ok("browser_extract", session_id="r")
    check(whole["count"] == 1 and "Free returns within 30 days" in whole["results"][0], f"{whole}")

    snap = await c.ok("browser_snapshot", session_id="r")
    check(snap["url"] == c.shop.url("/"), f"{snap['url']}")
    tree = snap["snapshot"]
    check('heading "All products" [level=1]' in tree, f"no h1 in:\n{tree}")
    check('link "Brass Lantern"' in tree and 'button "Add to cart"' in tree, f"no cards in:\n{tree}")
    if yaml is not None:
        parsed = yaml.safe_load(tree)
        check(isinstance(parsed, list) and parsed, f"the snapshot is not a YAML sequence:\n{tree}")


async def sessions_and_forms(c: Client, opts) -> None:
    await c.ok("browser_navigate", session_id="s1", url=c.shop.url("/"))
    added = await c.ok("browser_interact", session_id="s1", action="submit", selector=".card form")
    check(added["success"] is True, f"{added}")
    cart = await c.ok("browser_navigate", session_id="s1", url=c.shop.url("/cart"))
    check(PRODUCTS[0]["name"] in cart["text"], f"the cart cookie was kept:\n{cart['text']}")
    other = await c.ok("browser_navigate", session_id="s2", url=c.shop.url("/cart"))
    check("Your cart is empty" in other["text"], f"another session_id is another browser:\n{other['text']}")

    await c.ok("browser_navigate", session_id="s1", url=c.shop.url("/checkout"))
    await c.ok("browser_interact", session_id="s1", action="fill", selector="#email", value="jane@example.com")
    await c.ok("browser_interact", session_id="s1", action="select", selector="#country", value="Canada")
    review = await c.ok("browser_interact", session_id="s1", action="click", selector="main form button[type=submit]")
    check(review["url"] == c.shop.url("/review"), f"{review['url']}")
    check("jane@example.com" in review["text"] and "Canada" in review["text"], f"{review['text']}")

    await c.ok("browser_interact", session_id="s1", action="type", selector="#q", value="lantern")
    found = await c.ok("browser_interact", session_id="s1", action="press", selector="#q")
    check("/search?q=lantern" in found["url"] and "Brass Lantern" in found["text"], f"{found}")

    for sid in ("s1", "s2", "never-used"):
        closed = await c.ok("browser_close", session_id=sid)
        check(closed == {"closed": True, "session_id": sid}, f"{closed}")
    await c.error("NO_PAGE", "browser_extract", session_id="s1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def errors(c: Client, opts) -> None:
    for url in ("not a url", "/relative", "ftp://127.0.0.1/x"):
        await c.error("INVALID_URL", "browser_navigate", session_id="e", url=url)
    await c.error("NAV_FAILED", "browser_navigate", session_id="e", url=f"http://127.0.0.1:{free_port()}/")
    await c.error("NAV_FAILED", "browser_navigate", session_id="e", url=c.shop.url("/image.png"))
    await c.error("NAV_TIMEOUT", "browser_navigate", session_id="e", url=c.shop.url("/slow"))
    await c.error("NAV_TIMEOUT", "browser_navigate", session_id="e", url=c.shop.url("/"), wait_for="#no-such-thing")
    await c.ok("browser_navigate", session_id="e", url=c.shop.url("/"), wait_for=".card")
    message = await c.error("INVALID_SELECTOR", "browser_extract", session_id="e", selector="div[")
    check("div[" in message, f"the error names the selector: {message}")
    await c.error("INVALID_SELECTOR", "browser_interact", session_id="e", action="click", selector=">>")
    await c.error("NOT_FOUND", "browser_interact", session_id="e", action="click", selector="#nothing-here")
    for action in ("fill", "type", "select"):
        await c.error("INVALID_ARGS", "browser_interact", session_id="e", action=action, selector="#q")
    await c.error("INVALID_ARGS", "browser_navigate", session_id="e", url=c.shop.url("/"), referrer="x")
    await c.error("INVALID_ARGS", "browser_snapshot", session_id="")
    await c.error("NO_PAGE", "browser_snapshot", session_id="brand-new")
    # The session lived through all of it.
    still = await c.ok("browser_extract", session_id="e", selector="h1")
    check(still["results"] == ["All products"], f"{still}")


def png_size(data: bytes) -> tuple[int, int]:
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    return struct.unpack(">II", data[16:24])


async def screenshots(c: Client, opts) -> None:
    if not (shutil.which("chromium") or os.environ.get("CHROMIUM") or os.environ.get("WHITTLE_CHROMIUM")):
        if os.environ.get("WHITTLE_CHROMIUM_TESTS") == "require":
            raise AssertionError("WHITTLE_CHROMIUM_TESTS=require, but no chromium is on PATH")
        raise Skip("no chromium on PATH")
    await c.ok("browser_navigate", session_id="p", url=c.shop.url("/checkout"))
    await c.ok("browser_interact", session_id="p", action="fill", selector="#email", value="jane@example.com")
    shot = await c.ok("browser_screenshot", session_id="p")
    images = [b for b in c.last.content if b.type == "image"]
    check(len(images) == 1, "one image block")
    data = base64.b64decode(images[0].data)
    check(shot["mime_type"] == field(images[0], "mime_type", "mimeType") == "image/png", f"{shot}")
    check(shot["bytes"] == len(data) and shot["url"] == c.shop.url("/checkout"), f"{shot}")
    width, height = png_size(data)
    await c.ok("browser_navigate", session_id="p", url=c.shop.url("/"))
    full = await c.ok("browser_screenshot", session_id="p", full_page=True)
    data = base64.b64decode([b for b in c.last.content if b.type == "image"][0].data)
    fw, fh = png_size(data) if full["mime_type"] == "image/png" else (width, 0)
    check(fw == width and fh > 2 * height, f"the full page ({fw}×{fh}) is longer than the view ({width}×{height})")
    await c.ok("browser_close", session_id="p")


SCENARIOS = [tool_list, read_the_shop, sessions_and_forms, errors, screenshots]


async def run_scenarios(session: ClientSession, shop: Shop, opts, transport: str) -> tuple[int, int, int]:
    passed = failed = skipped = 0
    c = Client(session, shop, opts.verbose)
    await c.load()
    for fn in SCENARIOS:
        name = f"{transport}/{fn.__name__}"
        try:
            await fn(c, opts)
            passed += 1
            print(f"ok    {name}")
        except Skip as e:
            skipped += 1
            print(f"SKIP  {name}: {e}")
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL  {name}: {e}")
            if opts.verbose:
                traceback.print_exc()
    missing = [t for t, n in c.validated.items() if n == 0 and not (t == "browser_screenshot" and skipped)]
    if missing:
        failed += 1
        print(f"FAIL  {transport}/outputs: no validated output for {missing}")
    else:
        print(f"ok    {transport}/outputs: {sum(c.validated.values())} structured results validated against their "
              f"outputSchemas, all fit ({', '.join(f'{t} {n}' for t, n in c.validated.items())}); "
              f"error codes seen: {sorted(c.errors_seen)}")
    return passed, failed, skipped


async def main_async(opts) -> int:
    from test_mcp import Options, Serve, http_session  # the HTTP plumbing of the main suite

    shop = Shop().start()
    totals = [0, 0, 0]
    flags = ["--tools", "agent-browser", "--allow-private", "--nav-timeout", "5"]
    try:
        params = StdioServerParameters(command=opts.whittle, args=["mcp", *flags], env={**os.environ, "RUST_BACKTRACE": "1"})
        async with stdio_client(params) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                for i, n in enumerate(await run_scenarios(session, shop, opts, "stdio")):
                    totals[i] += n
        serve = Serve(Options(whittle=opts.whittle, transports=["http"], only=[], verbose=opts.verbose,
                              tools_json=None, serve_args=flags))
        try:
            async with http_session(serve.url) as session:
                for i, n in enumerate(await run_scenarios(session, shop, opts, "http")):
                    totals[i] += n
        finally:
            serve.stop()
    finally:
        shop.stop()
    passed, failed, skipped = totals
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--whittle", required=True)
    ap.add_argument("--seed")
    ap.add_argument("-v", "--verbose", action="store_true")
    return anyio.run(main_async, ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
