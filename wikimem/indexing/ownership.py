"""Hand-written text is the person's: the lines of an entry a person wrote since wikimem last
wrote it, and whether an edit keeps them.

Invariant: an edit keeps the person's lines when its new body holds every one of them, verbatim
and in order (it may add around them); a remove never keeps them. An edit that does not keep
them is held for review (see `Indexer.settle`), never applied silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wikimem.wiki import markdown
from wikimem.wiki.lint import SYNC_CONFLICT

_BREAK = re.compile(r"\r\n|\r|\n")  # as markdown splits a page
MAX_SHOWN = 3  # person lines quoted in a hold's reason


def entry_person_lines(text: str, owners: Sequence[bool], entry_id: str) -> list[str]:
    """The non-blank body lines of the entry `entry_id` in a page's `text` whose line `owners`
    (one bool per line of `text`, from the history) says a person wrote."""
    entry = markdown.parse_page(text).entry(entry_id)
    if entry is None:
        return []
    body = set(entry.body.split("\n"))
    found = []
    for offset, line in enumerate(_BREAK.split(entry.text)[1:], start=1):
        index = entry.line - 1 + offset
        if index < len(owners) and owners[index] and line.strip() and line in body:
            found.append(line)
    return found


def person_entries(text: str, owners: Sequence[bool]) -> tuple[str, ...]:
    """Ids of the entries of a page's `text` that hold lines a person wrote (for the prompt)."""
    return tuple(
        entry.id
        for entry in markdown.parse_page(text).entries
        if entry_person_lines(text, owners, entry.id)
    )


def dropped(person: Sequence[str], new_body: str | None) -> list[str]:
    """The person's lines a new body (None: the entry removed) would drop or rewrite."""
    if new_body is None:
        return list(person)
    new = [line.rstrip() for line in new_body.split("\n")]
    at, lost = 0, []
    for line in person:
        try:
            at = new.index(line.rstrip(), at) + 1
        except ValueError:
            lost.append(line)
    return lost


def unsettled(text: str, entry_id: str) -> bool:
    """Whether the entry `entry_id` of a page's `text` holds a conflict `wikimem sync` kept both
    ways for a person to settle."""
    entry = markdown.parse_page(text).entry(entry_id) if text else None
    return entry is not None and any(SYNC_CONFLICT.match(line) for line in _BREAK.split(entry.text))


def unsettled_ids(text: str) -> frozenset[str]:
    """The ids of a page's entries that hold a conflict nobody settled, the page parsed once."""
    if not text:
        return frozenset()
    return frozenset(
        entry.id
        for entry in markdown.parse_page(text).entries
        if any(SYNC_CONFLICT.match(line) for line in _BREAK.split(entry.text))
    )


def hold_reason(where: str, lost: Sequence[str]) -> str:
    shown = "; ".join(f'"{markdown.plain_line(line, 60)}"' for line in lost[:MAX_SHOWN])
    more = f" and {len(lost) - MAX_SHOWN} more" if len(lost) > MAX_SHOWN else ""
    return f"would drop or rewrite the person's lines in {where}: {shown}{more}"
