"""The wiki as JSON lines and back: one entry a line, for backups, moves and other tools.

Export reads the pages as they are (no model, no writes). Import treats every line as untrusted:
it is redacted, its path and body are validated by the same rules as a model's edit plan, and
it goes through the same wiki layer; lines already in the wiki are skipped, so importing the
same file twice changes nothing the second time. An import is one commit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from wikimem.config import Places, Settings
from wikimem.errors import WikimemError
from wikimem.indexing.plan import ALREADY_SAID, MAX_EDITS, Note, RawPlan, validate
from wikimem.redaction.redact import redact
from wikimem.wiki.change import Change, commit_change
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import open_repo

SCHEMA = 1
NO_CHANGE = ALREADY_SAID
DUPLICATE = "a second edit of the same entry in one plan"


@dataclass
class Imported:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    redacted: int = 0
    rejected: list[str] = field(default_factory=list)  # "line N: path#entry: why"
    commit: str | None = None


def export_lines(places: Places, settings: Settings) -> Iterator[dict[str, Any]]:
    """One object per entry of every leaf, in path then page order."""
    wiki = Wiki(places.wiki)
    repo = open_repo(places, settings)
    history = repo.has_repo() and repo.head() is not None
    for path in wiki.leaves():
        leaf = wiki.read_leaf(path)
        if leaf is None:
            continue
        last = repo.log(wiki.leaf_file(path), limit=1) if history else []
        provenance = {"commit": last[0].sha, "date": last[0].date} if last else {}
        for entry in leaf.page.entries:
            yield {
                "schema": SCHEMA,
                "path": path,
                "entry": entry.id,
                "title": entry.title,
                "type": entry.meta.get("type") or leaf.type or "semantic",
                "body": entry.body,
                "meta": dict(entry.meta),
                "leaf_title": leaf.title,
                "leaf_summary": leaf.summary,
                "provenance": provenance,
            }


def parse_line(number: int, text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    try:
        item = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WikimemError(f"line {number} is not JSON ({exc.msg}); nothing imported") from exc
    if not isinstance(item, dict):
        raise WikimemError(f"line {number} is not a JSON object; nothing imported")
    schema = item.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise WikimemError(f"line {number} has no schema version; nothing imported")
    if schema > SCHEMA:
        raise WikimemError(
            f"line {number} was written by a newer wikimem (schema {schema}; this "
            f"one reads up to {SCHEMA}): upgrade wikimem to import it"
        )
    return item


def to_edit(item: dict[str, Any], result: Imported) -> dict[str, Any]:
    """The line as an untrusted plan edit, its text redacted on the way in."""
    text = {}
    for key in ("title", "body", "leaf_title", "leaf_summary"):
        value, kinds = redact(str(item.get(key) or ""))
        text[key] = value
        result.redacted += len(kinds)
    return {
        "action": "add",
        "leaf": item.get("path"),
        "entry": item.get("entry") or "",
        "type": item.get("type"),
        "meta": item.get("meta"),
        "reason": "imported",
        **text,
    }


def import_lines(
    places: Places, settings: Settings, lines: Iterable[str], source: str = "a file"
) -> Imported:
    """Merge exported lines into the wiki: new entries added, changed ones updated."""
    items = [
        (n, item) for n, line in enumerate(lines, 1) if (item := parse_line(n, line)) is not None
    ]
    result = Imported()
    edits = [(n, to_edit(item, result)) for n, item in items]

    def work(change: Change) -> None:
        for start in range(0, len(edits), MAX_EDITS):
            chunk = edits[start : start + MAX_EDITS]
            plan = validate(RawPlan("import", tuple(e for _, e in chunk)), change.wiki.entry_bodies)
            for note in plan.rejected:
                tally(result, chunk, note)
            for edit in plan.edits:
                change.files.add(change.wiki.leaf_file(edit.leaf))
                if edit.action == "add":
                    result.added += 1
                else:
                    result.updated += 1
            applied = change.wiki.apply(plan.edits, change.date)
            for topic in applied.topics:
                change.topics.add(topic)

    names = f"{len(items)} line(s) from {source}"
    result.commit = (
        commit_change(
            places,
            settings,
            f"Import memory\n\nMerged {names} with `wikimem import`.\n\nWikimem-Action: import\n",
            work,
            create=True,
        )
        if items
        else None
    )
    return result


def tally(result: Imported, chunk: list[tuple[int, dict[str, Any]]], note: Note) -> None:
    if note.reason in (NO_CHANGE, DUPLICATE):
        result.unchanged += 1
        return
    number = chunk[note.index][0] if note.index < len(chunk) else 0
    item = chunk[note.index][1] if note.index < len(chunk) else {}
    result.rejected.append(f"line {number}: {item.get('leaf')}#{item.get('entry')}: {note.reason}")
