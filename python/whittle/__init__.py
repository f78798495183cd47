"""whittle: web pages as a few hundred tokens of plain text for AI agents.

- ``snapshot(html, url=None, ...)``: what a person would see and can act on,
  as the text a model reads (``.text``), with the elements it can act on
  (``.elements``), what was left out (``.counters``) and what the engine
  recovered from (``.diagnostics``).
- ``extract(html, url=None, kind="text")``: the main content as plain text,
  one block per line (``"table"``: the largest table; ``"list"``: the
  repeated items).
- ``digest(html, url=None, budget=400)``: title, byline, date, site,
  language, outline and the main content condensed to a token budget.

``html`` is ``bytes`` (decoded as a browser would: byte order mark, the
``content_type`` you pass, ``<meta charset>``) or ``str``. The work runs with
the GIL released. Bad arguments raise ``ValueError`` or ``TypeError``;
``WhittleError`` is for what whittle could not do.
"""

from ._whittle import Digest, Element, Snapshot, WhittleError, __version__, digest, extract, snapshot

__all__ = ["Digest", "Element", "Snapshot", "WhittleError", "__version__", "digest", "extract", "snapshot"]
