"""whittle from Python beside trafilatura and resiliparse, on the article-
extraction benchmark's pages, in one run.

For each extractor: F1 against the benchmark's truth (the upstream metric, as
`corpus/src/score.rs` computes it: 4-token shingles, per-page normalised
counts, F1 of the mean precision and recall) and milliseconds per page, in
this process. Then whittle's pages per second on 1 and 2 threads
(`extract`, and `digest(main_text=True)`, which is what the Spark job runs
per page), and the Spark job's pages per second in local[2] over WARC files
of the same pages.

    pip install ./python  # or a built wheel
    pip install trafilatura==2.3.1 lxml_html_clean resiliparse==2.0.0 warcio==1.8.0 fastwarc==2.0.0 pyspark==4.3.0
    python3 benches/python_throughput.py [--repeat 8] [--spark-repeat 40] [--no-spark] [--only whittle ...]

Needs the shared corpus (../shared/corpus beside the checkout, or
$WHITTLE_SHARED_CORPUS). An extractor that is not installed is reported as
such and left out.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests"))
import corpus_pages  # noqa: E402

import whittle  # noqa: E402

WORD = re.compile(r"\w+")


def shingles(text):
    tokens = WORD.findall(text)
    if not tokens:
        return Counter()
    n = 4
    return Counter(tuple(tokens[i:i + n]) for i in range(max(len(tokens) - n + 1, 1)))


def page_score(truth, extracted):
    t, p = shingles(truth), shingles(extracted)
    tp = sum((t & p).values())
    fn = sum((t - p).values())
    fp = sum((p - t).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def f1(scores):
    def precision(tp, fp, fn):
        return 1.0 if fp == 0 and fn == 0 else 0.0 if tp == 0 and fp == 0 else tp / (tp + fp)

    def recall(tp, fp, fn):
        return 1.0 if fp == 0 and fn == 0 else 0.0 if tp == 0 and fn == 0 else tp / (tp + fn)

    ps = [precision(*s) for s in scores if s[0] + s[1] > 0]
    rs = [recall(*s) for s in scores if s[0] + s[2] > 0]
    p = sum(ps) / len(ps) if ps else 0.0
    r = sum(rs) / len(rs) if rs else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def extractors():
    out = {
        "whittle.extract": lambda html, url: whittle.extract(html, url),
        "whittle.digest": lambda html, url: whittle.digest(html, url, main_text=True).main_text,
    }
    try:
        import trafilatura

        out["trafilatura 2.3"] = lambda html, url: trafilatura.extract(html, url=url) or ""
    except ImportError:
        print("trafilatura: not installed (pip install trafilatura==2.3.1 lxml_html_clean)")
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        out["resiliparse 2.0"] = lambda html, url: extract_plain_text(HTMLTree.parse_from_bytes(html), main_content=True)
    except ImportError:
        print("resiliparse: not installed (pip install resiliparse==2.0.0)")
    return out


def quality(pages, only):
    print(f"\n{len(pages)} pages, in this process: F1 and ms per page")
    print(f"{'extractor':<18} {'F1':>7} {'median ms':>10} {'p90 ms':>8} {'total s':>8}")
    for name, fn in extractors().items():
        if only and name.split()[0].split(".")[0] not in only:
            continue
        for html, url, _ in pages[:5]:
            fn(html, url)  # warm up (imports, caches)
        times, scores = [], []
        for html, url, truth in pages:
            t = time.perf_counter()
            text = fn(html, url)
            times.append((time.perf_counter() - t) * 1000)
            scores.append(page_score(truth, text))
        times.sort()
        print(f"{name:<18} {f1(scores):>7.4f} {statistics.median(times):>10.2f} {times[int(0.9 * (len(times) - 1))]:>8.2f} "
              f"{sum(times) / 1000:>8.2f}")


def rate(work, items, threads):
    t = time.perf_counter()
    if threads == 1:
        for item in items:
            work(item)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for _ in pool.map(work, items, chunksize=4):
                pass
    return len(items) / (time.perf_counter() - t)


def threads(pages, repeat):
    items = [(html, url) for html, url, _ in pages] * repeat
    print(f"\nwhittle on threads: {len(items)} pages ({repeat}× the set), pages/s")
    results = {}
    for name, work in [
        ("extract", lambda p: whittle.extract(p[0], p[1])),
        ("digest(main_text)", lambda p: whittle.digest(p[0], p[1], main_text=True)),
    ]:
        one = rate(work, items, 1)
        two = rate(work, items, 2)
        results[name] = (one, two)
        print(f"{name:<18} 1 thread {one:>7.1f}   2 threads {two:>7.1f}   ({two / one:.2f}×)")
    return results


def spark(pages, repeat, two_thread_rate):
    """The job over four WARCs holding `repeat` copies of the pages in all."""
    submit = shutil.which("spark-submit")
    if submit is None or shutil.which("java") is None:
        print("\nspark: skipped (needs pyspark's spark-submit and java on PATH)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        items = [(url, html) for html, url, _ in pages]
        warcs = []
        # Four WARCs, each `repeat / 4` copies of the set (URLs kept unique).
        per = max(repeat // 4, 1)
        for w in range(4):
            recs = [(f"{url}#{w}-{k}", html) for k in range(per) for url, html in items]
            path = tmp / f"pages-{w}.warc.gz"
            corpus_pages.write_warc(path, recs)
            warcs.append(path)
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
        t = time.perf_counter()
        run = subprocess.run(
            [submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false",
             str(ROOT / "examples" / "spark" / "digest_warc.py"), "--output", str(tmp / "out"), "--format", "parquet",
             *map(str, warcs)],
            capture_output=True, env=env,
        )
        wall = time.perf_counter() - t
        if run.returncode != 0:
            print("\nspark: the job failed:\n" + run.stderr.decode()[-3000:])
            return
        output = (run.stdout + run.stderr).decode()
        line = next((l for l in output.splitlines() if l.startswith("digest_warc: ") and " pages/s" in l), None)
        if line is None:
            print("\nspark: the job gave no summary:\n" + run.stderr.decode()[-3000:])
            return
        totals = json.loads(next(l for l in output.splitlines() if l.startswith("digest_warc: totals "))[20:])
        job_rate = float(line.rsplit(" · ", 1)[1].split()[0])
        print(f"\nspark local[2]: {totals['pages']} pages in 4 WARCs, {totals['digested']} digested, "
              f"{totals.get('failed', 0)} failed")
        print(f"  job (read WARCs, digest, write parquet): {job_rate:.1f} pages/s; with JVM start {totals['pages'] / wall:.1f}")
        print(f"  = {job_rate / two_thread_rate:.0%} of in-process digest(main_text) on 2 threads ({two_thread_rate:.1f} pages/s)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=8, help="copies of the page set for the rate runs (default 8)")
    ap.add_argument("--spark-repeat", type=int, default=40,
                    help="copies of the page set in the Spark job's WARCs (default 40: its start-up is seconds)")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--only", nargs="*", help="extractors to run (whittle, trafilatura, resiliparse)")
    args = ap.parse_args()
    if corpus_pages.shared_corpus() is None:
        print("python_throughput: skipped: " + corpus_pages.MISSING)
        return
    pages = [(html, url, truth) for _, html, url, truth in corpus_pages.article_pages()]
    print(f"whittle {whittle.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    quality(pages, args.only)
    results = threads(pages, args.repeat)
    if not args.no_spark:
        spark(pages, args.spark_repeat, results["digest(main_text)"][1])


if __name__ == "__main__":
    main()
