"""Forgetting memory and getting it back: the trash inside the wiki.

The trash mirrors the wiki under the hidden folder `.trash/`: what was forgotten from leaf
`build/bun` sits in `.trash/build/bun/MEMORY.md`, a page with the leaf's frontmatter and the
forgotten entries. Hidden folders are never part of topics, leaves, search, context or the profile,
so forgotten memory stops being recalled at once. Forget, restore and purge are one commit each.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wikimem.config import Places, Settings
from wikimem.errors import NotFound, UsageError, WikiError
from wikimem.wiki import markdown
from wikimem.wiki.change import Change, commit_change
from wikimem.wiki.markdown import Entry, Page
from wikimem.wiki.pages import LEAF_FILE, TRASH, Wiki, split_ref
from wikimem.wiki.workspace import open_repo


@dataclass(frozen=True)
class Trashed:
    """One forgotten entry (or, with `entry` None, a forgotten leaf page without entries)."""

    path: str
    entry: str | None
    title: str

    @property
    def ref(self) -> str:
        return f"{self.path}#{self.entry}" if self.entry else self.path


@dataclass(frozen=True)
class Moved:
    ref: str
    entries: tuple[str, ...]
    commit: str | None


@dataclass(frozen=True)
class Purged:
    items: tuple[Trashed, ...]
    files: tuple[str, ...]
    commit: str | None
    rewrite: str  # the command that would also remove the trash from git history


def trash_file(path: str) -> str:
    return f"{TRASH}/{path}/{LEAF_FILE}"


def parse_ref(wiki: Wiki, ref: str) -> tuple[str, str | None]:
    path, entry, rev = split_ref(ref)
    if rev is not None:
        raise UsageError(f"{ref}: name a leaf or an entry, without @COMMIT")
    try:
        return wiki.check_path(path.removesuffix("/" + LEAF_FILE)), entry
    except WikiError as exc:
        raise UsageError(str(exc)) from exc


def listing(wiki: Wiki) -> list[Trashed]:
    """Everything in the trash, sorted by path then entry order."""
    base = wiki.root / TRASH
    found: list[Trashed] = []
    for folder, dirs, files in os.walk(base):
        dirs.sort()
        if LEAF_FILE not in files:
            continue
        path = Path(folder).relative_to(base).as_posix()
        page = wiki.read_page(trash_file(path))
        if page is None:
            continue
        if not page.entries:
            found.append(Trashed(path, None, page.title or path))
        found.extend(Trashed(path, e.id, e.title) for e in page.entries)
    return found


def put_entry(page: Page, entry: Entry) -> Page:
    """`page` with `entry` added, or replacing the entry of the same id. The entry moves as
    written (meta line, spacing, newlines): re-rendering it would change a person's bytes."""
    if page.entry(entry.id) is not None:
        return markdown.replace_entry_text(page, entry.id, entry.own_text)
    return markdown.add_entry_text(page, entry.own_text)


def put_entries(page: Page, entries: Sequence[Entry]) -> Page:
    """`put_entry` for many entries: those new to the page are appended with one parse."""
    fresh = []
    for entry in entries:
        if page.entry(entry.id) is not None:
            page = markdown.replace_entry_text(page, entry.id, entry.own_text)
        else:
            fresh.append(entry.own_text)
    return markdown.add_entries_text(page, fresh) if fresh else page


def empty_like(page: Page, path: str) -> Page:
    """A page holding `page`'s frontmatter and head, without its entries."""
    meta = {k: page.meta[k] for k in ("title", "summary", "type") if page.meta.get(k)}
    return markdown.new_page(meta, page.title or path, newline=page.newline)


def keep_only(page: Page, ids: set[str]) -> Page:
    """`page` without the entries whose ids are not in `ids` (frontmatter and head kept)."""
    for entry in page.entries:
        if entry.id not in ids:
            page = markdown.remove_entry(page, entry.id)
    return page


def unsay_topic(change: Change, path: str, gone: set[str]) -> None:
    """Clear a topic summary that repeats forgotten text; recompiling derives a new one."""
    relpath = change.wiki.topic_file(path.split("/", 1)[0])
    page = change.wiki.read_page(relpath)
    if page is not None and str(page.meta.get("summary") or "") in gone - {""}:
        change.write(relpath, markdown.with_meta(page, "summary", "").render())


def both_pages(wiki: Wiki, path: str) -> tuple[str, str, Page | None, Page | None]:
    """A leaf's file and its trash file, with the pages each holds (None when absent)."""
    leaf_file, bin_file = wiki.leaf_file(path), trash_file(path)
    return leaf_file, bin_file, wiki.read_page(leaf_file), wiki.read_page(bin_file)


def forget(places: Places, settings: Settings, ref: str) -> Moved:
    """Move a leaf, or one entry of it, to the trash."""
    wiki = Wiki(places.wiki)
    path, entry_id = parse_ref(wiki, ref)
    moved: list[str] = []

    def work(change: Change) -> None:
        leaf_file, bin_file, leaf, trashed = both_pages(wiki, path)
        if leaf is None:
            raise NotFound(f"no leaf at {path} (a leaf is a folder holding {LEAF_FILE})")
        if entry_id is None:
            moved.extend(e.id for e in leaf.entries)
            if trashed is None:
                change.write(bin_file, leaf.render())  # byte for byte: restore gives it back
            else:
                for each in leaf.entries:
                    trashed = put_entry(trashed, each)
                change.write(bin_file, trashed.render())
            change.remove(leaf_file)
            unsay_topic(
                change,
                path,
                {str(leaf.meta.get("summary") or "")} | {e.title for e in leaf.entries},
            )
        else:
            entry = leaf.entry(entry_id)
            if entry is None:
                known = ", ".join(e.id for e in leaf.entries) or "none"
                raise NotFound(f"no entry {entry_id!r} in {path} (entries: {known})")
            moved.append(entry.id)
            change.write(bin_file, put_entry(trashed or empty_like(leaf, path), entry).render())
            kept = markdown.with_meta(markdown.remove_entry(leaf, entry_id), "updated", change.date)
            if str(kept.meta.get("summary") or "") == entry.title:
                # the summary was taken from this entry's title: it must not outlive it
                rest = kept.entries[0].title if kept.entries else ""
                kept = markdown.with_meta(kept, "summary", rest)
            change.write(leaf_file, kept.render())
            unsay_topic(change, path, {entry.title})
        change.touch(path)

    target = f"{path}#{entry_id}" if entry_id else path
    sha = commit_change(
        places,
        settings,
        message(
            "Forget",
            target,
            f"Moved to the trash by `wikimem forget`; `wikimem restore {target}` brings it back.",
        ),
        work,
    )
    return Moved(target, tuple(moved), sha)


def restore(places: Places, settings: Settings, ref: str) -> Moved:
    """Bring a forgotten leaf, or one forgotten entry, back from the trash."""
    wiki = Wiki(places.wiki)
    path, entry_id = parse_ref(wiki, ref)
    moved: list[str] = []

    def work(change: Change) -> None:
        leaf_file, bin_file, leaf, trashed = both_pages(wiki, path)
        if trashed is None:
            raise NotFound(f"nothing from {path} is in the trash (see `wikimem trash`)")
        entries = list(trashed.entries)
        if entry_id is not None:
            one = trashed.entry(entry_id)
            if one is None:
                raise NotFound(
                    f"no entry {entry_id!r} from {path} in the trash (see `wikimem trash`)"
                )
            entries = [one]
        moved.extend(e.id for e in entries)
        if leaf is None and entry_id is None:
            change.write(leaf_file, trashed.render())
            change.remove(bin_file)
            change.touch(path)
            return
        page = leaf if leaf is not None else keep_only(trashed, {e.id for e in entries})
        for entry in entries:
            present = page.entry(entry.id)
            if present is not None and present.body != entry.body:
                raise WikiError(
                    f"{path}#{entry.id} exists again with other text; forget or "
                    "rename it first, or edit the page by hand"
                )
            if present is None:
                page = markdown.add_entry_text(page, entry.own_text)
        change.write(leaf_file, markdown.with_meta(page, "updated", change.date).render())
        rest = trashed
        for entry in entries:
            rest = markdown.remove_entry(rest, entry.id)
        if rest.entries:
            change.write(bin_file, rest.render())
        else:
            change.remove(bin_file)
        change.touch(path)

    target = f"{path}#{entry_id}" if entry_id else path
    sha = commit_change(
        places,
        settings,
        message("Restore", target, "Brought back from the trash by `wikimem restore`."),
        work,
    )
    return Moved(target, tuple(moved), sha)


def purge(places: Places, settings: Settings) -> Purged:
    """Delete everything in the trash, for good as far as the pages go (one commit)."""
    wiki = Wiki(places.wiki)
    items = tuple(listing(wiki))
    base = wiki.root / TRASH
    files = tuple(
        sorted(
            p.relative_to(wiki.root).as_posix()
            for p in base.rglob("*")
            if p.is_file() or p.is_symlink()
        )
    )

    def work(change: Change) -> None:
        for relpath in files:
            change.remove(relpath)

    sha = (
        commit_change(
            places,
            settings,
            message(
                "Purge the trash",
                "",
                f"{len(items)} forgotten item(s) deleted by `wikimem purge`; git history still "
                "holds their text.",
            ),
            work,
        )
        if files
        else None
    )
    return Purged(items, files, sha, rewrite_command(places, settings))


def rewrite_command(places: Places, settings: Settings) -> str:
    """The git filter-repo call that would drop the trash from the repository's history."""
    repo = open_repo(places, settings)
    if not repo.has_repo():
        return ""
    with repo.session() as s:
        prefix = f"{s.prefix}/" if s.prefix else ""
        return f"git -C {s.root} filter-repo --invert-paths --path {prefix}{TRASH}/"


def message(verb: str, target: str, body: str) -> str:
    subject = f"{verb} {target}".strip()
    return f"{subject}\n\n{body}\n\nWikimem-Action: {verb.split()[0].lower()}\n"
