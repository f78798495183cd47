"""`whittle research --warc` on WARC files warcio writes from corpus pages:
one line per HTML page, its text what `whittle.extract` gives, and every
other record counted."""

import gzip
import json
import subprocess

import corpus_pages
import whittle

CT = "text/html; charset=utf-8"


def research(whittle_cmd, *args):
    run = subprocess.run([*whittle_cmd, "research", "--warc", *map(str, args)], capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    return [json.loads(line) for line in run.stdout.decode().splitlines()], run.stderr.decode()


def test_research_warc_digests_every_page(warc_pages, tmp_path, whittle_cmd):
    pages = warc_pages
    warc = tmp_path / "pages.warc.gz"
    corpus_pages.write_warc(warc, pages)
    lines, summary = research(whittle_cmd, warc)
    assert len(lines) == len(pages) and all(line["ok"] for line in lines)
    by_url = dict(pages)
    assert sorted(line["url"] for line in lines) == sorted(by_url)
    for line in lines:
        html = by_url[line["url"]]
        assert line["text"] == whittle.extract(html, line["url"], content_type=CT), line["url"]
        # The same digest, numbered by its record instead of 1.
        own = whittle.digest(html, line["url"], content_type=CT).text
        assert line["digest"] == own.replace("## [1] ", f"## [{line['index']}] ", 1)
        assert line["status"] == 200 and line["date"]
    # warcinfo, the requests, a PNG and a revisit are counted, not printed.
    assert f"{2 * len(pages) + 3} records" in summary and f"{len(pages)} digested" in summary


def test_research_warc_survives_a_truncated_archive(tmp_path, whittle_cmd):
    pages = [(f"https://example.org/{i}", f"<title>Page {i}</title><p>Text of page {i}.</p>".encode()) for i in range(50)]
    whole = tmp_path / "whole.warc.gz"
    corpus_pages.write_warc(whole, pages, extra=False)
    data = whole.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) // 2])
    lines, summary = research(whittle_cmd, cut, whole)
    ok = [line for line in lines if line["ok"]]
    bad = [line for line in lines if not line["ok"]]
    assert len(bad) == 1 and bad[0]["error"]["code"] in ("truncated", "bad_record")
    assert 50 + 20 <= len(ok) < 100
    assert gzip.decompress(data)  # the whole archive is sound


def test_a_str_page_and_its_bytes_agree(articles):
    _, html, url, _ = articles[0]
    assert whittle.extract(html.decode("utf-8", "replace"), url) == whittle.extract(html, url, content_type=CT)
