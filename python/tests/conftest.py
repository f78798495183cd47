import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_pages  # noqa: E402


def need(what, env, reason):
    """Skips with `reason`, or fails when `$env` is `require` (CI)."""
    if os.environ.get(env) == "require":
        pytest.fail(f"{what} is required here (${env}=require): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def articles():
    if corpus_pages.shared_corpus() is None:
        need("the shared corpus", "WHITTLE_CORPUS_TESTS", corpus_pages.MISSING)
    return corpus_pages.article_pages()


@pytest.fixture(scope="session")
def whittle_cmd():
    """The `whittle` command the package installs, as this interpreter runs it."""
    return [sys.executable, "-m", "whittle"]


@pytest.fixture(scope="session")
def warc_pages():
    """(url, html bytes) of real pages to write WARC files of: 30 of the shared
    corpus's articles, else the repository's own fixture pages."""
    if corpus_pages.shared_corpus() is not None:
        return [(url, html) for _, html, url, _ in corpus_pages.article_pages(limit=30)]
    return corpus_pages.fixture_pages()
