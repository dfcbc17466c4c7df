"""A change a person asks for by hand (forget, restore, purge, undo, import), as one commit.

Invariant: like a pass, a change holds the workspace lock, commits a person's pending edits on
their own first, recompiles the TOPIC.md and PROFILE.md it affects, and lands as exactly one
commit, or leaves every file it touched as it was in HEAD.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wikimem.config import Places, Settings
from wikimem.errors import NotFound
from wikimem.fsio import workspace_lock
from wikimem.wiki.compile import compile_profile, compile_topic
from wikimem.wiki.history import WikiRepo
from wikimem.wiki.pages import PROFILE_FILE, Wiki
from wikimem.wiki.workspace import ensure_wiki, open_repo, today

LOCK_TIMEOUT = 60


@dataclass
class Change:
    """The files one change writes or removes, recorded before each write so a failure can
    put them back; the topics whose TOPIC.md must be recompiled afterwards."""

    wiki: Wiki
    repo: WikiRepo
    date: str
    files: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)

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


def prune_empty(root: Path, folder: Path) -> None:
    """Remove `folder` and its parents while they are empty, stopping at `root`."""
    while folder != root and root in folder.parents:
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent


def commit_change(
    places: Places,
    settings: Settings,
    message: str,
    work: Callable[[Change], None],
    *,
    create: bool = False,
) -> str | None:
    """Run `work` under the lock, recompile, commit once; None when nothing changed.
    Only `create` (an import into a new workspace) may start a wiki."""
    if not create and not (places.wiki / PROFILE_FILE).is_file():
        # like `show`: a command that edits the wiki never creates one as a side effect
        raise NotFound(f"no wiki in {places.workspace}: run `wikimem init` first")
    with workspace_lock(places.lock, wait=True, timeout=LOCK_TIMEOUT):
        repo = open_repo(places, settings)
        ensure_wiki(places, settings, repo)
        repo.commit_person_edits()
        change = Change(Wiki(places.wiki), repo, today())
        try:
            work(change)
            changed = set(change.files)
            for topic in sorted(change.topics):
                if topic in change.wiki.topics():
                    path = compile_topic(change.wiki, topic, change.date, None, places.templates)
                    changed.update([path] if path else [])
            if changed:
                profile = compile_profile(
                    change.wiki,
                    change.date,
                    settings.wiki.profile_max,
                    places.workspace.name,
                    places.templates,
                )
                changed.update([profile] if profile else [])
            if not changed:
                return None
            return repo.commit(message, paths=sorted(changed), author=repo.person())
        except BaseException:
            topic_files = {f"{t}/TOPIC.md" for t in change.topics}
            repo.restore(sorted(change.files | topic_files | {"PROFILE.md"}))
            raise
