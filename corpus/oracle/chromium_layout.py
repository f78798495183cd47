#!/usr/bin/env python3
"""Chromium as whittle's layout oracle: every element's border box, per page.

Usage (from anywhere; paths are relative to the repository root):

    python3 corpus/oracle/chromium_layout.py            # regenerate every page's .layout.json
    python3 corpus/oracle/chromium_layout.py --check    # regenerate into a temp dir, compare, exit 1 on drift
    python3 corpus/oracle/chromium_layout.py corpus/layout/form.html   # only these pages

Options: --chromium PATH (default: $CHROMIUM, then chromium, chromium-browser,
google-chrome on $PATH), --jobs N (browsers run in parallel, default 4),
--tolerance PX (--check: how far a box edge may move, default 3),
--height-tolerance F (--check: relative content-height drift, default 0.02).

Pages: corpus/fixtures/*.html, corpus/layout/*.html and
corpus/conformance/*.html. For each page
`<dir>/<name>.html` it writes `<dir>/<name>.layout.json`:

    {"generator": ..., "chromium": "Chromium 156...", "page": "corpus/layout/form.html",
     "viewport": [1280, 800], "window": [1280, 887], "mode": "CSS1Compat",
     "content_height": H, "body": <index of <body>>, "text_advance_16px": {...},
     "elements": [
    {"i": 0, "tag": "html", "p": null, "x": 0, "y": 0, "w": 1280, "h": 1234, "r": true, "c": true, "v": true},
    {"i": 7, "tag": "button", ..., "r": true, "c": true, "v": true, "f": false, "id": "case-inert-div-button"},
    ...]}

`i` is the element's index in document order (`getElementsByTagName('*')`,
the same order as whittle's `doc.descendants` filtered to elements), `p` its
parent element's index, `x y w h` its `getBoundingClientRect()` in CSS px
relative to the page's top-left (scroll 0), rounded to 0.1; `r` whether it
is rendered (`getClientRects().length > 0`); `c` what `checkVisibility()`
says (false wherever `r` is, and also inside content Chromium skips, such as
a closed <details> or a `hidden=until-found` element, whose descendants do
get boxes); `v` whether its computed `visibility` is `visible`. Only on
focusable candidates (button, input, select, textarea, a[href], [tabindex]):
`f`, whether `focus()` made it `document.activeElement` (inert, disabled,
hidden and unrendered ones refuse). Only on elements whose id starts with
`case-` (the cases of corpus/conformance): `id`. `content_height` is
`document.scrollingElement.scrollHeight` (never less than the viewport's
height). `text_advance_16px` is the average advance of an English sentence
at 16px in the default serif, sans-serif and monospace fonts of the machine
(what a text model would be calibrated against).

How: each page's folder (subfolders included) is copied to a temp dir and
the page is written there with a <script> appended at its very end, so the
sheets it links or imports by relative URL load as they would from the
repository. On `load` the script measures everything (leaving itself out of
the walk), then focuses each focusable candidate (without scrolling, after
every box and style is read), and writes the JSON into a <pre>;
`chromium --headless --dump-dom` prints the DOM and this script reads the
JSON back. Standard library only; nothing is fetched from the network
(`--host-resolver-rules` makes every host fail to resolve, so a page's
remote images and frames stay empty).

Headless quirks handled here: `--window-size` sets the *window*, and the new
headless mode still subtracts browser UI from it (1280x800 gives an
innerHeight of 713 with Chromium 156), so the window is calibrated once per run
until innerWidth x innerHeight is exactly 1280x800; and classic 15px scrollbars
would narrow the layout viewport of any page taller than a screen, so
`--hide-scrollbars` keeps it 1280 wide (whittle lays out at the full width).
"""

import argparse
import concurrent.futures
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERATOR = "corpus/oracle/chromium_layout.py"
VIEWPORT = (1280, 800)
PAGE_DIRS = ("corpus/fixtures", "corpus/layout", "corpus/conformance")
OUT_ID = "whittle-oracle-out"
# The elements whose focusability is recorded (`f`): the usual focusable
# candidates. Whether focus() really focuses one is Chromium's verdict
# (disabled, inert, hidden or unrendered ones refuse it).
FOCUS_CANDIDATES = "button, input, select, textarea, a[href], [tabindex]"
# Elements whose id starts with this get it recorded (`id`): the cases of
# the conformance pages.
CASE_PREFIX = "case-"
TIMEOUT_S = 90

# Appended to each page. ES5-ish, no template literals (the page's own code,
# if any, is left alone). The output <pre> is created after the walk, so it
# is not measured either.
INJECT = """<script>
(function () {
  var me = document.currentScript;
  function num(v) { return Math.round(v * 10) / 10; }
  function advance(font) {
    var c = document.createElement('canvas').getContext('2d');
    var s = 'The quick brown fox jumps over the lazy dog, then rests by the river.';
    c.font = font;
    return num(c.measureText(s).width / s.length * 100) / 100;
  }
  function run() {
    var all = document.getElementsByTagName('*');
    var list = [], index = new Map(), k;
    for (k = 0; k < all.length; k++) {
      if (all[k] === me) continue;
      index.set(all[k], list.length);
      list.push(all[k]);
    }
    var sx = window.scrollX, sy = window.scrollY, out = [];
    for (k = 0; k < list.length; k++) {
      var e = list[k], b = e.getBoundingClientRect(), p = e.parentElement;
      var rec = {i: k, tag: e.localName, p: p ? (index.has(p) ? index.get(p) : -1) : null,
                 x: num(b.left + sx), y: num(b.top + sy), w: num(b.width), h: num(b.height),
                 r: e.getClientRects().length > 0, c: e.checkVisibility(),
                 v: getComputedStyle(e).visibility === 'visible'};
      var id = e.getAttribute('id');
      if (id && id.indexOf('%CASE%') === 0) rec.id = id;
      out.push(rec);
    }
    var se = document.scrollingElement || document.documentElement;
    var height = se ? se.scrollHeight : 0;
    // Focus last, after every box and style is read: focusing can restyle
    // (:focus) and, without preventScroll, scroll.
    for (k = 0; k < list.length; k++) {
      var el = list[k];
      if (!el.matches('%FOCUS%')) continue;
      if (typeof el.focus === 'function') el.focus({preventScroll: true});
      out[k].f = document.activeElement === el;
      if (out[k].f) el.blur();
    }
    window.scrollTo(sx, sy);
    var result = {
      viewport: [window.innerWidth, window.innerHeight],
      mode: document.compatMode,
      content_height: height,
      body: document.body && index.has(document.body) ? index.get(document.body) : null,
      text_advance_16px: {serif: advance('16px serif'), 'sans-serif': advance('16px sans-serif'),
                          monospace: advance('16px monospace')},
      elements: out
    };
    var pre = document.createElement('pre');
    pre.id = '%s';
    pre.textContent = JSON.stringify(result);
    document.documentElement.appendChild(pre);
  }
  if (document.readyState === 'complete') run(); else window.addEventListener('load', run);
})();
</script>""".replace("%s", OUT_ID).replace("%CASE%", CASE_PREFIX).replace("%FOCUS%", FOCUS_CANDIDATES)

PROBE = (
    "<!DOCTYPE html><html><head><title>probe</title></head>"
    "<body><div style='height:3000px'>tall, so a scrollbar would show</div></body></html>"
)


class OracleError(Exception):
    pass


def find_chromium(explicit):
    candidates = [explicit] if explicit else [os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]
    for c in candidates:
        if not c:
            continue
        path = shutil.which(c) or (c if os.path.isfile(c) and os.access(c, os.X_OK) else None)
        if path:
            return path
    raise OracleError(
        "Chromium not found (tried --chromium, $CHROMIUM, chromium, chromium-browser, google-chrome); "
        "install it with: apt-get update && apt-get install -y chromium"
    )


def chromium_version(chromium):
    out = subprocess.run([chromium, "--version"], capture_output=True, text=True, timeout=60).stdout
    # "Chromium 156.0.8078.108 built on Debian GNU/Linux 12 (bookworm)"
    m = re.search(r"(Chromium|Google Chrome|Chrome)\s+([\d.]+)", out)
    if not m:
        raise OracleError(f"could not read the version from `{chromium} --version`: {out.strip()!r}")
    return f"{m.group(1)} {m.group(2)}"


def measure(chromium, page_bytes, window, work, name, source=None):
    """Loads `page_bytes` (with the script appended) and returns the parsed JSON.

    With `source` (the page's own path), the page's folder, subfolders
    included, is copied first and the page is written in place of its copy,
    so the style sheets, frames and images it names by relative URL load as
    they would from the repository (everything outside that folder stays out
    of reach)."""
    if source is None:
        page = work / f"{name}.html"
    else:
        site = work / name
        shutil.copytree(source.parent, site, ignore=shutil.ignore_patterns("*.layout.json"))
        page = site / source.name
    page.write_bytes(page_bytes + INJECT.encode("ascii"))
    profile = work / f"{name}.profile"
    args = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--window-size={window[0]},{window[1]}",
        f"--user-data-dir={profile}",
        "--lang=en-US",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-sync",
        "--mute-audio",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--dump-dom",
        page.as_uri(),
    ]
    try:
        proc = subprocess.run(args, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise OracleError(f"{name}: Chromium did not finish within {TIMEOUT_S}s") from None
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        if source is not None:
            shutil.rmtree(work / name, ignore_errors=True)
    dom = proc.stdout.decode("utf-8", "replace")
    m = re.search(r'<pre id="' + OUT_ID + r'">(.*?)</pre>', dom, re.S)
    if not m:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise OracleError(
            f"{name}: no measurements in Chromium's dumped DOM (exit {proc.returncode}; the page may end "
            f"inside a comment or raw-text element, so the appended script never ran); stderr: {tail}"
        )
    return json.loads(html.unescape(m.group(1)))


def calibrate(chromium, work):
    """The --window-size whose layout viewport is exactly VIEWPORT."""
    window = VIEWPORT
    for attempt in range(3):
        got = measure(chromium, PROBE.encode(), window, work, f"probe{attempt}")["viewport"]
        if tuple(got) == VIEWPORT:
            return window
        window = (window[0] + VIEWPORT[0] - got[0], window[1] + VIEWPORT[1] - got[1])
    raise OracleError(f"could not get a {VIEWPORT[0]}x{VIEWPORT[1]} viewport (last window {window} gave {got})")


def rel(path):
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return path.as_posix()


def page_record(chromium, version, window, page, work, n):
    data = measure(chromium, page.read_bytes(), window, work, f"{n:03}-{page.stem}", source=page)
    if tuple(data["viewport"]) != VIEWPORT:
        raise OracleError(f"{rel(page)}: the viewport was {data['viewport']}, not {list(VIEWPORT)}")
    return {
        "generator": GENERATOR,
        "chromium": version,
        "page": rel(page),
        "viewport": list(VIEWPORT),
        "window": list(window),
        "mode": data["mode"],
        "content_height": data["content_height"],
        "body": data["body"],
        "text_advance_16px": data["text_advance_16px"],
        "elements": data["elements"],
    }


def fmt_num(v):
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    v = round(float(v), 1)
    if v == 0:
        v = 0.0  # no "-0"
    return str(int(v)) if v.is_integer() else repr(v)


def to_json(record):
    """Compact JSON, one element per line (readable diffs)."""
    head = []
    for key, value in record.items():
        if key == "elements":
            continue
        if key == "text_advance_16px":
            value = {k: round(v, 3) for k, v in value.items()}
        head.append(f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    lines = []
    for e in record["elements"]:
        lines.append(
            "{"
            + f'"i": {e["i"]}, "tag": {json.dumps(e["tag"], ensure_ascii=False)}, "p": {fmt_num(e["p"])}, '
            + f'"x": {fmt_num(e["x"])}, "y": {fmt_num(e["y"])}, "w": {fmt_num(e["w"])}, "h": {fmt_num(e["h"])}, '
            + f'"r": {fmt_num(e["r"])}, "c": {fmt_num(e["c"])}, "v": {fmt_num(e["v"])}'
            + (f', "f": {fmt_num(e["f"])}' if "f" in e else "")
            + (f', "id": {json.dumps(e["id"], ensure_ascii=False)}' if "id" in e else "")
            + "}"
        )
    return "{" + ", ".join(head) + ', "elements": [\n' + ",\n".join(lines) + "\n]}\n"


def out_path(page):
    return page.with_name(page.stem + ".layout.json")


def default_pages():
    pages = []
    for d in PAGE_DIRS:
        pages.extend(sorted((REPO / d).glob("*.html")))
    return pages


# The per-element fields --check compares exactly (besides the tag and box).
VERDICTS = (("r", "rendered"), ("c", "checkVisibility"), ("v", "visible"), ("f", "focusable"), ("id", "id"))


def shown(value):
    return "absent" if value is None else json.dumps(value)


def compare(committed, fresh, tol_px, tol_height):
    """Differences between a committed record and a fresh one, as messages."""
    problems = []
    if committed.get("viewport") != fresh["viewport"]:
        problems.append(f"viewport {committed.get('viewport')} -> {fresh['viewport']}")
    ch0, ch1 = committed.get("content_height", 0), fresh["content_height"]
    if abs(ch1 - ch0) > tol_height * max(ch0, 1):
        problems.append(f"content_height {ch0} -> {ch1} (more than {tol_height:.0%})")
    old, new = committed.get("elements", []), fresh["elements"]
    if len(old) != len(new):
        problems.append(f"{len(old)} elements -> {len(new)}")
    moved = []
    for a, b in zip(old, new):
        if a["tag"] != b["tag"]:
            moved.append(f"#{a['i']} tag {a['tag']} -> {b['tag']}")
            continue
        verdicts = [
            f"{what} {shown(a.get(key))} -> {shown(b.get(key))}"
            for key, what in VERDICTS
            if a.get(key) != b.get(key)
        ]
        if verdicts:
            moved.append(f"#{a['i']} <{a['tag']}> " + ", ".join(verdicts))
            continue
        deltas = {k: round(b[k] - a[k], 1) for k in ("x", "y", "w", "h") if abs(b[k] - a[k]) > tol_px}
        if deltas:
            box = lambda e: f"{fmt_num(e['x'])},{fmt_num(e['y'])} {fmt_num(e['w'])}x{fmt_num(e['h'])}"
            moved.append(f"#{a['i']} <{a['tag']}> {box(a)} -> {box(b)}")
    if moved:
        problems.append(
            f"{len(moved)} elements changed (a box edge moved more than {tol_px}px, or the tag, rendered-ness, "
            f"checkVisibility(), visibility, focusability or case id changed), e.g.:"
        )
        problems.extend("  " + m for m in moved[:8])
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "pages", nargs="*", type=Path,
        help="pages to measure (default: corpus/fixtures, corpus/layout and corpus/conformance)",
    )
    ap.add_argument("--check", action="store_true", help="compare fresh measurements with the committed files")
    ap.add_argument("--chromium", help="the Chromium binary")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--tolerance", type=float, default=3.0, help="--check: px a box edge may move")
    ap.add_argument("--height-tolerance", type=float, default=0.02, help="--check: relative content-height drift")
    args = ap.parse_args(argv)

    started = time.monotonic()
    try:
        chromium = find_chromium(args.chromium)
        version = chromium_version(chromium)
    except OracleError as e:
        print(f"chromium_layout: {e}", file=sys.stderr)
        return 2
    pages = [p.resolve() for p in args.pages] or default_pages()
    if not pages:
        print("chromium_layout: no pages found", file=sys.stderr)
        return 2

    keep = None
    work = Path(tempfile.mkdtemp(prefix="whittle-oracle-"))
    try:
        window = calibrate(chromium, work)
        print(f"{version} at {chromium}: window {window[0]}x{window[1]} gives a {VIEWPORT[0]}x{VIEWPORT[1]} viewport")
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(page_record, chromium, version, window, p, work, n) for n, p in enumerate(pages)]
            records = [f.result() for f in futures]

        if not args.check:
            for page, record in zip(pages, records):
                out_path(page).write_text(to_json(record), encoding="utf-8")
                print(f"  {rel(out_path(page))}: {len(record['elements'])} elements, height {record['content_height']}")
            print(f"wrote {len(records)} files in {time.monotonic() - started:.1f}s")
            return 0

        fresh_dir = work / "fresh"
        fresh_dir.mkdir()
        drifted = []
        for page, record in zip(pages, records):
            fresh_file = fresh_dir / rel(out_path(page))
            fresh_file.parent.mkdir(parents=True, exist_ok=True)
            fresh_file.write_text(to_json(record), encoding="utf-8")
            committed_file = out_path(page)
            if not committed_file.is_file():
                drifted.append((page, [f"{rel(committed_file)} is missing (run without --check to create it)"]))
                continue
            committed = json.loads(committed_file.read_text(encoding="utf-8"))
            problems = compare(committed, record, args.tolerance, args.height_tolerance)
            if committed.get("chromium") != version:
                note = f"(committed with {committed.get('chromium')}, checked with {version})"
                if problems:
                    problems.append(note)
                else:
                    print(f"  {rel(page)}: matches {note}")
            if problems:
                drifted.append((page, problems))
        elapsed = time.monotonic() - started
        if drifted:
            keep = work
            print(
                f"chromium_layout --check: {len(drifted)} of {len(pages)} pages drifted from the committed "
                f"layout data ({elapsed:.1f}s):",
                file=sys.stderr,
            )
            for page, problems in drifted:
                print(f"- {rel(page)}:", file=sys.stderr)
                for p in problems:
                    print(f"    {p}", file=sys.stderr)
            print(
                f"Fresh files are in {fresh_dir}. If the change is expected (a new Chromium or changed "
                f"pages), regenerate with: python3 {GENERATOR}",
                file=sys.stderr,
            )
            return 1
        print(f"chromium_layout --check: all {len(pages)} pages match the committed layout data ({elapsed:.1f}s)")
        return 0
    except OracleError as e:
        print(f"chromium_layout: {e}", file=sys.stderr)
        return 2
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
