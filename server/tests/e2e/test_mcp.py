#!/usr/bin/env python3
"""End-to-end tests of whittle's MCP server, driven by the official Python
MCP SDK over both transports (`whittle mcp` on stdio, `whittle serve` over
Streamable HTTP), against the demo shop in shop.py on loopback.

    python3 server/tests/e2e/test_mcp.py --whittle target/debug/whittle
        [--transport stdio|http|both] [--only SUBSTRING] [--tools-json PATH] [-v]

What is asserted is what docs/observation.md and docs/mcp.md promise: the text of observations
and act results, the structured envelope of every result (validated against
the tool's declared outputSchema; nothing page-written under `server`), and
errors as results with `ok: false` and a code, after which the session still
works. Where the protocol is silent, only what an agent relies on is
asserted.

Every scenario runs in a fresh MCP session; on stdio each has its own
server process, over HTTP all share one `whittle serve`. The last line is
`N passed, N failed, N skipped`; the exit code is 1 when anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from shop import HIDDEN_PROMO, PRODUCTS, SITE, Shop, price  # noqa: E402

import anyio  # noqa: E402  (a dependency of the mcp SDK)
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

try:  # SDK 2.x and late 1.x
    from mcp.client.streamable_http import streamable_http_client as _new_http_client
except ImportError:  # pragma: no cover (older SDKs)
    _new_http_client = None
try:  # SDK 1.x
    from mcp.client.streamable_http import streamablehttp_client as _old_http_client
except ImportError:
    _old_http_client = None
try:
    from mcp.shared._httpx_utils import create_mcp_http_client
except ImportError:  # pragma: no cover
    create_mcp_http_client = None

try:
    import jsonschema
except ImportError:
    jsonschema = None

CALL_TIMEOUT = 120.0  # seconds for one tool call (a never-ending body may take the server's whole timeout)
SCENARIO_TIMEOUT = 300.0
NAV_TIMEOUT = 5  # seconds, given to the server as --nav-timeout when it has the option
BAD_REF = 999_999
FOLD_RE = re.compile(r"… \+(\d+) more items \(observe ref (\d+)\)")
PRODUCT_NAMES = [p["name"] for p in PRODUCTS]
# Page-written text that must never appear under `server` (docs/observation.md), on
# top of each result's own title and element names.
PAGE_WRITTEN = [SITE, "Continue to review", "This is a gift", "Privacy Policy", "Place order",
                "Lost in the aisles", "Something broke", "Review your order", *PRODUCT_NAMES]


# ---------------------------------------------------------------------------
# Results, checks and the per-scenario context
# ---------------------------------------------------------------------------


class Skip(Exception):
    """A scenario that cannot run here, with the reason."""


def fail(message: str, res: "Result | None" = None) -> None:
    if res is not None:
        message += "\n--- text of the result ---\n" + (res.text or "(none)")
        message += "\n--- structuredContent.server ---\n" + json.dumps(res.server, ensure_ascii=False)[:2000]
    raise AssertionError(message)


def check(cond: Any, message: str, res: "Result | None" = None) -> None:
    if not cond:
        fail(message, res)


@dataclass
class Result:
    tool: str
    args: dict
    raw: dict  # the CallToolResult as on the wire (camelCase keys)

    @property
    def text(self) -> str | None:
        content = self.raw.get("content") or []
        if content and content[0].get("type") == "text":
            return content[0].get("text")
        return None

    @property
    def sc(self) -> dict:
        return self.raw.get("structuredContent") or {}

    @property
    def ok(self) -> bool:
        return self.sc.get("ok") is True

    @property
    def server(self) -> dict:
        return self.sc.get("server") or {}

    @property
    def page(self) -> dict:
        return self.sc.get("page_content") or {}

    @property
    def code(self) -> str | None:
        return (self.server.get("error") or {}).get("code")

    @property
    def lines(self) -> list[str]:
        return (self.text or "").splitlines()

    def header(self) -> str:
        """The observation's header line (`# title · url · scroll`), wherever
        it is in the text (after `→` in an act result)."""
        for line in self.lines:
            if line.startswith("# "):
                return line
        return ""


def ref_of(text: str, role: str, name: str) -> int:
    """The ref of the first `[n] role "name"` in an observation."""
    m = re.search(rf'\[(\d+)\] {re.escape(role)} "{re.escape(name)}"', text)
    check(m, f'no [n] {role} "{name}" in:\n{text}')
    return int(m.group(1))


def all_refs(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\[(\d+)\]", text)]


def refs_of(text: str, role: str, name: str) -> list[int]:
    return [int(x) for x in re.findall(rf'\[(\d+)\] {re.escape(role)} "{re.escape(name)}"', text)]


def line_starting(res: Result, prefix: str) -> str:
    for line in res.lines:
        if line.startswith(prefix):
            return line
    fail(f"no line starting with {prefix!r}", res)
    return ""


def table_rows(text: str) -> list[list[str]]:
    """Lines written as table rows (`a | b | c`, with or without outer
    pipes), as lists of cells."""
    rows = []
    for line in text.splitlines():
        if "|" not in line:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(cells)
    return rows


@dataclass
class Options:
    whittle: str
    transports: list[str]
    only: list[str]
    verbose: bool
    tools_json: str | None
    mcp_args: list[str] = field(default_factory=list)
    serve_args: list[str] = field(default_factory=list)
    search_url: bool = False
    features: str = ""


class Ctx:
    """One scenario's MCP session, the shop, and a log of its calls."""

    def __init__(self, session: ClientSession, transport: str, shop: Shop, opts: Options):
        self.session = session
        self.transport = transport
        self.shop = shop
        self.opts = opts
        self.tools: list[dict] = []
        self.schemas: dict[str, dict] = {}
        self.log: list[str] = []
        # Checks of every result that need not stop the scenario (the
        # outputSchema fit): reported, once each, when the scenario ends.
        self.soft: list[str] = []

    async def load_tools(self) -> None:
        listed = await self.session.list_tools()
        self.tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
        self.schemas = {t["name"]: t.get("outputSchema") for t in self.tools}

    def url(self, path: str = "/") -> str:
        return self.shop.url(path)

    async def call(self, tool: str, **args: Any) -> Result:
        return await self.call_raw(tool, args)

    async def call_raw(self, tool: str, args: dict) -> Result:
        """Calls a tool and checks what every result must be: a result (not
        a protocol error) with text content and an envelope that fits the
        declared outputSchema and keeps page text out of `server`."""
        t0 = time.monotonic()
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                result = await self.session.call_tool(tool, args)
        except TimeoutError:
            self._log(tool, args, f"(no answer in {CALL_TIMEOUT:.0f} s)")
            raise AssertionError(f"{tool} {json.dumps(args)}: no answer within {CALL_TIMEOUT:.0f} s") from None
        except Exception as e:  # an McpError/MCPError, or the SDK's own output-schema check
            self._log(tool, args, f"(protocol-level error {e!r})")
            raise AssertionError(
                f"{tool} {json.dumps(args)}: a protocol-level error instead of a tool result: {e!r}"
            ) from None
        raw = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        res = Result(tool, args, raw)
        self._log(tool, args, f"{time.monotonic() - t0:.2f}s ok={res.sc.get('ok')} code={res.code}\n"
                  + "\n".join("    | " + l for l in (res.text or "").splitlines()[:60]))
        self._check_envelope(res)
        return res

    def _log(self, tool: str, args: dict, what: str) -> None:
        entry = f"  {tool} {json.dumps(args, ensure_ascii=False)} → {what}"
        self.log.append(entry)
        if self.opts.verbose:
            print(entry, flush=True)

    def _check_envelope(self, res: Result) -> None:
        where = f"{res.tool} {json.dumps(res.args)}"
        check(isinstance(res.text, str) and res.text.strip(), f"{where}: content[0] is not non-empty text: {res.raw.get('content')}")
        sc = res.raw.get("structuredContent")
        check(isinstance(sc, dict), f"{where}: no structuredContent object: {str(sc)[:300]}")
        check(isinstance(sc.get("ok"), bool), f"{where}: structuredContent.ok is not a boolean", res)
        check(isinstance(sc.get("server"), dict), f"{where}: structuredContent.server is not an object", res)
        check(res.server.get("tool") == res.tool, f"{where}: server.tool is {res.server.get('tool')!r}", res)
        for key in ("operation_id", "tab_id"):
            check(key in res.server, f"{where}: server.{key} missing", res)
        if not res.ok:
            err = res.server.get("error")
            check(isinstance(err, dict) and isinstance(err.get("code"), str) and isinstance(err.get("message"), str),
                  f"{where}: ok is false but server.error is not {{code, message}}", res)
        schema = self.schemas.get(res.tool)
        if jsonschema is not None and schema:
            errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(sc), key=lambda e: list(e.path))
            if errors:
                what = "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
                message = f"structuredContent of {res.tool} (ok={sc.get('ok')}) does not fit its declared outputSchema: {what}"
                if message not in self.soft:
                    self.soft.append(message)
                    self.log.append(f"  {where}: {message}")
        # Nothing page-written under `server`.
        server_text = json.dumps(res.server, ensure_ascii=False)
        written = list(PAGE_WRITTEN)
        if isinstance(res.page.get("title"), str):
            written.append(res.page["title"])
        for el in res.page.get("elements") or []:
            if isinstance(el, dict) and isinstance(el.get("name"), str):
                written.append(el["name"])
        for w in written:
            if len(w) >= 6:
                check(w not in server_text, f"{where}: page-written text {w!r} appears under server", res)
        check(HIDDEN_PROMO not in json.dumps(sc, ensure_ascii=False) and HIDDEN_PROMO not in res.text,
              f"{where}: text hidden by the stylesheet was sent", res)

    # Shorthands that also require success.

    async def ok(self, tool: str, **args: Any) -> Result:
        res = await self.call(tool, **args)
        check(res.ok, f"{tool} {json.dumps(args)} failed: {res.code}", res)
        return res

    async def nav(self, path_or_url: str) -> Result:
        url = path_or_url if "://" in path_or_url else self.url(path_or_url)
        return await self.ok("navigate", url=url)

    async def act(self, **args: Any) -> Result:
        return await self.ok("act", **args)

    async def error(self, code: str, tool: str, args: dict) -> Result:
        """Calls a tool that must fail with `code`, then checks that the
        session still observes."""
        res = await self.call_raw(tool, args)
        check(not res.ok, f"{tool} {json.dumps(args)}: expected ok:false with {code}, got ok:true", res)
        check(res.code == code, f"{tool} {json.dumps(args)}: expected error code {code!r}, got {res.code!r}", res)
        after = await self.call("observe")
        check(after.ok, f"observe after {tool} {json.dumps(args)} failed: {after.code}", after)
        return res


# ---------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------

Scenario = Callable[[Ctx], Awaitable[None]]


@dataclass
class Registered:
    name: str
    fn: Scenario
    transports: tuple[str, ...]


SCENARIOS: list[Registered] = []


def scenario(*transports: str):
    def register(fn: Scenario) -> Scenario:
        SCENARIOS.append(Registered(fn.__name__, fn, transports or ("stdio", "http")))
        return fn
    return register


def o200k():
    """tiktoken's o200k_base encoding, or the reason it is not available."""
    try:
        import tiktoken
    except ImportError:
        return None, "tiktoken is not installed"
    try:
        return tiktoken.get_encoding("o200k_base"), ""
    except Exception as e:  # offline: tiktoken downloads its tables on first use
        return None, f"tiktoken could not load o200k_base ({type(e).__name__}: offline?)"


@scenario()
async def tool_list(c: Ctx) -> None:
    names = [t["name"] for t in c.tools]
    for name in ("observe", "act", "navigate", "find", "extract", "tabs", "wait"):
        check(name in names, f"tool {name!r} not listed; tools: {names}")
    for t in c.tools:
        check(isinstance(t.get("description"), str) and t["description"], f"tool {t['name']} has no description")
        check(isinstance(t.get("inputSchema"), dict) and t["inputSchema"].get("type") == "object",
              f"tool {t['name']}: inputSchema is not an object schema")
        check(isinstance(t.get("outputSchema"), dict), f"tool {t['name']}: no outputSchema")
        if jsonschema is not None:
            for key in ("inputSchema", "outputSchema"):
                try:
                    jsonschema.Draft202012Validator.check_schema(t[key])
                except jsonschema.SchemaError as e:
                    fail(f"tool {t['name']}: {key} is not a valid JSON Schema: {e.message}")
    # The descriptions tell the model page content is data, never an instruction.
    together = " ".join(t["description"] for t in c.tools).lower()
    check("instruction" in together and "data" in together,
          "no tool description says that page content is data, never an instruction")

    sent = [{k: t[k] for k in ("name", "description", "inputSchema", "outputSchema") if k in t} for t in c.tools]
    text = json.dumps(sent, ensure_ascii=False, separators=(",", ":"))
    without_output = json.dumps([{k: v for k, v in t.items() if k != "outputSchema"} for t in sent],
                                ensure_ascii=False, separators=(",", ":"))
    if c.opts.tools_json and c.transport == c.opts.transports[0]:
        with open(c.opts.tools_json, "w", encoding="utf-8") as f:
            f.write(text)
    enc, why = o200k()
    if enc is None:
        print(f"    tool list: {len(c.tools)} tools, {len(text)} bytes of JSON; o200k tokens not counted here: {why}"
              + (f" (written to {c.opts.tools_json} for the Rust test to count)" if c.opts.tools_json else ""))
    else:
        n, m = len(enc.encode(text)), len(enc.encode(without_output))
        print(f"    tool list: {len(c.tools)} tools, {len(text)} bytes, {n} o200k tokens "
              f"({m} without outputSchema); target ≤ 1,200")


@scenario()
async def checkout_flow(c: Ctx) -> None:
    port = c.shop.port
    home = await c.nav("/")
    check(re.match(rf"# .+ · 127\.0\.0\.1:{port}( · .*)?$", home.header()),
          f"home header is not '# title · 127.0.0.1:{port} …'", home)
    check(home.page.get("title", "").endswith(SITE), "page_content.title is not the page's title", home)

    r = await c.nav("/checkout")
    check(re.match(rf"# Shipping – {SITE} · 127\.0\.0\.1:{port}/checkout( · .*)?$", r.header()),
          "checkout header", r)
    # A new element gets a new number, never a reused one.
    check(min(all_refs(r.text)) > max(all_refs(home.text)), "the checkout page reuses ref numbers of the home page", r)
    email = ref_of(r.text, "textbox", "Email")
    country = ref_of(r.text, "combobox", "Country")
    gift = ref_of(r.text, "checkbox", "This is a gift")
    express = ref_of(r.text, "radio", "Express")
    check(f'[{country}] combobox "Country" = "United States" (United States, Canada, Mexico' in r.text,
          "country combobox line with its value and options", r)
    els = {e.get("ref"): e for e in r.page.get("elements") or []}
    check(els.get(email, {}).get("role") == "textbox" and els[email].get("name") == "Email",
          f"page_content.elements has no textbox Email with ref {email}", r)

    a = await c.act(do="type", ref=email, text="jane@example.com")
    line_starting(a, f'✓ type [{email}] textbox "Email"')
    check(re.search(r"^Δ \+\d+ −\d+ ~\d+$", a.text, re.M), "no `Δ +a −r ~c` line after type", a)
    check(re.search(rf'^~ \[{email}\] textbox "Email" = "jane@example\.com"', a.text, re.M),
          f'no `~ [{email}] textbox "Email" = "jane@example.com"` hunk', a)
    check(not any(l.startswith("# ") for l in a.lines), "type sent a full view instead of a diff", a)

    a = await c.act(do="select", ref=country, values=["Canada"])
    sel = line_starting(a, f'✓ select [{country}] combobox "Country"')
    check("Canada" in sel, "the select line does not name Canada", a)
    check(re.search(rf'^~ \[{country}\] combobox "Country" = "Canada"', a.text, re.M), "no ~ hunk for Country", a)

    a = await c.act(do="check", ref=gift)
    line_starting(a, f'✓ check [{gift}] checkbox "This is a gift"')
    check(re.search(rf'^~ .*\[{gift}\] checkbox "This is a gift" checked', a.text, re.M), "no ~ hunk: gift checked", a)

    a = await c.act(do="click", ref=express)
    line_starting(a, f'✓ click [{express}] radio "Express"')
    check(re.search(rf'\[{express}\] radio "Express" checked', a.text), "Express not shown checked", a)
    check(not re.search(r'radio "Standard" checked', a.text), "Standard still shown checked", a)

    a = await c.act(do="click", text="Continue to review")
    check(re.search(r'^✓ click \[\d+\] button "Continue to review"', a.text, re.M), "no ✓ click line", a)
    check(re.search(rf"^→ 127\.0\.0\.1:{port}/checkout → 127\.0\.0\.1:{port}/review\b", a.text, re.M),
          "no `→ …/checkout → …/review` line", a)
    check(a.header().startswith(f"# Review – {SITE} · 127.0.0.1:{port}/review"),
          "the review page's full observation does not follow the → line", a)
    for value in ("jane@example.com", "Canada", "Express"):
        check(value in a.text, f"the review page does not show {value!r}", a)
    check("Yes" in a.text, "the review page does not show the gift as Yes", a)
    check(re.search(r'\[\d+\] button "Place order"', a.text), "no Place order button", a)

    o = await c.ok("observe")
    check(o.header().startswith(f"# Review – {SITE}"), "observe after the click is not the review page", o)

    b = await c.ok("navigate", url="back")
    check("/checkout" in b.header(), "navigate back did not return to the checkout", b)


@scenario()
async def history_and_compact_urls(c: Ctx) -> None:
    home = await c.nav("/")
    # The header's compact URL is what a model copies: it must navigate.
    compact = home.header().split(" · ")[1]
    r = await c.ok("navigate", url=compact + "/product/2")
    check(r.header().startswith(f"# {PRODUCT_NAMES[1]} – {SITE} · {compact}/product/2"),
          f"navigate to the compact URL {compact}/product/2", r)
    b = await c.ok("navigate", url="back")
    check(b.header().startswith(f"# Home – {SITE} · {compact}"), "back from the product page is not home", b)
    f = await c.ok("navigate", url="forward")
    check("/product/2" in f.header(), "forward did not return to the product page", f)
    r = await c.ok("navigate", url="reload")
    check("/product/2" in r.header(), "reload left the product page", r)


@scenario()
async def folding_and_expand(c: Ctx) -> None:
    r = await c.nav("/")
    m = FOLD_RE.search(r.text)
    check(m, "the 30 products are not folded into `… +N more items (observe ref R)`", r)
    more, container = int(m.group(1)), int(m.group(2))
    shown = [n for n in PRODUCT_NAMES if f'"{n}"' in r.text]
    check(shown and more == len(PRODUCT_NAMES) - len(shown),
          f"{len(shown)} products shown and +{more} folded do not make {len(PRODUCT_NAMES)}", r)
    check(re.search(rf'\[{container}\] list "Products"', r.text), f"ref {container} is not the product list", r)

    e = await c.ok("observe", ref=container)
    missing = [n for n in PRODUCT_NAMES if f'"{n}"' not in e.text]
    check(not missing, f"observe ref:{container} does not show {missing}", e)
    p = PRODUCTS[-1]
    check(price(p["cents"]) in e.text, "the expanded list has no prices", e)


@scenario()
async def observe_modes(c: Ctx) -> None:
    await c.nav("/product/3")
    a = await c.ok("observe", mode="actions")
    check(re.search(r'\[\d+\] button "Add to cart"', a.text), "actions mode lost the Add to cart button", a)
    check("two-year guarantee" not in a.text, "actions mode still has the description prose", a)
    rd = await c.ok("observe", mode="read")
    check("two-year guarantee" in rd.text, "read mode lacks the main content", rd)
    await c.nav("/")
    small = await c.ok("observe", budget=300)
    full = await c.ok("observe")
    check(len(small.text) < len(full.text), "a budget of 300 tokens did not shorten the home page", small)


@scenario()
async def steps_stop_at_first_failure(c: Ctx) -> None:
    r = await c.nav("/checkout")
    email = ref_of(r.text, "textbox", "Email")
    gift = ref_of(r.text, "checkbox", "This is a gift")
    a = await c.call("act", steps=[
        {"do": "type", "ref": email, "text": "batch@example.com"},
        {"do": "click", "ref": BAD_REF},
        {"do": "check", "ref": gift},
    ])
    lines = a.lines
    first = next((i for i, l in enumerate(lines) if l.startswith(f'✓ type [{email}]')), None)
    failed = next((i for i, l in enumerate(lines) if l.startswith("✗")), None)
    check(first is not None, "no ✓ line for the first step", a)
    check(failed is not None and failed > first, "no ✗ line for the step with an unknown ref", a)
    check(str(BAD_REF) in lines[failed] or "click" in lines[failed], "the ✗ line does not name the failed step", a)
    later = lines[failed + 1:]
    check(any("check" in l for l in later) and not any(l.startswith("✓") for l in later),
          "the step after the failure is not reported as not run", a)
    o = await c.ok("observe")
    check(re.search(rf'\[{email}\] textbox "Email" = "batch@example\.com"', o.text), "step 1 did not take effect", o)
    check(re.search(rf'\[{gift}\] checkbox "This is a gift"(?! checked)', o.text), "step 3 ran after the failure", o)


@scenario()
async def find_counts_folded_buttons(c: Ctx) -> None:
    r = await c.nav("/")
    check(FOLD_RE.search(r.text), "home page not folded", r)
    f = await c.ok("find", q="role:button add", limit=50)
    refs = sorted(set(refs_of(f.text, "button", "Add to cart")))
    check(len(refs) == 30, f"find role:button add listed {len(refs)} Add to cart buttons, not 30", f)
    folded = [x for x in refs if f"[{x}]" not in r.text]
    check(folded, "find listed no button that the observation had folded", f)
    # A folded button found by find is usable: the last product goes into the cart.
    a = await c.act(do="click", ref=refs[-1])
    check(re.search(r"^→ .* → 127\.0\.0\.1:\d+/cart\b", a.text, re.M), "Add to cart did not go to the cart", a)
    check(PRODUCT_NAMES[-1] in a.text, f"the cart does not hold {PRODUCT_NAMES[-1]}", a)


@scenario()
async def extract_list_of_products(c: Ctx) -> None:
    r = await c.nav("/")
    m = FOLD_RE.search(r.text)
    check(m, "home page not folded", r)
    container = int(m.group(2))
    found: set[str] = set()
    offset = None
    for _ in range(6):
        args: dict[str, Any] = {"kind": "list", "ref": container}
        if offset is not None:
            args["offset"] = offset
        x = await c.ok("extract", **args)
        for p in PRODUCTS:
            row = next((l for l in x.lines if p["name"] in l), None)
            if row is not None:
                check(price(p["cents"]) in row, f"the row of {p['name']} has no price {price(p['cents'])}", x)
                found.add(p["name"])
        if len(found) == len(PRODUCTS):
            break
        hint = re.search(r"offset[: =]*(\d+)", x.text)
        check(hint, f"extract list gave {len(found)} of 30 rows and no offset to page on", x)
        if offset is not None and int(hint.group(1)) <= offset:
            fail(f"extract list paging does not advance (offset {offset})", x)
        offset = int(hint.group(1))
    check(len(found) == len(PRODUCTS), f"extract list: {len(found)} of 30 products after paging")


@scenario()
async def research_digests_with_progress(c: Ctx) -> None:
    urls = [c.url("/product/1"), c.url("/product/2"), c.url("/image.png"), c.url("/product/1")]
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    with anyio.fail_after(CALL_TIMEOUT):
        result = await c.session.call_tool("research", {"urls": urls}, progress_callback=progress)
    res = Result("research", {"urls": urls}, result.model_dump(mode="json", by_alias=True, exclude_none=True))
    c._check_envelope(res)
    check(res.ok, "research failed", res)
    heads = [l for l in res.lines if l.startswith("## [")]
    check(len(heads) == 4, f"research gave {len(heads)} page lines, not 4", res)
    check(heads[0].startswith(f"## [1] {PRODUCTS[0]['name']}"), "page 1 is not the first product", res)
    check(heads[1].startswith(f"## [2] {PRODUCTS[1]['name']}"), "page 2 is not the second product", res)
    check("✗" in heads[2] and "nav_failed" in heads[2], "the image is not a failed page", res)
    check("duplicate" in heads[3], "the repeated URL is not reported as a duplicate", res)
    check(HIDDEN_PROMO not in res.text, "hidden text reached the digest", res)
    # One progress notification per page, counting up to the total.
    check(len(seen) == 4, f"{len(seen)} progress notifications, not 4: {seen}")
    check(sorted(d for d, _, _ in seen) == [1, 2, 3, 4] and all(t == 4 for _, t, _ in seen),
          f"progress does not count 1..4 of 4: {seen}")
    # No urls: the result links of the active page (the products on home).
    await c.nav("/")
    r = await c.ok("research", limit=3, budget=900)
    heads = [l for l in r.lines if l.startswith("## [")]
    check([h.split(" · ")[0] for h in heads] == [f"## [{i + 1}] {PRODUCTS[i]['name']} – {SITE}" for i in range(3)],
          f"research without urls did not open the first three products: {heads}", r)


@scenario()
async def extract_table_of_cart(c: Ctx) -> None:
    r = await c.nav("/")
    first_add = refs_of(r.text, "button", "Add to cart")[0]
    a = await c.act(do="click", ref=first_add)
    check("/cart" in a.header(), "Add to cart did not land on the cart", a)
    await c.nav("/product/4")
    a = await c.act(do="click", text="Add to cart")
    check("/cart" in a.header(), "Add to cart (by text) did not land on the cart", a)
    x = await c.ok("extract", kind="table")
    rows = table_rows(x.text)
    check(["Product", "Qty", "Price", "Total"] in rows, "no header row Product | Qty | Price | Total", x)
    for p in (PRODUCTS[0], PRODUCTS[3]):
        want = [p["name"], "1", price(p["cents"]), price(p["cents"])]
        check(want in rows, f"no row {' | '.join(want)}", x)


def tab_index(listing: str, needle: str) -> int:
    for line in listing.splitlines():
        if needle in line:
            m = re.match(r"^\W*(\d+)", line)
            check(m, f"tab line without an index: {line!r}")
            return int(m.group(1))
    fail(f"no tab at {needle!r} in the tab list:\n{listing}")
    return -1


@scenario()
async def tabs_open_list_switch_close(c: Ctx) -> None:
    await c.nav("/checkout")
    o = await c.ok("tabs", op="open", url=c.url("/product/3"))
    listing = (await c.ok("tabs", op="list")).text
    product_tab = tab_index(listing, "/product/3")
    checkout_tab = tab_index(listing, "/checkout")
    check(product_tab != checkout_tab, "both tabs have the same index", o)

    await c.ok("tabs", op="switch", index=product_tab)
    p = await c.ok("observe")
    check("/product/3" in p.header(), "after switching, observe is not the product tab", p)
    await c.ok("tabs", op="switch", index=checkout_tab)
    q = await c.ok("observe")
    check("/checkout" in q.header(), "after switching back, observe is not the checkout tab", q)
    check(p.server.get("tab_id") != q.server.get("tab_id"), "two tabs with one tab_id", q)

    await c.ok("tabs", op="close", index=product_tab)
    after = (await c.ok("tabs", op="list")).text
    check("/product/3" not in after and "/checkout" in after, f"after close the list is:\n{after}")
    still = await c.ok("observe")
    check("/checkout" in still.header(), "the remaining tab is not the checkout", still)


@scenario()
async def refs_of_another_tab_refused(c: Ctx) -> None:
    r = await c.nav("/checkout")
    email = ref_of(r.text, "textbox", "Email")
    await c.ok("tabs", op="open", url=c.url("/product/3"))
    listing = (await c.ok("tabs", op="list")).text
    await c.ok("tabs", op="switch", index=tab_index(listing, "/product/3"))
    await c.error("unknown_ref", "act", {"do": "type", "ref": email, "text": "x@example.com"})
    await c.ok("tabs", op="switch", index=tab_index(listing, "/checkout"))
    a = await c.act(do="type", ref=email, text="back@example.com")
    line_starting(a, f'✓ type [{email}] textbox "Email"')


@scenario()
async def snapshot_id_staleness(c: Ctx) -> None:
    r = await c.nav("/checkout")
    snap = r.server.get("snapshot_id")
    check(isinstance(snap, str) and snap, "the observation has no snapshot_id", r)
    email = ref_of(r.text, "textbox", "Email")
    gift = ref_of(r.text, "checkbox", "This is a gift")
    await c.act(do="check", ref=gift, snapshot_id=snap)
    # The page changed, but the ref still names the same element with the same role.
    await c.act(do="type", ref=email, text="still@example.com", snapshot_id=snap)
    await c.nav("/")
    await c.error("snapshot_stale", "act", {"do": "type", "ref": email, "text": "x", "snapshot_id": snap})
    await c.error("unknown_ref", "act", {"do": "type", "ref": email, "text": "x"})


@scenario()
async def wait_for_text_and_time(c: Ctx) -> None:
    await c.nav("/checkout")
    t0 = time.monotonic()
    await c.ok("wait", text="Continue to review")
    check(time.monotonic() - t0 < 10, "wait for text already on the page took more than 10 s")
    await c.ok("wait", gone="Text that is nowhere on the page")
    t0 = time.monotonic()
    await c.ok("wait", ms=400)
    took = time.monotonic() - t0
    check(took >= 0.35, f"wait ms:400 returned after {took:.3f} s")
    await c.ok("observe")


@scenario()
async def navigate_search_words(c: Ctx) -> None:
    if not c.opts.search_url:
        raise Skip("the server has no --search-url option to point search words at the shop")
    r = await c.ok("navigate", url="copper kettle")
    check("/search" in r.header(), "search words did not go to the search URL", r)
    check("Copper Kettle" in r.text, "the search results lack Copper Kettle", r)


@scenario()
async def schema_invalid_arguments(c: Ctx) -> None:
    await c.nav("/checkout")
    for tool, args in [
        ("act", {"do": 5}),
        ("act", {"do": "dance", "ref": 1}),
        ("act", {"do": "click", "ref": "seven"}),
        ("observe", {"mode": "sideways"}),
        ("observe", {"budget": "lots"}),
        ("navigate", {}),
        ("find", {}),
        ("extract", {"kind": "pie"}),
        ("tabs", {"op": "explode"}),
        ("wait", {"ms": "soon"}),
    ]:
        await c.error("invalid_args", tool, args)
    o = await c.ok("observe")
    check("/checkout" in o.header(), "the page changed after invalid arguments", o)


@scenario()
async def unknown_refs(c: Ctx) -> None:
    await c.nav("/checkout")
    await c.error("unknown_ref", "act", {"do": "click", "ref": BAD_REF})
    await c.error("unknown_ref", "observe", {"ref": BAD_REF})
    await c.error("unknown_ref", "extract", {"kind": "text", "ref": BAD_REF})


@scenario()
async def bad_urls(c: Ctx) -> None:
    await c.nav("/checkout")
    for url in ("javascript:alert(1)", "ftp://127.0.0.1/pub/file.txt"):
        await c.error("invalid_url", "navigate", {"url": url})
    o = await c.ok("observe")
    check("/checkout" in o.header(), "a refused URL changed the page", o)


@scenario()
async def unreachable_host(c: Ctx) -> None:
    await c.nav("/checkout")
    with socket.socket() as s:  # a loopback port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    await c.error("nav_failed", "navigate", {"url": f"http://127.0.0.1:{port}/"})


@scenario()
async def http_error_pages(c: Ctx) -> None:
    for path, status, heading in (("/no-such-page", 404, "Lost in the aisles"), ("/500", 500, "Something broke")):
        r = await c.nav(path)
        check(r.header().startswith(f"# {heading} – {SITE}"), f"the {status} page is not observed as a page", r)
        notices = json.dumps(r.server.get("notices"), ensure_ascii=False)
        check(str(status) in notices, f"no notice of the HTTP status {status} in server.notices", r)
        await c.ok("observe")


@scenario()
async def redirect_loop(c: Ctx) -> None:
    await c.nav("/checkout")
    await c.error("nav_failed", "navigate", {"url": c.url("/redirect-loop")})


@scenario()
async def body_too_large(c: Ctx) -> None:
    await c.nav("/checkout")
    await c.error("too_large", "navigate", {"url": c.url("/big")})


@scenario()
async def body_never_ends(c: Ctx) -> None:
    await c.nav("/checkout")
    t0 = time.monotonic()
    await c.error("nav_timeout", "navigate", {"url": c.url("/slow")})
    print(f"    the never-ending body gave nav_timeout after {time.monotonic() - t0:.1f} s")


@scenario()
async def not_html(c: Ctx) -> None:
    await c.nav("/checkout")
    await c.error("nav_failed", "navigate", {"url": c.url("/image.png")})
    o = await c.ok("observe")
    check("/checkout" in o.header(), "a refused page replaced the checkout", o)


# ---------------------------------------------------------------------------
# Transports
# ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def stdio_session(opts: Options, errlog):
    params = StdioServerParameters(command=opts.whittle, args=["mcp", *opts.mcp_args],
                                   env={**os.environ, "RUST_BACKTRACE": "1"})
    async with stdio_client(params, errlog=errlog) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            yield session


@contextlib.asynccontextmanager
async def http_session(url: str, headers: dict[str, str] | None = None, logging_callback=None):
    async with contextlib.AsyncExitStack() as stack:
        if _new_http_client is not None and create_mcp_http_client is not None:
            client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            streams = await stack.enter_async_context(_new_http_client(url, http_client=client))
        elif _old_http_client is not None:
            streams = await stack.enter_async_context(_old_http_client(url, headers=headers))
        else:
            raise Skip("this mcp SDK has no Streamable HTTP client")
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], logging_callback=logging_callback))
        await session.initialize()
        yield session


class Serve:
    """`whittle serve --listen 127.0.0.1:0`, its URL read from its stderr."""

    LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+/mcp)")

    def __init__(self, opts: Options, env: dict[str, str] | None = None):
        self.output: list[str] = []
        self.url: str | None = None
        self._ready = threading.Event()
        self.proc = subprocess.Popen(
            [opts.whittle, "serve", "--listen", "127.0.0.1:0", *opts.serve_args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env={**os.environ, "RUST_BACKTRACE": "1", **(env or {})}, text=True, errors="replace",
        )
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(30) or self.url is None:
            self.stop()
            raise AssertionError("whittle serve printed no `listening on http://127.0.0.1:PORT/mcp` line in 30 s:\n"
                                 + "".join(self.output[-30:]))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            m = self.LISTENING.search(line)
            if m and self.url is None:
                self.url = m.group(1)
                self._ready.set()
        self._ready.set()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def raw_post(url: str, token: str | None) -> int:
    """POSTs an initialize request by hand; gives the HTTP status."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "whittle-e2e", "version": "0"}}}).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **({"Authorization": f"Bearer {token}"} if token is not None else {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


async def http_token(opts: Options, shop: Shop) -> None:
    """`WHITTLE_TOKEN` makes `serve` require `Authorization: Bearer <token>`."""
    token = "e2e-" + os.urandom(8).hex()
    serve = Serve(opts, env={"WHITTLE_TOKEN": token})
    try:
        url = serve.url
        assert url is not None
        for given, what in ((None, "no token"), ("wrong-" + token, "a wrong token")):
            status = await anyio.to_thread.run_sync(raw_post, url, given)
            check(status == 401, f"serve with WHITTLE_TOKEN answered HTTP {status} to a request with {what}, not 401")
        status = await anyio.to_thread.run_sync(raw_post, url, token)
        check(status == 200, f"serve with WHITTLE_TOKEN answered HTTP {status} to the right token")
        async with http_session(url, {"Authorization": f"Bearer {token}"}) as session:
            ctx = Ctx(session, "http", shop, opts)
            await ctx.load_tools()
            r = await ctx.nav("/checkout")
            check("/checkout" in r.header(), "navigate with the token", r)
    finally:
        serve.stop()


async def privacy(opts: Options, shop: Shop) -> None:
    """Secrets stay on the machine: a page's password value and card number,
    and a secret from the profile's secrets file typed by the model, appear
    in no result, in none of the server's output, in its log file (every
    crate asked for its trace through RUST_LOG) and in none of the log
    notifications the client asked for; without --allow-private the
    loopback shop is refused."""
    from shop import CANARY_CARD, CANARY_PASSWORD
    secret = "CANARY-e2e-secret-77aa"
    folder = tempfile.mkdtemp(prefix="whittle-e2e-profile-")
    with open(os.path.join(folder, "secrets.toml"), "w", encoding="utf-8") as f:
        f.write(f'PIN = "{secret}"\n')
    with open(os.path.join(folder, "profile.toml"), "w", encoding="utf-8") as f:
        f.write('secrets = "secrets.toml"\n')
    log_file = os.path.join(folder, "whittle.log")
    with_profile = dataclasses.replace(opts, serve_args=[*opts.serve_args, "--profile", os.path.join(folder, "profile.toml"),
                                                         "--log-file", log_file])
    serve = Serve(with_profile, env={"RUST_LOG": "trace"})
    seen: list[str] = []
    notes: list[str] = []

    async def on_log(params) -> None:
        notes.append(json.dumps(params.model_dump(mode="json"), ensure_ascii=False))

    try:
        assert serve.url is not None
        async with http_session(serve.url, logging_callback=on_log) as session:
            await session.set_logging_level("debug")
            ctx = Ctx(session, "http", shop, opts)
            await ctx.load_tools()
            r = await ctx.nav("/account")
            seen.append(json.dumps(r.raw, ensure_ascii=False))
            check("⚿password" in (r.text or ""), "the password field is marked ⚿password", r)
            check("‹card:1›" in (r.text or ""), "the card number is a token", r)
            note = ref_of(r.text, "textbox", "Note")
            for tool, args in (("act", {"do": "type", "ref": note, "text": "secret:PIN"}), ("observe", {}),
                               ("extract", {"kind": "text"}), ("find", {"q": "card"})):
                res = await ctx.call(tool, **args)
                seen.append(json.dumps(res.raw, ensure_ascii=False))
            check("‹secret:PIN›" in seen[1], "the act result names the typed secret", res)
            bad = await ctx.call("act", do="type", ref=note, text="secret:NOPE")
            check(bad.code == "unknown_secret" and "NOPE" in (bad.text or ""), "an unknown secret is a clear error", bad)
    finally:
        serve.stop()
    with open(log_file, encoding="utf-8", errors="replace") as f:
        log = f.read()
    check(re.search(r"tool call.*tool=\"?act\"?.*outcome=\"?ok", log), f"the log file has no line for the act call:\n{log[-2000:]}")
    check(re.search(r"outcome=\"?unknown_secret", log), "the log file has no line for the failed call")
    check(any('"tool": "act"' in n and '"outcome": "ok"' in n for n in notes),
          f"no notifications/message for the act call after logging/setLevel: {notes[:3]}")
    check("?" not in "".join(re.findall(r"origin=\S+", log)), "a logged origin carries a query")
    everything = "\n".join(seen) + "\n".join(serve.output)
    for canary in (CANARY_PASSWORD, CANARY_CARD, CANARY_CARD.replace(" ", ""), secret):
        check(canary not in everything, f"{canary!r} reached a result or the server's output")
        check(canary not in log, f"{canary!r} reached the log file")
        check(canary not in "\n".join(notes), f"{canary!r} reached a log notification")
    # The default refuses loopback: nothing of the shop.
    strict = dataclasses.replace(opts, serve_args=[a for a in opts.serve_args if a != "--allow-private"])
    serve = Serve(strict)
    try:
        assert serve.url is not None
        async with http_session(serve.url) as session:
            ctx = Ctx(session, "http", shop, opts)
            await ctx.load_tools()
            r = await ctx.call("navigate", url=shop.url("/account"))
            check(r.code == "origin_not_allowed", "without --allow-private a loopback page is refused", r)
            check("Your account" not in json.dumps(r.raw, ensure_ascii=False), "nothing of the refused page", r)
    finally:
        serve.stop()


async def http_sessions_isolated(opts: Options, shop: Shop, url: str) -> None:
    """Two HTTP sessions at once: each has its own tab and refs."""
    async with http_session(url) as s1, http_session(url) as s2:
        a, b = Ctx(s1, "http", shop, opts), Ctx(s2, "http", shop, opts)
        await a.load_tools()
        await b.load_tools()
        await a.nav("/checkout")
        await b.nav("/product/3")
        oa, ob = await a.ok("observe"), await b.ok("observe")
        check("/checkout" in oa.header(), "session A lost its page to session B", oa)
        check("/product/3" in ob.header(), "session B shows session A's page", ob)


# ---------------------------------------------------------------------------
# Runner
# ---------------------------------------------------------------------------


def leaf(e: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        inner = [x for x in e.exceptions if not isinstance(x, anyio.get_cancelled_exc_class())]
        e = (inner or list(e.exceptions))[0]
    return e


@dataclass
class Outcome:
    name: str
    status: str  # PASS FAIL SKIP
    seconds: float
    detail: str = ""


class Runner:
    def __init__(self, opts: Options):
        self.opts = opts
        self.outcomes: list[Outcome] = []

    def wanted(self, name: str) -> bool:
        return not self.opts.only or any(o in name for o in self.opts.only)

    async def run(self, name: str, body: Callable[[], Awaitable[None]], logs: Callable[[], str]) -> None:
        if not self.wanted(name):
            return
        t0 = time.monotonic()
        print(f"RUN  {name}", flush=True)
        try:
            with anyio.fail_after(SCENARIO_TIMEOUT):
                await body()
            out = Outcome(name, "PASS", time.monotonic() - t0)
        except BaseException as e:  # noqa: BLE001 (reported, never swallowed silently)
            if isinstance(e, KeyboardInterrupt):
                raise
            e = leaf(e)
            seconds = time.monotonic() - t0
            if isinstance(e, Skip):
                out = Outcome(name, "SKIP", seconds, str(e))
            else:
                if isinstance(e, AssertionError):
                    detail = str(e)
                elif isinstance(e, TimeoutError):
                    detail = f"the scenario did not finish in {SCENARIO_TIMEOUT:.0f} s"
                else:
                    detail = "".join(traceback.format_exception(e)).rstrip()
                extra = logs()
                out = Outcome(name, "FAIL", seconds, detail + (("\n--- log ---\n" + extra) if extra else ""))
        self.outcomes.append(out)
        print(f"{out.status} {name} ({out.seconds:.1f}s)" + (f": {out.detail}" if out.status == "SKIP" else ""),
              flush=True)
        if out.status == "FAIL":
            print(indent(out.detail), flush=True)


def indent(text: str) -> str:
    return "\n".join("    " + l for l in text.splitlines())


async def run_scenarios(runner: Runner, transport: str, shop: Shop,
                        connect: Callable[[Any], Any], logs: Callable[[], str]) -> None:
    for reg in SCENARIOS:
        if transport not in reg.transports:
            continue
        holder: dict[str, Ctx] = {}

        async def body(reg: Registered = reg) -> None:
            async with connect(None) as session:
                ctx = Ctx(session, transport, shop, runner.opts)
                holder["ctx"] = ctx
                await ctx.load_tools()
                await reg.fn(ctx)
                if ctx.soft:
                    raise AssertionError("\n".join(ctx.soft))

        def scenario_logs() -> str:
            calls = "\n".join(holder["ctx"].log[-6:]) if "ctx" in holder else ""
            server = logs()
            return calls + (("\n--- server output (tail) ---\n" + server) if server.strip() else "")

        await runner.run(f"{transport}/{reg.name}", body, scenario_logs)


def detect_options(opts: Options) -> None:
    """Reads `whittle serve --help` for the options the suite can use."""
    try:
        out = subprocess.run([opts.whittle, "serve", "--help"], capture_output=True, text=True, timeout=10)
        opts.features = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        opts.features = ""
        print(f"note: `whittle serve --help` failed: {e}")
    opts.search_url = "--search-url" in opts.features
    if "--allow-private" in opts.features:
        # The shop is on loopback, which whittle refuses by default.
        opts.mcp_args += ["--allow-private"]
        opts.serve_args += ["--allow-private"]
    if "--nav-timeout" in opts.features:
        # The never-ending body then costs seconds, not the default timeout.
        opts.mcp_args += ["--nav-timeout", str(NAV_TIMEOUT)]
        opts.serve_args += ["--nav-timeout", str(NAV_TIMEOUT)]


async def main_async(opts: Options) -> int:
    shop = Shop(verbose=opts.verbose).start()
    runner = Runner(opts)
    detect_options(opts)
    if opts.search_url:
        template = f"{shop.base}/search?q={{q}}"
        opts.mcp_args += ["--search-url", template]
        opts.serve_args += ["--search-url", template]
    print(f"shop at {shop.base}/; whittle {opts.whittle}; jsonschema "
          f"{'on' if jsonschema else 'not installed: outputSchema validation skipped'}", flush=True)
    try:
        if "stdio" in opts.transports:
            errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")

            def stdio_logs() -> str:
                errlog.flush()
                errlog.seek(0)
                tail = errlog.read()[-3000:]
                errlog.seek(0)
                errlog.truncate()
                return tail

            await run_scenarios(runner, "stdio", shop, lambda _: stdio_session(opts, errlog), stdio_logs)
            errlog.close()
        if "http" in opts.transports:
            serve: Serve | None = None
            try:
                serve = Serve(opts)
            except AssertionError as e:
                runner.outcomes.append(Outcome("http/serve", "FAIL", 0, str(e)))
                print(f"FAIL http/serve\n{indent(str(e))}")
            if serve is not None:
                url = serve.url
                seen = [0]

                def serve_logs() -> str:
                    new = serve.output[seen[0]:]
                    seen[0] = len(serve.output)
                    return "".join(new)[-3000:]

                await run_scenarios(runner, "http", shop, lambda _: http_session(url), serve_logs)
                await runner.run("http/sessions_isolated", lambda: http_sessions_isolated(opts, shop, url), serve_logs)
                serve.stop()
            await runner.run("http/token", lambda: http_token(opts, shop), lambda: "")
            await runner.run("http/privacy", lambda: privacy(opts, shop), lambda: "")
    finally:
        shop.stop()

    counts = {s: sum(1 for o in runner.outcomes if o.status == s) for s in ("PASS", "FAIL", "SKIP")}
    failed = [o for o in runner.outcomes if o.status == "FAIL"]
    if failed:
        print("\nFailed:")
        for o in failed:
            print(f"  {o.name}: {o.detail.splitlines()[0] if o.detail else ''}")
    skipped = [o for o in runner.outcomes if o.status == "SKIP"]
    for o in skipped:
        print(f"  skipped {o.name}: {o.detail}")
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    if not runner.outcomes:
        print("no scenario ran")
        return 1
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--whittle", required=True, help="path to the whittle binary")
    ap.add_argument("--transport", choices=["stdio", "http", "both"], default="both")
    ap.add_argument("--only", action="append", default=[], help="run scenarios whose name contains this")
    ap.add_argument("--tools-json", help="write the listed tools (as sent) to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every call and the shop's requests")
    a = ap.parse_args()
    opts = Options(
        whittle=os.path.abspath(a.whittle),
        transports=["stdio", "http"] if a.transport == "both" else [a.transport],
        only=a.only, verbose=a.verbose, tools_json=a.tools_json,
    )
    if not os.access(opts.whittle, os.X_OK):
        print(f"error: {opts.whittle} is not an executable")
        return 2
    return anyio.run(main_async, opts)


if __name__ == "__main__":
    sys.exit(main())
