"""Pages of the shared corpus for the Python tests and benches, and WARC files
written from them (warcio)."""

import gzip
import io
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def shared_corpus():
    """The shared corpus folder, or None."""
    path = Path(os.environ.get("WHITTLE_SHARED_CORPUS", ROOT.parent / "shared" / "corpus"))
    return path if (path / "article-extraction-benchmark" / "ground-truth.json").is_file() else None


MISSING = (
    "the shared corpus (../shared/corpus beside the checkout, or $WHITTLE_SHARED_CORPUS) is not here: "
    "the tests that read real pages skip"
)


def article_pages(limit=None):
    """(name, html bytes, url, truth text) of the article-extraction benchmark's pages."""
    base = shared_corpus() / "article-extraction-benchmark"
    truth = json.loads((base / "ground-truth.json").read_text(encoding="utf-8"))
    out = []
    for name in sorted(truth):
        path = base / "html" / f"{name}.html.gz"
        if not path.is_file():
            continue
        out.append((name, gzip.decompress(path.read_bytes()), truth[name]["url"], truth[name]["articleBody"]))
        if limit and len(out) == limit:
            break
    return out


def fixture_pages():
    """(url, html bytes) of the repository's fixture pages (corpus/fixtures)."""
    pages = sorted((ROOT / "corpus" / "fixtures").glob("*.html"))
    return [(f"https://fixtures.example/{p.name}", p.read_bytes()) for p in pages]


def write_warc(path, pages, gzipped=True, extra=True):
    """Writes a WARC of `pages` ((url, html bytes) pairs) as response records,
    each with its request record, plus (with `extra`) a warcinfo, a revisit
    and a non-HTML response, as a crawler writes them."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=gzipped)
        if extra:
            writer.write_record(writer.create_warcinfo_record(os.path.basename(str(path)), {"software": "whittle tests"}))
        for url, body in pages:
            request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "example.org")], is_http_request=True)
            writer.write_record(writer.create_warc_record(url, "request", http_headers=request))
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=headers))
        if extra:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record("https://example.org/logo.png", "response",
                                                          payload=io.BytesIO(b"\x89PNG\r\n\x1a\n"), http_headers=headers))
            if pages:
                url, _ = pages[0]
                writer.write_record(writer.create_revisit_record(url, digest="sha1:AAAA", refers_to_uri=url,
                                                                 refers_to_date="2026-01-01T00:00:00Z"))
