"""The documents of the index as built from one leaf page: the leaf's own row and a row per
entry, with the text sqlite stores.

Invariant: an entry row inherits what its leaf says unless it says otherwise: its type falls
back to the leaf's, and its expiry and review dates are the earlier of its own and the leaf's;
every text is valid UTF-8 (bytes the page could not decode become U+FFFD).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wikimem.wiki import markdown


def iso_date(value: Any) -> str | None:
    """A frontmatter or meta date as `YYYY-MM-DD`, or None when absent or unreadable."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10]).isoformat()
        except ValueError:
            return None
    return None


def earliest(*dates: str | None) -> str | None:
    present = [d for d in dates if d]
    return min(present) if present else None


def clean(text: Any) -> str:
    """Text sqlite can store: undecodable bytes (kept by read_text) become U+FFFD."""
    if text is None:
        return ""
    raw = str(text)
    return raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass(frozen=True)
class Row:
    """One document of the index, as built from a page."""

    path: str
    entry: str
    title: str
    summary: str
    body: str
    context: str
    leaf_title: str
    type: str | None
    expires: str | None
    review_by: str | None


def page_rows(path: str, text: str) -> list[Row]:
    """The leaf row and one row per entry; dates and type are inherited from the leaf."""
    page = markdown.parse_page(clean(text))
    meta: Mapping[str, Any] = page.meta if isinstance(page.meta, Mapping) else {}
    leaf_title = clean(page.title) or path
    leaf_type = clean(meta.get("type") or "").strip() or None
    leaf_expires = iso_date(meta.get("expires"))
    leaf_review = iso_date(meta.get("review-by"))
    context = f"{leaf_title} {path.replace('/', ' ')}"
    rows = [
        Row(
            path,
            "",
            leaf_title,
            clean(meta.get("summary") or "").strip(),
            page.head.strip(),
            path.replace("/", " "),
            leaf_title,
            leaf_type,
            leaf_expires,
            leaf_review,
        )
    ]
    for item in page.entries:
        rows.append(
            Row(
                path,
                item.id,
                item.title,
                "",
                item.body,
                context,
                leaf_title,
                item.meta.get("type") or leaf_type,
                earliest(leaf_expires, iso_date(item.meta.get("expires"))),
                earliest(leaf_review, iso_date(item.meta.get("review-by"))),
            )
        )
    return rows
