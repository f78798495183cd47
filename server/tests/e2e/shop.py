"""A demo shop for whittle's end-to-end tests, served on loopback.

Plain HTML, no script: a home page with 30 product cards, product pages, a
cart held in a cookie, a checkout form and a review page, a search page, and
the bad pages the tests need (a redirect loop, a 50 MB body, a body that
never ends, an image, a 500 and 404s).

    shop = Shop(); shop.start(); ...; shop.stop()
    python3 shop.py          # serves until interrupted, prints its URL
"""

from __future__ import annotations

import html
import sys
import threading
import time
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SITE = "Northwind Outfitters"

_ADJECTIVES = ["Brass", "Cedar", "Linen", "Copper", "Slate", "Willow"]
_NOUNS = ["Lantern", "Kettle", "Satchel", "Compass", "Blanket"]


def _product(i: int) -> dict:
    """Product i (1-based): a name, a price in cents, a rating."""
    n = i - 1
    return {
        "id": i,
        "name": f"{_ADJECTIVES[n // len(_NOUNS)]} {_NOUNS[n % len(_NOUNS)]}",
        "cents": 500 + 125 * n,
        "rating": 3.0 + (n * 7 % 21) / 10,
    }


PRODUCTS = [_product(i) for i in range(1, 31)]
COUNTRIES = ["United States", "Canada", "Mexico", "India", "Japan", "Germany", "Brazil"]
# Text that the stylesheet hides: it must never reach the model.
HIDDEN_PROMO = "Secret promo code HUSH42"
BIG_BYTES = 50 * 1000 * 1000


def price(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def stars(p: dict) -> str:
    return f"{p['rating']:.1f} stars"


STYLE_CSS = """\
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header, footer { background: #1d3557; color: white; padding: 1rem 2rem; }
header a, footer a { color: white; margin-right: 1rem; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 2rem; }
.products { list-style: none; padding: 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 1rem; margin: .75rem 0; }
.card form { display: inline; }
.price { font-weight: bold; margin-right: .5rem; }
.rating { color: #777; }
.promo { display: none; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: .25rem .75rem; }
.field { margin: .75rem 0; }
"""

PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def page(title: str, body: str, status_note: str = "") -> str:
    """A whole page in the shop's layout: header with navigation and search,
    main, footer."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(title)} – {SITE}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/style.css">
<style>
  .brand {{ font-size: 1.5rem; font-weight: bold; }}
  .skip {{ position: absolute; left: -9999px; }}
  .note {{ background: #ffe8a1; padding: .5rem; }}
</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <span class="brand">{SITE}</span>
  <nav aria-label="Primary">
    <a href="/">Home</a>
    <a href="/cart">Cart</a>
    <a href="/checkout">Checkout</a>
  </nav>
  <form role="search" action="/search" method="get">
    <label for="q">Search products</label>
    <input id="q" name="q" type="search">
    <button type="submit">Search</button>
  </form>
</header>
<main id="main">
{status_note}{body}
</main>
<footer>
  <p>© 2026 {SITE}. Free returns within 30 days.</p>
  <a href="/about">About us</a> <a href="/contact">Contact</a>
</footer>
</body>
</html>
"""


def card(p: dict) -> str:
    return f"""  <li class="card">
    <a href="/product/{p['id']}">{html.escape(p['name'])}</a>
    <span class="price">{price(p['cents'])}</span>
    <span class="rating">{stars(p)}</span>
    <form method="post" action="/cart">
      <input type="hidden" name="id" value="{p['id']}">
      <button type="submit">Add to cart</button>
    </form>
  </li>
"""


def home() -> str:
    cards = "".join(card(p) for p in PRODUCTS)
    body = f"""<h1>All products</h1>
<p class="promo">{HIDDEN_PROMO}</p>
<p>Sturdy goods for the outdoors, shipped from our workshop.</p>
<ul class="products" aria-label="Products">
{cards}</ul>
"""
    return page("Home", body)


def product_page(p: dict) -> str:
    body = f"""<nav aria-label="Breadcrumb"><a href="/">Home</a> › {html.escape(p['name'])}</nav>
<h1>{html.escape(p['name'])}</h1>
<p><span class="price">{price(p['cents'])}</span> <span class="rating">{stars(p)}</span></p>
<p>The {html.escape(p['name'])} is made by hand in our workshop from materials that last.
It comes with a two-year guarantee and free repairs.</p>
<form method="post" action="/cart">
  <input type="hidden" name="id" value="{p['id']}">
  <button type="submit">Add to cart</button>
</form>
"""
    return page(p["name"], body)


def cart_page(ids: list[int]) -> str:
    if not ids:
        return page("Cart", "<h1>Your cart</h1>\n<p>Your cart is empty.</p>\n")
    counts: dict[int, int] = {}
    for i in ids:
        counts[i] = counts.get(i, 0) + 1
    rows = []
    total = 0
    for i, qty in counts.items():
        p = PRODUCTS[i - 1]
        line = p["cents"] * qty
        total += line
        rows.append(
            f"<tr><td>{html.escape(p['name'])}</td><td>{qty}</td>"
            f"<td>{price(p['cents'])}</td><td>{price(line)}</td></tr>"
        )
    body = f"""<h1>Your cart</h1>
<table>
<caption>Items in your cart</caption>
<thead><tr><th>Product</th><th>Qty</th><th>Price</th><th>Total</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
<tfoot><tr><th colspan="3">Order total</th><td>{price(total)}</td></tr></tfoot>
</table>
<p><a href="/checkout">Checkout</a></p>
"""
    return page("Cart", body)


def checkout_page() -> str:
    options = "\n".join(
        f'      <option{" selected" if c == "United States" else ""}>{c}</option>' for c in COUNTRIES
    )
    body = f"""<h1>Shipping</h1>
<form aria-label="Shipping" method="post" action="/review">
  <div class="field">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="email" required>
  </div>
  <div class="field">
    <label for="country">Country</label>
    <select id="country" name="country">
{options}
    </select>
  </div>
  <div class="field">
    <label><input type="checkbox" name="gift" value="yes"> This is a gift</label>
  </div>
  <div class="field">
    <label><input type="radio" name="shipping" value="Standard" checked> Standard</label>
    <label><input type="radio" name="shipping" value="Express"> Express</label>
  </div>
  <p>By continuing you agree to our <a href="/terms">Terms</a> and <a href="/privacy">Privacy Policy</a>.</p>
  <button type="submit">Continue to review</button>
</form>
"""
    return page("Shipping", body)


def review_page(form: dict[str, list[str]]) -> str:
    def one(k: str) -> str:
        return html.escape(form.get(k, [""])[0])

    gift = "Yes" if form.get("gift") else "No"
    body = f"""<h1>Review your order</h1>
<dl>
  <dt>Email</dt><dd>{one('email')}</dd>
  <dt>Country</dt><dd>{one('country')}</dd>
  <dt>Gift</dt><dd>{gift}</dd>
  <dt>Shipping</dt><dd>{one('shipping')}</dd>
</dl>
<form method="post" action="/order">
  <button type="submit">Place order</button>
</form>
<p><a href="/checkout">Change shipping details</a></p>
"""
    return page("Review", body)


def search_page(q: str) -> str:
    words = [w.lower() for w in q.split()]
    hits = [p for p in PRODUCTS if any(w in p["name"].lower() for w in words)]
    items = "".join(card(p) for p in hits)
    body = f"""<h1>Results for “{html.escape(q)}”</h1>
<p>{len(hits)} products found.</p>
<ul class="products" aria-label="Search results">
{items}</ul>
"""
    return page("Search", body)


# Values that must never reach the model or the server's output (the
# privacy scenario of test_mcp.py scans for them).
CANARY_PASSWORD = "CANARY-e2e-pass-4d1c"
CANARY_CARD = "4111 1111 1111 1111"


def account_page() -> str:
    body = f"""<h1>Your account</h1>
<p>Card on file: {CANARY_CARD}.</p>
<form aria-label="Sign in" method="post" action="/review">
  <label>Password <input type="password" name="pw" value="{CANARY_PASSWORD}"></label>
  <label>Note <input name="note"></label>
  <button>Save</button>
</form>
"""
    return page("Account", body)


def simple_page(title: str, heading: str, text: str) -> str:
    return page(title, f"<h1>{html.escape(heading)}</h1>\n<p>{html.escape(text)}</p>\n")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "NorthwindShop/1.0"
    # The headers and the body leave in two writes; with Nagle's algorithm
    # the body would wait for the client's delayed ACK of the headers
    # (40 ms a response on Linux), as no real web server lets it.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base's name)
        if self.server.verbose:  # type: ignore[attr-defined]
            sys.stderr.write("shop: " + (format % args) + "\n")

    # -- helpers ---------------------------------------------------------

    def _send(self, status: int, body: str | bytes, ctype: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _redirect(self, location: str, headers: dict[str, str] | None = None) -> None:
        self._send(303, "", headers={"Location": location, **(headers or {})})

    def _cart(self) -> list[int]:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        raw = cookie["cart"].value if "cart" in cookie else ""
        return [int(x) for x in raw.split(".") if x.isdigit() and 1 <= int(x) <= len(PRODUCTS)]

    def _form(self) -> dict[str, list[str]]:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode("utf-8", "replace") if n > 0 else ""
        return parse_qs(raw, keep_blank_values=True)

    def _not_found(self) -> None:
        self._send(404, simple_page("Lost in the aisles", "Lost in the aisles",
                                    "We could not find that page. Try the home page."))

    def _stream(self, chunks, ctype: str = "text/html; charset=utf-8") -> None:
        """A body without a length, ended by closing the connection."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for chunk in chunks:
                if self.server.stopping.is_set():  # type: ignore[attr-defined]
                    return
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- routes ----------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 (the base's name)
        url = urlsplit(self.path)
        path = url.path
        query = parse_qs(url.query)
        if path == "/":
            return self._send(200, home())
        if path == "/style.css":
            return self._send(200, STYLE_CSS, "text/css; charset=utf-8")
        if path.startswith("/product/"):
            tail = path[len("/product/"):]
            if tail.isdigit() and 1 <= int(tail) <= len(PRODUCTS):
                return self._send(200, product_page(PRODUCTS[int(tail) - 1]))
            return self._not_found()
        if path == "/cart":
            return self._send(200, cart_page(self._cart()))
        if path == "/checkout":
            return self._send(200, checkout_page())
        if path == "/search":
            return self._send(200, search_page(query.get("q", [""])[0]))
        if path == "/account":
            return self._send(200, account_page())
        if path == "/about":
            return self._send(200, simple_page("About us", "About us", "A small workshop since 1998."))
        if path == "/redirect-loop":
            return self._send(302, "", headers={"Location": "/redirect-loop-2"})
        if path == "/redirect-loop-2":
            return self._send(302, "", headers={"Location": "/redirect-loop"})
        if path == "/big":
            return self._stream(self._big_chunks())
        if path == "/slow":
            return self._stream(self._slow_chunks())
        if path == "/image.png":
            return self._send(200, PNG_1X1, "image/png")
        if path == "/500":
            return self._send(500, simple_page("Something broke", "Something broke",
                                               "Our server had a problem. Please try again later."))
        return self._not_found()

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        form = self._form()
        if path == "/cart":
            ids = self._cart()
            raw = form.get("id", [""])[0]
            if raw.isdigit() and 1 <= int(raw) <= len(PRODUCTS):
                ids.append(int(raw))
            value = ".".join(str(i) for i in ids)
            return self._redirect("/cart", {"Set-Cookie": f"cart={value}; Path=/; SameSite=Lax"})
        if path == "/review":
            return self._send(200, review_page(form))
        if path == "/order":
            return self._send(200, simple_page("Thank you", "Thank you", "Your order is on its way."),
                              headers={"Set-Cookie": "cart=; Path=/; Max-Age=0"})
        return self._not_found()

    def _big_chunks(self):
        head = b"<!DOCTYPE html><html><head><title>Big</title></head><body>\n"
        yield head
        block = (b"<p>" + b"x" * 1017 + b"</p>\n") * 64  # 65,536 bytes
        sent = len(head)
        while sent < BIG_BYTES:
            yield block
            sent += len(block)

    def _slow_chunks(self):
        yield b"<!DOCTYPE html><html><head><title>Slow</title></head><body>\n"
        while not self.server.stopping.is_set():  # type: ignore[attr-defined]
            time.sleep(0.25)
            yield b"<p>still loading</p>\n"


class Shop:
    """The shop on 127.0.0.1 at a free port, served from a daemon thread."""

    def __init__(self, verbose: bool = False) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.verbose = verbose  # type: ignore[attr-defined]
        self.httpd.stopping = threading.Event()  # type: ignore[attr-defined]
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="shop", daemon=True)

    def url(self, path: str = "/") -> str:
        return self.base + path

    def start(self) -> "Shop":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.stopping.set()  # type: ignore[attr-defined]
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":
    shop = Shop(verbose=True).start()
    print(f"shop at {shop.base}/", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        shop.stop()
