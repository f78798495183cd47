from typing import Final, Literal, Optional, Sequence, Tuple, Union

__version__: Final[str]

Html = Union[str, bytes, bytearray]

class WhittleError(Exception):
    """whittle could not do what was asked (a page without the table asked
    for, or a bug in whittle); the message says which."""

class Element:
    """One element of a snapshot that has a ref (``[n]`` in the text)."""

    @property
    def ref(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def states(self) -> list[str]: ...

class Snapshot:
    """A page's observation: what a person would see and can act on."""

    @property
    def text(self) -> str:
        """The observation, the text a model reads."""
    @property
    def title(self) -> str: ...
    @property
    def url(self) -> str:
        """The page's URL, ``""`` without one."""
    @property
    def elements(self) -> list[Element]:
        """Every element with a ref, in ref order."""
    @property
    def counters(self) -> dict[str, Union[int, bool]]:
        """What was left out or withheld: ``omitted_not_visible``,
        ``redacted_fields``, ``frames_masked``, ``marks``,
        ``marks_truncated``, ``tree_lines``, ``tree_truncated``."""
    @property
    def diagnostics(self) -> list[str]:
        """What the engine recovered from (parse errors, skipped CSS)."""

class Digest:
    """A page's digest: its facts, outline and condensed text."""

    @property
    def title(self) -> str: ...
    @property
    def byline(self) -> Optional[str]: ...
    @property
    def date(self) -> Optional[str]:
        """``YYYY-MM-DD`` when the page gives an ISO date, else as written."""
    @property
    def site(self) -> Optional[str]: ...
    @property
    def language(self) -> Optional[str]:
        """The language the page declares (``lang``), as written."""
    @property
    def outline(self) -> list[str]: ...
    @property
    def text(self) -> str:
        """The digest as ``whittle research`` gives it for one page."""
    @property
    def links(self) -> int: ...
    @property
    def forms(self) -> int: ...
    @property
    def tokens(self) -> int:
        """The text's tokens (o200k, by whittle's estimate)."""
    @property
    def needs_scripts(self) -> bool:
        """Whether the page looks like it needs scripts to show its content."""
    @property
    def main_text(self) -> Optional[str]:
        """The main content as ``extract`` gives it, with ``main_text=True``."""

def snapshot(
    html: Html,
    url: Optional[str] = None,
    *,
    mode: Literal["full", "actions", "read"] = "full",
    budget: Optional[int] = 3000,
    viewport: Tuple[int, int] = (1280, 800),
    stylesheets: Sequence[str] = (),
    content_type: Optional[str] = None,
) -> Snapshot:
    """The page's observation, as ``whittle snapshot`` prints it.

    ``url`` resolves links and names the page; ``mode`` chooses what is
    shown; ``budget`` is the token budget the text folds to (``None``: no
    folding); ``stylesheets`` are CSS texts applied after the page's own
    (linked stylesheets are never fetched); ``content_type`` is the HTTP
    ``Content-Type`` of ``bytes`` (its charset is used).
    """

def extract(
    html: Html,
    url: Optional[str] = None,
    kind: Literal["text", "table", "list"] = "text",
    *,
    content_type: Optional[str] = None,
) -> str:
    """The page's main content as plain text, one block per line (what
    ``whittle extract`` prints); ``"table"``: the rows of its largest data
    table; ``"list"``: its repeated items. Raises ``WhittleError`` when the
    page has no table or list."""

def digest(
    html: Html,
    url: Optional[str] = None,
    *,
    budget: int = 400,
    content_type: Optional[str] = None,
    main_text: bool = False,
) -> Digest:
    """The page's digest within ``budget`` tokens (at least 40), as
    ``whittle research`` gives it for one page; with ``main_text=True`` also
    the main content as ``extract`` gives it (``.main_text``), from one
    parse."""

def main(argv: Sequence[str]) -> int:
    """Runs the ``whittle`` command (program name first); its exit code."""
