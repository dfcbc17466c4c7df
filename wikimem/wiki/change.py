"""The one wiki transaction: every change wikimem makes to the wiki goes through `wiki_change`.

    with wiki_change(places, settings) as change:
        change.apply(edits)            # or change.write / change.remove, then change.touch
        sha = change.commit(message)   # recompiles touched TOPIC.md files and PROFILE.md

A pass, recompile, `queue approve`, forget, restore, purge, undo, import and sync's replay all use
it (the replay as `scratch_change`, over a scratch work tree, one change per commit). Invariant:
under the workspace lock, the person's pending edits are committed first as theirs; pages are held
(a write builds only on the text held or on this change's own writes, never on a later save:
EditConflict instead); the commit holds exactly the bytes this change wrote, whatever a person
saved since; on failure, only pages still as this change left them are put back as HEAD has them,
so a person's save made during the change survives both success and failure.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from wikimem.config import Places, Settings
from wikimem.errors import NotFound
from wikimem.fsio import checkpoint, workspace_lock
from wikimem.wiki.compile import compile_profile, compile_topic
from wikimem.wiki.edit import Edit
from wikimem.wiki.history import WikiRepo
from wikimem.wiki.history.commits import WIKIMEM, Identity
from wikimem.wiki.markdown import BEGIN_MARKER as MARKER_BEGIN
from wikimem.wiki.markdown import END_MARKER as MARKER_END
from wikimem.wiki.markdown import Page
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, TOPIC_FILE, Applied, Wiki
from wikimem.wiki.workspace import ensure_wiki, open_repo, today

LOCK_TIMEOUT = 60


@dataclass
class Change:
    """One change in progress: the files it wrote or removed, the topics whose TOPIC.md must be
    recompiled, and the summaries given for them."""

    places: Places
    settings: Settings
    wiki: Wiki
    repo: WikiRepo
    date: str
    files: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)
    summaries: dict[str, str] = field(default_factory=dict)
    everything: bool = False  # recompile every topic (`wikimem recompile`)
    scratch: bool = False  # a scratch work tree (sync's replay): nobody saves pages there

    # ---- writing -----------------------------------------------------------------------------
    def hold(self, relpaths: Iterable[str]) -> None:
        """Hold pages to their text now, then commit a person's pending saves of them as
        theirs: a later save of a held page is an EditConflict, never a base. A page this
        change already wrote is its own (a later save of it is an EditConflict already), never
        a person's edit to commit."""
        wanted = [p for p in relpaths if p not in self.wiki.held() and p not in self.files]
        if wanted:
            self.wiki.hold(wanted)
            if not self.scratch:
                self.repo.commit_person_edits(paths=wanted)

    def write(self, relpath: str, text: str) -> None:
        self.files.add(relpath)
        self.wiki.write(relpath, text)

    def remove(self, relpath: str) -> None:
        self.files.add(relpath)
        self.wiki.remove_file(relpath)
        prune_empty(self.wiki.root, self.wiki.confine(relpath).parent)

    def touch(self, path: str) -> None:
        """Mark the topic of wiki path `path` for recompiling."""
        self.topics.add(path.split("/", 1)[0])

    def apply(self, edits: Iterable[Edit]) -> Applied:
        edits = list(edits)
        self.hold(
            {self.wiki.leaf_file(e.leaf) for e in edits}
            | {self.wiki.topic_file(e.leaf.split("/")[0]) for e in edits}
            | {PROFILE_FILE}
        )
        applied = self.wiki.apply(edits, self.date)
        self.files.update(applied.files)
        self.topics.update(applied.topics)
        return applied

    def summarise(self, topic: str, summary: str) -> None:
        """A refreshed summary for a topic's TOPIC.md (from a plan)."""
        self.summaries[topic] = summary
        if topic in self.wiki.topics():
            self.topics.add(topic)

    # ---- finishing ---------------------------------------------------------------------------
    def compile(self) -> list[str]:
        """Remove leaves and topics the change left empty, recompile the touched TOPIC.md
        files and PROFILE.md; every file changed so far."""
        self._drop_empty()
        existing = set(self.wiki.topics())
        topics = sorted(existing if self.everything else self.topics & existing)
        self.hold([self.wiki.topic_file(t) for t in topics] + [PROFILE_FILE])
        changed = set(self.files)
        for topic in topics:
            path = compile_topic(
                self.wiki, topic, self.date, self.summaries.get(topic), self.places.templates
            )
            changed.update([path] if path else [])
        if changed or self.everything:
            profile = compile_profile(
                self.wiki,
                self.date,
                self.settings.wiki.profile_max,
                self.places.workspace.name,
                self.places.templates,
            )
            changed.update([profile] if profile else [])
        self.files |= changed
        return sorted(changed)

    def commit(self, message: str, author: Identity | None = None) -> str | None:
        """Compile, then commit exactly the bytes this change wrote; None when nothing moved."""
        changed = self.compile()
        if not changed:
            return None
        sha = self.repo.commit(
            message,
            paths=changed,
            author=author or WIKIMEM,
            contents=self.wiki.written(changed),
        )
        checkpoint("after commit")
        if not self.scratch:  # a Copilot install's copy of the profile follows PROFILE.md
            from wikimem.wiki.instructions import refresh

            with contextlib.suppress(OSError):
                refresh(self.places.workspace, self.wiki.root)
        return sha

    def _drop_empty(self) -> None:
        """A leaf this change left with no entry and no text of its own goes, and so does a
        topic left with no leaf and no text of its own: no `summary: ""` leaves, no
        "(0 leaves)" in PROFILE.md, and `lint` stays clean."""
        for relpath in sorted(self.files):
            if not relpath.endswith(f"/{LEAF_FILE}"):
                continue
            page = self.wiki.read_page(relpath)
            if page is not None and not page.entries and not page_text(page).strip():
                self.remove(relpath)
                self.touch(relpath)
        for topic in sorted(self.topics):
            relpath = f"{topic}/{TOPIC_FILE}"
            if any(True for _ in self.wiki.leaves(topic)):
                continue
            page = self.wiki.read_page(relpath) if (self.wiki.root / topic).is_dir() else None
            if page is not None and not page_text(page).strip():
                self.remove(relpath)

    def rollback(self) -> None:
        """Put back, as HEAD has them, only the pages still as this change left them."""
        self.repo.restore(self.wiki.still_ours(self.files | self.wiki.held()))


def page_text(page: Page) -> str:
    """A page's own prose: the text before its entries, less its `#` title and wikimem's
    generated block."""
    head = page.head
    if MARKER_BEGIN in head and MARKER_END in head:
        before, _, rest = head.partition(MARKER_BEGIN)
        head = before + rest.partition(MARKER_END)[2]
    return "\n".join(line for line in head.splitlines() if not line.startswith("# "))


@contextmanager
def wiki_change(
    places: Places,
    settings: Settings,
    *,
    create: bool = False,
    locked: bool = False,
    repo: WikiRepo | None = None,
    wiki: Wiki | None = None,
    looked: bool = False,
) -> Iterator[Change]:
    """The transaction (see the module docstring). `create`: only an import into a new
    workspace (and a pass) may start a wiki. `locked`: the caller already holds the lock.
    `looked`: the caller already committed the person's pending edits (a pass, whose look
    ran while it read); `wiki`: the Wiki the caller read with, so a save since is a conflict."""
    if not create and not (places.wiki / PROFILE_FILE).is_file():
        # like `show`: a command that edits the wiki never creates one as a side effect
        raise NotFound(f"no wiki in {places.workspace}: run `wikimem init` first")
    with _lock(places, locked):
        repo = repo or open_repo(places, settings)
        ensure_wiki(places, settings, repo)
        if not looked:
            repo.commit_person_edits()
        with _changing(Change(places, settings, wiki or Wiki(places.wiki), repo, today())) as c:
            yield c


@contextmanager
def scratch_change(places: Places, settings: Settings, scratch: WikiRepo) -> Iterator[Change]:
    """The transaction over a scratch work tree of the wiki's repository (`WikiRepo.scratch`),
    where sync rebuilds commits: the same writes, recompiles and commit of exactly the bytes
    written, with the workspace's templates and name. The caller holds the workspace lock;
    no person edits a scratch tree, so there are no saves to commit first, and the wiki's own
    files are never touched."""
    change = Change(places, settings, Wiki(scratch.wiki), scratch, today(), scratch=True)
    with _changing(change):
        yield change


@contextmanager
def _changing(change: Change) -> Iterator[Change]:
    try:
        yield change
    except BaseException:
        change.rollback()
        raise
    finally:
        change.wiki.release()


@contextmanager
def _lock(places: Places, locked: bool) -> Iterator[None]:
    if locked:
        yield
        return
    with workspace_lock(places.lock, wait=True, timeout=LOCK_TIMEOUT):
        yield


def commit_change(
    places: Places,
    settings: Settings,
    message: str,
    work: Callable[[Change], None],
    *,
    create: bool = False,
) -> str | None:
    """A change a person asked for (forget, restore, purge, undo, import): `work` in one
    transaction, committed as the person's; None when nothing changed."""
    with wiki_change(places, settings, create=create) as change:
        work(change)
        return change.commit(message, author=change.repo.person())


def prune_empty(root: Path, folder: Path) -> None:
    """Remove `folder` and its parents while they are empty, stopping at `root`."""
    while folder != root and root in folder.parents:
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent
