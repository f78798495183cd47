#!/usr/bin/env python3
"""The CSS property and pseudo-class names Chromium knows, as Rust data.

Usage (from anywhere; paths are relative to the repository root):

    python3 corpus/oracle/chromium_names.py            # rewrite engine/src/style/known.rs
    python3 corpus/oracle/chromium_names.py --check    # exit 1 when the file differs from what Chromium says

whittle cannot know every property a browser knows, but `@supports
(property: value)` and selector lists depend on it: an unknown property
makes a `@supports` test false, an unknown pseudo-class makes a whole
selector list invalid. This loads one page in headless Chromium (`--chromium
PATH`, default: $CHROMIUM, then chromium on $PATH) that lists every property
of `CSSStyleDeclaration` Chromium supports (camelCase names turned back into
CSS names, `-webkit-` aliases included) and every pseudo-class among a list
of candidates that `CSS.supports('selector(:name)')` accepts, and writes them
into `engine/src/style/known.rs`, sorted. Standard library only; nothing is
fetched.
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "engine/src/style/known.rs"

# Candidates: Selectors 4, HTML's and Chromium's own pseudo-classes, and
# other engines' prefixed ones (which Chromium refuses).
CANDIDATES = """active any-link autofill blank buffering checked closed current default defined dir(ltr)
disabled empty enabled first-child first-of-type focus focus-visible focus-within fullscreen future has(a)
has-slotted host host-context(a) hover in-range indeterminate invalid is(a) lang(en) last-child last-of-type
link local-link modal muted not(a) nth-child(1) nth-last-child(1) nth-of-type(1) nth-last-of-type(1)
only-child only-of-type open optional out-of-range past paused picture-in-picture placeholder-shown playing
popover-open read-only read-write required root scope seeking stalled state(x) target target-within
user-invalid user-valid valid visited volume-locked where(a) xr-overlay -webkit-any-link -webkit-autofill
-webkit-full-screen -webkit-full-screen-ancestor -webkit-any(a) -webkit-drag -webkit-full-page-media
-moz-any-link -moz-focusring -moz-placeholder -moz-ui-invalid -ms-input-placeholder horizontal vertical
decrement increment start end double-button single-button no-button corner-present window-inactive
active-view-transition target-current interest-source interest-target heading heading(1)""".split()

PAGE = """<!doctype html><pre id=o></pre><script>
var names = {};
var s = document.body.style;
for (var k in s) {
  if (typeof s[k] !== 'string' || k === 'cssText' || k === 'cssFloat') continue;
  var d = k.replace(/[A-Z]/g, function (m) { return '-' + m.toLowerCase(); });
  if (d.indexOf('webkit-') === 0) d = '-' + d;
  if (CSS.supports(d, 'inherit')) names[d] = 1;
}
var cs = getComputedStyle(document.documentElement);
for (var i = 0; i < cs.length; i++) names[cs[i]] = 1;
var candidates = %s;
var pseudo = candidates.filter(function (p) { return CSS.supports('selector(:' + p + ')'); })
  .map(function (p) { return p.replace(/\\(.*\\)$/, ''); });
document.getElementById('o').textContent = JSON.stringify({props: Object.keys(names), pseudo: pseudo});
</script>"""


def find_chromium(given):
    for c in [given, os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]:
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def ask(chromium):
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "names.html"
        page.write_text(PAGE % json.dumps(CANDIDATES))
        out = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp}/profile",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=90,
        )
        version = subprocess.run([chromium, "--version"], capture_output=True, text=True).stdout.strip()
    m = re.search(r'<pre id="o">(.*?)</pre>', out.stdout, re.S)
    if not m:
        raise SystemExit(f"Chromium printed no names: {out.stderr[-500:]}")
    data = json.loads(html.unescape(m.group(1)))
    return version, sorted(set(data["props"])), sorted(set(data["pseudo"]))


def rust(version, props, pseudo):
    def table(name, doc, items):
        lines = [f"/// {doc}", f"pub(crate) const {name}: &[&str] = &["]
        lines += [f'    "{i}",' for i in items]
        lines.append("];")
        return "\n".join(lines)

    return "\n\n".join([
        "//! The CSS names Chromium knows, sorted (binary search): written by\n"
        "//! `corpus/oracle/chromium_names.py` from " + version.replace("\n", " ") + ";\n"
        "//! do not edit by hand.",
        table("PROPERTIES", "Property names (longhands, shorthands and `-webkit-` aliases).", props),
        table("PSEUDO_CLASSES", "Pseudo-class names (functional ones without their arguments).", pseudo),
    ]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chromium")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    chromium = find_chromium(args.chromium)
    if not chromium:
        print("no Chromium found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    text = rust(*ask(chromium))
    if args.check:
        old = OUT.read_text() if OUT.exists() else ""
        strip = lambda t: "\n".join(l for l in t.splitlines() if not l.startswith("//!"))
        if strip(old) != strip(text):
            print(f"{OUT.relative_to(REPO)} differs from what this Chromium knows", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
