"""Resolving what a person or agent asks to see: `PATH`, `PATH#entry`, `PATH#entry@commit`.

A read path: it never writes. A reference that does not resolve raises NotFound (one that is not
even a wiki path, UsageError) with the nearest existing references, so `wikimem show` can
suggest them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wikimem.errors import NotFound, UsageError, WikiError
from wikimem.frozen import frozen
from wikimem.fsio import read_text
from wikimem.wiki.pages import (
    LEAF_FILE,
    MAX_PAGE_BYTES,
    PROFILE_FILE,
    TOPIC_FILE,
    Wiki,
    split_ref,
)

if TYPE_CHECKING:  # the parser is loaded where a page is parsed: `show` prints most pages as
    # their files, and its start should cost what click's does
    from wikimem.wiki import markdown
    from wikimem.wiki.markdown import Page


@frozen
class Shown:
    ref: str
    file: str  # wiki-relative
    kind: str  # profile | topic | leaf | entry
    text: str  # exact text shown with --raw (the file, or the entry's section)
    parsed: Page | None = None  # None: a whole page, parsed only when asked (`page`)
    entry: markdown.Entry | None = None
    rev: str | None = None

    @property
    def page(self) -> Page:
        # `show` of a whole page prints its text; parsing it (and loading the Markdown and
        # YAML parsers) waits for --json, --why or an entry
        from wikimem.wiki import markdown

        return self.parsed if self.parsed is not None else markdown.parse_page(self.text)


def known_refs(wiki: Wiki) -> list[str]:
    refs = list(wiki.topics())
    refs.extend(wiki.leaves())
    return refs


def suggest(wiki: Wiki, wanted: str, pool: list[str] | None = None) -> str:
    import difflib  # only a miss needs it; `show` is the command a person runs most

    pool = known_refs(wiki) if pool is None else pool
    close = difflib.get_close_matches(wanted, pool, n=3, cutoff=0.4)
    if not close:
        close = [p for p in pool if wanted.split("/")[0] in p][:3]
    return f"; did you mean: {', '.join(close)}" if close else ""


def resolve(wiki: Wiki, ref: str | None, read_at: Callable[[str, str], str] | None = None) -> Shown:
    """Find the page (and entry) a reference names; `read_at(rev, file)` reads old versions."""
    path, entry_id, rev = split_ref(ref or "")
    if not path or path.upper() in {PROFILE_FILE, "PROFILE"}:
        file, kind = PROFILE_FILE, "profile"
    else:
        path = path.removesuffix("/" + LEAF_FILE).removesuffix("/" + TOPIC_FILE)
        try:
            path = wiki.check_path(path)
        except WikiError as exc:
            raise UsageError(f"{exc}{suggest(wiki, path.lower())}") from exc
        if "/" not in path and (wiki.root / path / TOPIC_FILE).is_file():
            file, kind = f"{path}/{TOPIC_FILE}", "topic"
        else:
            file, kind = f"{path}/{LEAF_FILE}", "leaf"
    if rev is not None:
        if read_at is None:
            raise NotFound(f"{ref}: versions need the wiki's git history")
        text = read_at(rev, file)
    else:
        target = wiki.confine(file)
        if not target.is_file():
            if kind == "profile":
                raise NotFound("the wiki is empty here: run `wikimem init` first")
            raise NotFound(f"no page at {path}{suggest(wiki, path)}")
        if target.stat().st_size > MAX_PAGE_BYTES:
            raise WikiError(f"{file}: page is over {MAX_PAGE_BYTES} bytes; split it by hand")
        text = read_text(target)
    if entry_id is None:
        return Shown(ref or "PROFILE", file, kind, text, rev=rev)
    from wikimem.wiki import markdown

    page = markdown.parse_page(text)
    entry = page.entry(entry_id)
    if entry is None:
        ids = [e.id for e in page.entries]
        at = f" at {rev}" if rev is not None else ""
        raise NotFound(
            f"no entry {entry_id!r} in {path or 'PROFILE'}{at}{suggest(wiki, entry_id, ids)}"
        )
    return Shown(ref or "", file, "entry", entry.text, page, entry, rev)
