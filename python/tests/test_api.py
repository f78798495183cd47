"""whittle's Python functions: what they give, how they fail, and that they
are safe and parallel under a thread pool."""

import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

import whittle

SHOP = (
    b'<title>Shop</title><nav aria-label="Primary"><a href="/">Home</a></nav>'
    b'<main><h1>Shipping</h1><label>Email <input type=email required></label>'
    b'<label><input type=checkbox checked> Gift wrap</label><button disabled>Pay</button></main>'
)

ARTICLE = """<!doctype html><html lang="en-GB"><head><title>Library hours extended</title>
<meta name="author" content="Ada Byron"><meta property="article:published_time" content="2026-11-20T08:00:00Z">
<meta property="og:site_name" content="Town News"></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Library hours extended</h1>
<p>The town library will open until nine in the evening from Monday, the council said on Tuesday.</p>
<h2>Reactions</h2><p>Students welcomed the change. Parents asked for weekend hours too.</p>
<h2>What's next</h2><p>A review of the new hours is planned for the spring.</p></article>
<footer>© Town News</footer></body></html>"""


def test_snapshot_text_elements_counters():
    s = whittle.snapshot(SHOP, "https://shop.example/")
    assert s.text.startswith("# Shop · shop.example\n")
    assert '[1] link "Home"' in s.text and '[2] textbox "Email" required' in s.text
    assert s.title == "Shop" and s.url == "https://shop.example/"
    assert [(e.ref, e.role, e.name) for e in s.elements] == [
        (1, "link", "Home"),
        (2, "textbox", "Email"),
        (3, "checkbox", "Gift wrap"),
        (4, "button", "Pay"),
    ]
    assert "checked" in s.elements[2].states and "disabled" in s.elements[3].states
    assert s.counters["marks"] == 4 and s.counters["tree_truncated"] is False
    assert isinstance(s.diagnostics, list) and all(isinstance(d, str) for d in s.diagnostics)
    assert str(s) == s.text


def test_snapshot_equals_the_command(tmp_path, whittle_cmd):
    page = tmp_path / "shop.html"
    page.write_bytes(SHOP)
    cli = subprocess.run([*whittle_cmd, "snapshot", str(page), "--mode", "actions", "--budget", "200"],
                         capture_output=True, check=True).stdout.decode()
    s = whittle.snapshot(SHOP, page.as_uri(), mode="actions", budget=200)
    assert s.text == cli


def test_snapshot_options():
    hidden = whittle.snapshot(SHOP, stylesheets=["nav { display: none }"])
    assert "Home" not in hidden.text and hidden.counters["omitted_not_visible"] > 0
    actions = whittle.snapshot(ARTICLE, mode="actions")
    assert "town library will open" not in actions.text
    many = "".join(f"<p>Paragraph {i} says something about item {i}.</p>" for i in range(400))
    folded, whole = whittle.snapshot(many, budget=200), whittle.snapshot(many, budget=None)
    assert len(folded.text) < len(whole.text) and "Paragraph 399" in whole.text
    narrow = whittle.snapshot("<style>@media (max-width: 500px) { p { display: none } }</style><p>wide only</p>",
                              viewport=(400, 800))
    assert "wide only" not in narrow.text


def test_bytes_are_decoded_as_a_browser_would():
    cyrillic = "<title>Привет</title><p>мир</p>".encode("windows-1251")
    assert "Привет" in whittle.snapshot(cyrillic, content_type="text/html; charset=windows-1251").text
    declared = b'<meta charset="windows-1251">' + cyrillic
    assert "мир" in whittle.extract(declared)
    assert whittle.extract(bytearray(b"<p>from a bytearray</p>")) == "from a bytearray\n"


def test_extract_kinds(tmp_path, whittle_cmd):
    text = whittle.extract(ARTICLE, "https://news.example/library")
    assert "The town library will open until nine" in text and "Home" not in text
    table = "<table><tr><th>Plan<th>Price<tr><td>Basic<td>$10<tr><td>Pro<td>$20</table>"
    rows = whittle.extract(table, kind="table")
    assert rows.endswith("Plan | Price\nBasic | $10\nPro | $20\n")
    page = tmp_path / "table.html"
    page.write_text(table)
    cli = subprocess.run([*whittle_cmd, "extract", str(page), "--kind", "table"], capture_output=True, check=True)
    assert rows == cli.stdout.decode()
    items = "<main><ul>" + "".join(f"<li><a href=/p{i}>Product {i}</a> ${i}</li>" for i in range(5)) + "</ul></main>"
    assert whittle.extract(items, kind="list").count("Product") == 5
    with pytest.raises(whittle.WhittleError, match="table"):
        whittle.extract("<p>no table here</p>", kind="table")


def test_digest_fields():
    d = whittle.digest(ARTICLE, "https://news.example/library", main_text=True)
    assert d.title == "Library hours extended"
    assert (d.byline, d.date, d.site, d.language) == ("by Ada Byron", "2026-11-20", "Town News", "en-GB")
    assert d.outline[:2] == ["Reactions", "What's next"] or "Reactions" in d.outline
    assert d.text.startswith("## [1] Library hours extended · news.example/library\n")
    assert (d.links, d.forms) == (2, 0) and 0 < d.tokens <= 400 and not d.needs_scripts
    assert d.main_text == whittle.extract(ARTICLE, "https://news.example/library")
    assert whittle.digest(ARTICLE).main_text is None
    short = whittle.digest(ARTICLE * 20, budget=60)
    assert short.tokens <= 60


def test_extract_equals_the_command_on_real_pages(articles, tmp_path, whittle_cmd):
    for name, html, url, _ in articles[:12]:
        page = tmp_path / f"{name[:12]}.html"
        page.write_bytes(html)
        cli = subprocess.run([*whittle_cmd, "extract", str(page), "--base-url", url], capture_output=True, check=True)
        assert whittle.extract(html, url) == cli.stdout.decode(), name


@pytest.mark.parametrize(
    "call",
    [
        lambda: whittle.snapshot(42),
        lambda: whittle.extract(None),
        lambda: whittle.digest(["<p>"]),
        lambda: whittle.snapshot("<p>", stylesheets="p { color: red }"),
    ],
)
def test_wrong_types_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: whittle.snapshot("<p>", "not a url"), "not an absolute URL"),
        (lambda: whittle.snapshot("<p>", "https://user:secret@[bad"), "not an absolute URL"),
        (lambda: whittle.snapshot("<p>", mode="everything"), "mode"),
        (lambda: whittle.snapshot("<p>", budget=3), "budget"),
        (lambda: whittle.snapshot("<p>", budget=-1), "budget"),
        (lambda: whittle.snapshot("<p>", viewport=(0, 800)), "viewport"),
        (lambda: whittle.snapshot("<p>", viewport=(10**9, 800)), "viewport"),
        (lambda: whittle.extract("<p>", kind="pdf"), "kind"),
        (lambda: whittle.digest("<p>", budget=0), "budget"),
    ],
)
def test_bad_arguments_are_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_bad_url_error_does_not_repeat_a_password():
    with pytest.raises(ValueError) as e:
        whittle.extract("<p>", "https://user:hunter2@[bad/")
    assert "hunter2" not in str(e.value)


def deep(n):
    return "<div>" * n + "deep text" + "</div>" * n


@pytest.mark.parametrize(
    "html",
    [
        b"",
        "",
        b"\x00" * 1000,
        bytes(random.Random(7).randrange(256) for _ in range(200_000)),
        b"<p>invalid \xff\xfe\xc3( utf-8</p>",
        "<p>lone \ud800 surrogate \udfff here</p>",
        deep(100_000),
        "<table>" * 50_000,
        "<p>" + "x" * 1_000_000,
    ],
    ids=["empty-bytes", "empty-str", "nuls", "binary", "invalid-utf8", "lone-surrogates", "100k-deep", "tables", "long-text"],
)
def test_any_input_gives_output(html):
    s = whittle.snapshot(html)
    assert isinstance(s.text, str) and s.text.startswith("#")
    assert isinstance(whittle.extract(html), str)
    assert whittle.digest(html).text.startswith("## [1]")


def test_lone_surrogates_become_replacement_characters():
    assert whittle.extract("<p>a\ud800b</p>") == "a\ufffdb\n"


def test_a_20_mb_page():
    html = "<main>" + "<p>A sentence of an enormous page, repeated.</p>" * 440_000 + "</main>"
    assert len(html) > 20_000_000
    text = whittle.extract(html)
    assert text.startswith("A sentence of an enormous page, repeated.\n")
    assert whittle.snapshot(html).counters["tree_truncated"] in (True, False)
    assert whittle.digest(html).tokens <= 400


def test_threads_give_the_serial_results(articles):
    pages = [(html, url) for _, html, url, _ in articles[:40]]
    serial = [(whittle.extract(h, u), whittle.digest(h, u).text, whittle.snapshot(h, u).text) for h, u in pages]

    def work(i):
        h, u = pages[i % len(pages)]
        return i % len(pages), (whittle.extract(h, u), whittle.digest(h, u).text, whittle.snapshot(h, u).text)

    with ThreadPoolExecutor(max_workers=8) as pool:
        for i, got in pool.map(work, range(3 * len(pages))):
            assert got == serial[i]


def test_errors_in_threads_stay_in_their_call():
    def work(i):
        try:
            return whittle.extract("<p>ok</p>" if i % 2 else 7)
        except TypeError as e:
            return e

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(work, range(200)))
    assert all(g == "ok\n" for g in got[1::2]) and all(isinstance(g, TypeError) for g in got[::2])


def test_the_command_runs_from_the_package(tmp_path, whittle_cmd):
    version = subprocess.run([*whittle_cmd, "--version"], capture_output=True, check=True).stdout.decode()
    assert version.startswith(f"whittle {whittle.__version__}")
    bad = subprocess.run([*whittle_cmd, "snapshot", "--mode", "nope", "x.html"], capture_output=True)
    assert bad.returncode == 2 and b"--mode" in bad.stderr
    missing = subprocess.run([*whittle_cmd, "extract", str(tmp_path / "absent.html")], capture_output=True)
    assert missing.returncode == 1 and b"absent.html" in missing.stderr


def test_the_command_serves_mcp_on_stdio(whittle_cmd):
    request = (
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"pytest","version":"1"}}}\n'
    )
    run = subprocess.run([*whittle_cmd, "mcp"], input=request.encode(), capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    assert b'"serverInfo"' in run.stdout and b'"whittle"' in run.stdout


def test_the_installed_script():
    script = os.path.join(os.path.dirname(os.path.realpath(os.sys.executable)), "whittle")
    if not os.path.exists(script):
        pytest.skip(f"no whittle script beside {os.sys.executable} (the package is not installed in this interpreter)")
    out = subprocess.run([script, "--version"], capture_output=True, check=True).stdout.decode()
    assert out.startswith("whittle ")
