"""Undoing one commit of the wiki, entry by entry, as a new commit.

Invariant: an undo never loses a later change. A page no commit has touched since is put back
byte for byte; on a page changed since, only the entries the commit touched are put back, and
only when no later commit changed them too; otherwise the undo is refused, naming that commit.
Compiled pages (TOPIC.md, PROFILE.md) are recompiled rather than reverted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wikimem.config import Places, Settings
from wikimem.errors import NotFound, WikiError, WikimemError
from wikimem.fsio import read_text
from wikimem.wiki import markdown
from wikimem.wiki.change import Change, commit_change
from wikimem.wiki.history import Commit, WikiRepo
from wikimem.wiki.markdown import Page
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, TOPIC_FILE, TRASH
from wikimem.wiki.workspace import open_repo

MAX_LOOKBACK = 1000

Shape = tuple[str, str, tuple[tuple[str, str], ...]]  # title, body, meta: what an entry says


@dataclass(frozen=True)
class Undone:
    target: str  # the short sha undone
    subject: str
    commit: str | None  # None when the wiki already looked undone
    entries: tuple[str, ...]  # `path#entry` put back as they were before the commit


def shapes(page: Page | None) -> dict[str, Shape]:
    if page is None:
        return {}
    return {e.id: (e.title, e.body, tuple(sorted(e.meta.items()))) for e in page.entries}


def touched(before: Mapping[str, Shape], after: Mapping[str, Shape]) -> set[str]:
    return {key for key in set(before) | set(after) if before.get(key) != after.get(key)}


def version(repo: WikiRepo, rev: str | None, file: str) -> str | None:
    if rev is None:
        return None
    try:
        return repo.show(rev, file)
    except NotFound:
        return None


def page_of(text: str | None) -> Page | None:
    return None if text is None else markdown.parse_page(text)


def later_commits(repo: WikiRepo, file: str, sha: str) -> list[Commit]:
    """Commits after `sha` that touched `file`, oldest first; refuse when `sha` is not an
    ancestor of the branch (as far as this file's history goes)."""
    newer: list[Commit] = []
    for commit in repo.log(file, limit=MAX_LOOKBACK):
        if commit.sha == sha:
            return list(reversed(newer))
        newer.append(commit)
    raise NotFound(
        f"{sha[:12]} is not in the history of the wiki's current branch "
        f"(or is more than {MAX_LOOKBACK} commits back)"
    )


def blame(repo: WikiRepo, file: str, sha: str, ids: set[str], then: dict[str, Shape]) -> str:
    """The first later commit that changed one of `ids` (as the commit left them)."""
    for commit in later_commits(repo, file, sha):
        now = shapes(page_of(version(repo, commit.sha, file)))
        clash = sorted(i for i in ids if now.get(i) != then.get(i))
        if clash:
            return f"{commit.short} ({commit.subject}) changed {file_ref(file)}#{clash[0]}"
    return f"the uncommitted page {file} changed them"


def file_ref(file: str) -> str:
    path = file.removesuffix("/" + LEAF_FILE)
    return path if not path.startswith(TRASH + "/") else f"trash:{path[len(TRASH) + 1 :]}"


def generated(file: str) -> bool:
    return file == PROFILE_FILE or file.endswith("/" + TOPIC_FILE)


def undo(places: Places, settings: Settings, rev: str) -> Undone:
    repo = open_repo(places, settings)
    if not repo.has_repo() or repo.head() is None:
        raise NotFound("the wiki has no history yet")
    sha = repo.resolve(rev)
    info = _commit(repo, sha)
    parent = _parent(repo, sha)
    if parent is None:
        raise WikimemError("cannot undo the wiki's first commit")
    files = repo.changed_paths(sha)
    if not files:
        raise WikimemError(f"{info.short} changed nothing in the wiki")
    put_back: list[str] = []

    def work(change: Change) -> None:
        for file in files:
            old, new = version(repo, parent, file), version(repo, sha, file)
            path = change.wiki.confine(file)
            current = read_text(path) if path.is_file() else None
            if "/" in file and not file.startswith(TRASH + "/"):
                change.touch(file)
            if current == new:
                put(change, file, old)
                if file.endswith(LEAF_FILE):
                    ids = touched(shapes(page_of(new)), shapes(page_of(old)))
                    put_back.extend(f"{file_ref(file)}#{i}" for i in sorted(ids))
            elif generated(file):
                continue  # recompiled below from the leaves as they now are
            elif file.endswith(LEAF_FILE):
                put_back.extend(merge(change, repo, file, sha, info.short, old, new, current))
            else:
                raise WikiError(
                    f"cannot undo {info.short}: {file} changed since; edit it by hand instead"
                )

    body = (
        f"Undoes {info.short} ({info.subject}) with `wikimem undo`.\n\n"
        f"Wikimem-Action: undo\nWikimem-Undo: {sha}\n"
    )
    done = commit_change(places, settings, f"Undo {info.short}: {info.subject}\n\n{body}", work)
    return Undone(info.short, info.subject, done, tuple(put_back))


def put(change: Change, file: str, text: str | None) -> None:
    if text is None:
        change.remove(file)
    else:
        change.write(file, text)


def merge(
    change: Change,
    repo: WikiRepo,
    file: str,
    sha: str,
    short: str,
    old: str | None,
    new: str | None,
    current: str | None,
) -> list[str]:
    """Put back the entries `sha` touched on a page changed since; refuse on overlap."""
    after = shapes(page_of(new))
    old_page, page = page_of(old), page_of(current)
    ids = touched(shapes(old_page), after)
    now = shapes(page)
    clash = {i for i in ids if now.get(i) != after.get(i)}
    if clash:
        raise WikiError(
            f"cannot undo {short}: {blame(repo, file, sha, clash, after)} "
            "after it; undo that commit first or edit the page by hand"
        )
    if page is None:
        raise WikiError(f"cannot undo {short}: {file_ref(file)} no longer exists; restore it first")
    for entry_id in sorted(ids):
        was = old_page.entry(entry_id) if old_page else None
        if was is None:
            if page.entry(entry_id) is not None:
                page = markdown.remove_entry(page, entry_id)
        elif page.entry(entry_id) is None:
            page = markdown.add_entry(page, was.title, was.body, was.meta)
        else:
            page = markdown.replace_entry(page, entry_id, was.title, was.body, was.meta)
    if not file.startswith(TRASH + "/"):
        page = markdown.with_meta(page, "updated", change.date)
    change.write(file, page.render())
    return [f"{file_ref(file)}#{i}" for i in sorted(ids)]


def _commit(repo: WikiRepo, sha: str) -> Commit:
    for commit in repo.log(limit=MAX_LOOKBACK):
        if commit.sha == sha:
            return commit
    raise NotFound(f"{sha[:12]} is not in the history of the wiki's current branch")


def _parent(repo: WikiRepo, sha: str) -> str | None:
    try:
        return repo.resolve(f"{sha}^")
    except NotFound:
        return None
