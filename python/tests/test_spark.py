"""The Spark job (examples/spark/digest_warc.py) in local mode, run once over
WARC files this test writes: two of real pages (one gzipped, one not), one
cut short, one holding an oversized page, and one that does not exist.
Each page is one row whose text is what `whittle extract` prints for it,
and every record is accounted for."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import corpus_pages
import whittle
from conftest import need

JOB = corpus_pages.ROOT / "examples" / "spark" / "digest_warc.py"
CT = "text/html; charset=utf-8"
SMALL = [("https://example.org/a", b"<title>A</title><p>Alpha page.</p>"),
         ("https://example.org/b", b"<title>B</title><p>Beta page.</p>")]


def spark_submit():
    try:
        import fastwarc  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError:
        need("pyspark", "WHITTLE_SPARK_TESTS", "pyspark or fastwarc is not installed (pip install pyspark==4.3.0 fastwarc==2.0.0)")
    if shutil.which("java") is None:
        need("Java", "WHITTLE_SPARK_TESTS", "no java on PATH (apt-get install -y openjdk-17-jre-headless)")
    submit = shutil.which("spark-submit")
    if submit is None:
        need("spark-submit", "WHITTLE_SPARK_TESTS", "pyspark's spark-submit is not on PATH")
    return submit


@pytest.fixture(scope="module")
def job(warc_pages, tmp_path_factory):
    submit = spark_submit()
    tmp = tmp_path_factory.mktemp("spark")
    half = len(warc_pages) // 2
    first, second = tmp / "a.warc.gz", tmp / "b.warc"
    corpus_pages.write_warc(first, warc_pages[:half])
    corpus_pages.write_warc(second, warc_pages[half:], gzipped=False)
    whole = tmp / "small.warc.gz"
    corpus_pages.write_warc(whole, SMALL, extra=False)
    cut = tmp / "cut.warc.gz"
    cut.write_bytes(whole.read_bytes()[:-40])
    big = tmp / "big.warc"
    corpus_pages.write_warc(big, [("https://example.org/big", b"<p>" + b"x" * 3_000_000)], gzipped=False, extra=False)
    out = tmp / "out"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    run = subprocess.run(
        [submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false", str(JOB), "--output", str(out),
         "--format", "json", "--max-page-bytes", "2000000", str(first), str(second), str(cut), str(big),
         str(tmp / "absent.warc")],
        capture_output=True, timeout=600, env=env,
    )
    assert run.returncode == 0, run.stderr.decode()[-4000:]
    # Spark writes no key for a null column.
    rows = [json.loads(line) for part in sorted(out.glob("part-*")) for line in part.read_text().splitlines()]
    totals = json.loads(next(l for l in run.stdout.decode().splitlines() if l.startswith("digest_warc: totals "))[20:])
    return {"pages": warc_pages, "rows": rows, "totals": totals, "log": run.stderr.decode()}


def test_every_page_is_one_row_with_extracts_text(job):
    by_url = dict(job["pages"])
    rows = [r for r in job["rows"] if r.get("url") in by_url]
    assert sorted(r["url"] for r in rows) == sorted(by_url)
    assert all(r["ok"] for r in rows), [r["error"] for r in rows if not r["ok"]]
    for r in rows:
        html = by_url[r["url"]]
        assert r["text"] == whittle.extract(html, r["url"], content_type=CT), r["url"]
        assert r["digest"] == whittle.digest(html, r["url"], content_type=CT).text
        assert r["status"] == 200 and r["date"] and r["warc"].endswith(("a.warc.gz", "b.warc"))


def test_what_cannot_be_read_is_a_row_and_a_count(job):
    others = [r for r in job["rows"] if r.get("url") not in dict(job["pages"])]
    # The cut WARC's first page, then its cut record; the oversized page;
    # the missing file.
    assert sorted(r.get("title") for r in others if r["ok"]) == ["A"]
    errors = sorted(r["error"] for r in others if not r["ok"])
    assert len(errors) == 3, errors
    assert "EOFError: the record is truncated" in errors[0]
    assert "over 2000000 bytes" in errors[1]
    assert errors[2].startswith("open: FileNotFoundError")


def test_every_record_is_counted(job):
    n, t = len(job["pages"]), job["totals"]
    assert t["warcs"] == 5 and t["warcs_failed"] == 1
    # Two WARCs of pages: a warcinfo, a request and a response per page, a
    # PNG and a revisit each; the cut one: 4 records; the big one: 2.
    assert t["records"] == 2 * 3 + 2 * n + 4 + 2
    assert t["pages"] == n + 2 + 1 and t["digested"] == n + 1 and t["failed"] == 2
    assert t["skipped_not_html"] == 2 and t["skipped_revisit"] == 2
    assert all(f"partition {i}" in job["log"] for i in range(5))
