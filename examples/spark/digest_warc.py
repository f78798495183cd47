"""Digest every HTML page of a set of WARC files with whittle, on Spark.

One row per HTML response record: its URL, WARC date, HTTP status, whether
whittle digested it, the page's title, byline, date, site and language, its
digest (a few hundred tokens) and its main content as plain text, or the
error that stopped it. Records that are not pages (requests, metadata,
revisits, non-HTML responses) are counted, not written, and every partition
reports what it read, so no record goes missing unnoticed.

    spark-submit --master local[2] examples/spark/digest_warc.py \\
        --output out/ a.warc.gz b.warc.gz
    spark-submit examples/spark/digest_warc.py --input-list warcs.txt \\
        --output s3a://bucket/digests/ --format parquet

Inputs are WARC paths (`.warc` or `.warc.gz`) or a file listing them, one per
line: local paths and `file://`, `http(s)://` (streamed), and anything fsspec
opens (`s3://`/`s3a://` with s3fs, `hdfs://` with pyarrow, `gs://` with gcsfs)
on the executors. Each WARC is read as a stream, record by record, on the
executor that got it (FastWARC); a WARC that cannot be opened or ends early is counted
as a failure of its partition, never the job's end.

Every executor needs the `whittle` and `fastwarc` packages (see the README's
section on Spark: an image, or `--archives` with a packed environment).
"""

import argparse
import json
import sys
import time
from urllib.request import urlopen

from pyspark import AccumulatorParam
from pyspark.sql import Row, SparkSession
from pyspark.sql.types import BooleanType, IntegerType, LongType, StringType, StructField, StructType

SCHEMA = StructType(
    [
        StructField("warc", StringType(), False),
        StructField("record", LongType(), False),
        StructField("url", StringType(), True),
        StructField("date", StringType(), True),
        StructField("status", IntegerType(), True),
        StructField("ok", BooleanType(), False),
        StructField("title", StringType(), True),
        StructField("byline", StringType(), True),
        StructField("published", StringType(), True),
        StructField("site", StringType(), True),
        StructField("language", StringType(), True),
        StructField("digest", StringType(), True),
        StructField("text", StringType(), True),
        StructField("tokens", IntegerType(), True),
        StructField("error", StringType(), True),
    ]
)

HTML_TYPES = ("text/html", "application/xhtml+xml")


class PartitionCounts(AccumulatorParam):
    """Per-partition counts, merged on the driver: {partition: {what: n}}."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        for part, counts in b.items():
            mine = a.setdefault(part, {})
            for key, n in counts.items():
                mine[key] = mine.get(key, 0) + n
        return a


def open_warc(path):
    """A binary stream of the WARC at `path`, read as it goes."""
    if path.startswith(("http://", "https://")):
        return urlopen(path, timeout=60)
    if path.startswith("file://"):
        path = path[len("file://"):]
    if "://" not in path:
        return open(path, "rb")
    try:
        import fsspec
    except ImportError:
        raise OSError(f"{path.split('://')[0]}:// needs fsspec (and s3fs, pyarrow or gcsfs) on the executors") from None
    return fsspec.open(path, "rb").open()


def page_rows(path, counts, budget, max_bytes):
    """Rows of the HTML pages of one WARC; counts what it read in `counts`."""
    import whittle
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    def count(key, n=1):
        counts[key] = counts.get(key, 0) + n

    def failed(number, url, date, status, error):
        return Row(warc=path, record=number, url=url, date=date, status=status, ok=False, title=None, byline=None,
                   published=None, site=None, language=None, digest=None, text=None, tokens=None, error=error)

    count("warcs")
    try:
        stream = open_warc(path)
    except Exception as e:  # a WARC that cannot be opened fails alone
        count("warcs_failed")
        yield failed(0, None, None, None, f"open: {type(e).__name__}: {e}")
        return
    number = 0
    try:
        with stream:
            for record in ArchiveIterator(stream, parse_http=True):
                number += 1
                count("records")
                kind = record.record_type
                if kind != WarcRecordType.response:
                    count("skipped_revisit" if kind == WarcRecordType.revisit else "skipped_other")
                    continue
                http = record.http_headers
                content_type = http.get("Content-Type") if http is not None else None
                mime = (content_type or "").split(";")[0].strip().lower()
                if http is None or (mime and mime not in HTML_TYPES):
                    count("skipped_not_html")
                    continue
                url = record.headers.get("WARC-Target-URI")
                date = record.headers.get("WARC-Date")
                status = http.status_code
                count("pages")
                try:
                    body = record.reader.read(max_bytes + 1)
                    if len(body) > max_bytes:
                        raise ValueError(f"the page is over {max_bytes} bytes (--max-page-bytes)")
                    # A record cut short by the end of the file reads short:
                    # its Content-Length says so.
                    if len(body) < record.content_length:
                        raise EOFError(f"the record is truncated: {record.content_length - len(body)} bytes of it are missing")
                    d = whittle.digest(body, _absolute(url), budget=budget, content_type=content_type, main_text=True)
                except Exception as e:  # one bad record is one failed row
                    count("failed")
                    yield failed(number, url, date, status, f"{type(e).__name__}: {e}")
                    continue
                count("digested")
                yield Row(warc=path, record=number, url=url, date=date, status=status, ok=True, title=d.title,
                          byline=d.byline, published=d.date, site=d.site, language=d.language, digest=d.text,
                          text=d.main_text, tokens=d.tokens, error=None)
    except Exception as e:  # a corrupt WARC ends here, counted
        count("warcs_failed")
        yield failed(number + 1, None, None, None, f"read: {type(e).__name__}: {e}")


def _absolute(url):
    """The record's URL when whittle can use it as the page's address."""
    if url and "://" in url:
        return url.strip()
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("warcs", nargs="*", help="WARC paths or URLs")
    ap.add_argument("--input-list", help="a file (any path Spark reads) of WARC paths, one per line")
    ap.add_argument("--output", required=True, help="where the rows go (a directory Spark writes)")
    ap.add_argument("--format", choices=["parquet", "json"], default="parquet", help="parquet (default) or json lines")
    ap.add_argument("--budget", type=int, default=400, help="tokens per page digest (default 400)")
    ap.add_argument("--max-page-bytes", type=int, default=10 * 1024 * 1024,
                    help="pages larger than this, decoded, are failed rows (default 10 MiB)")
    ap.add_argument("--partitions", type=int, default=0, help="partitions (default: one per WARC)")
    args = ap.parse_args(argv)

    spark = SparkSession.builder.appName("whittle-digest-warc").getOrCreate()
    sc = spark.sparkContext
    paths = list(args.warcs)
    if args.input_list:
        paths += [line.strip() for line in sc.textFile(args.input_list).collect()]
    paths = [p for p in paths if p and not p.startswith("#")]
    if not paths:
        ap.error("no WARC files: give paths or --input-list")

    counts = sc.accumulator({}, PartitionCounts())
    budget, max_bytes = args.budget, args.max_page_bytes

    def partition(index, lines):
        mine = {}
        try:
            for path in lines:
                yield from page_rows(path, mine, budget, max_bytes)
        finally:
            counts.add({index: mine})

    started = time.time()
    rdd = sc.parallelize(paths, args.partitions or len(paths)).mapPartitionsWithIndex(partition)
    rows = spark.createDataFrame(rdd, SCHEMA)
    writer = rows.write.mode("overwrite")
    (writer.parquet if args.format == "parquet" else writer.json)(args.output)
    seconds = time.time() - started

    total = {}
    for index in sorted(counts.value):
        part = counts.value[index]
        print(f"digest_warc: partition {index}: " + json.dumps(part, sort_keys=True), file=sys.stderr)
        for key, n in part.items():
            total[key] = total.get(key, 0) + n
    pages = total.get("pages", 0)
    print(
        f"digest_warc: {total.get('warcs', 0)} WARCs · {total.get('records', 0)} records · {pages} pages · "
        f"{total.get('digested', 0)} digested · {total.get('failed', 0)} failed · "
        f"{total.get('warcs_failed', 0)} WARCs failed · {seconds:.1f} s · {pages / seconds if seconds else 0:.1f} pages/s",
        file=sys.stderr,
    )
    print("digest_warc: totals " + json.dumps(total, sort_keys=True))
    spark.stop()


if __name__ == "__main__":
    main()
