"""Sharing one wiki between machines through a git remote: fetch, rebuild, push.

Invariants: the wiki's history stays linear (wikimem's commits are rebuilt on top of the remote's,
never merged); nothing either side wrote is lost (lifecycle/merge.py: git's line merge, a leaf
merged entry by entry, and a person's text both sides changed kept both ways, marked, where its
lines conflict); the generated blocks of TOPIC.md and PROFILE.md are regenerated from the merged
leaves instead of merged as text; each replayed commit is one
`scratch_change`, the same transaction as every other change, in a scratch work tree; the wiki's
branch and files move only once the rebuilt history is on the remote (or when there is nothing
to push), and only with every page a person saved meanwhile committed as theirs and rebuilt on
top: a failure leaves the wiki's files as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from wikimem.config import Places, Settings
from wikimem.errors import HistoryError, WikimemError
from wikimem.fsio import read_text, workspace_lock
from wikimem.lifecycle.merge import Merger
from wikimem.wiki.change import scratch_change
from wikimem.wiki.history import Commit, Identity, WikiRepo
from wikimem.wiki.workspace import ensure_wiki, open_repo

ATTEMPTS = 5  # pushes refused because another machine pushed first, before giving up
LOCK_TIMEOUT = 300.0  # seconds to wait for a running pass

Warn = Callable[[str], None]


@dataclass(frozen=True)
class Synced:
    remote: str
    branch: str
    head: str | None
    pushed: int = 0  # our commits that reached the remote
    received: bool = False  # whether the remote had commits we lacked
    attempts: int = 1
    merged: tuple[str, ...] = ()  # files both sides changed, merged here
    conflicts: tuple[str, ...] = ()  # pages holding both sides' text, marked, to settle

    def line(self) -> str:
        if not self.pushed and not self.received:
            return f"wiki already in sync with {self.remote}/{self.branch}"
        parts = []
        if self.received:
            parts.append(f"took in changes from {self.remote}/{self.branch}")
        if self.pushed:
            parts.append(f"pushed {self.pushed} commit(s)")
        if self.merged:
            parts.append(f"merged {', '.join(self.merged)}")
        if self.conflicts:
            parts.append(
                f"kept both sides' text, marked, in {', '.join(self.conflicts)}: "
                "settle it (`wikimem lint` shows where)"
            )
        head = f" (head {self.head[:7]})" if self.head else ""
        return "wiki synced: " + "; ".join(parts) + head


@dataclass
class Replay:
    """What rebuilding our commits on top of the remote produced."""

    head: str
    merged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # pages holding both sides' text
    kept: int = 0  # rebuilt commits that still change something


def sync(
    places: Places, settings: Settings, *, url: str | None = None, attempts: int = ATTEMPTS
) -> Synced:
    """`wikimem sync`: wait for any running pass, then sync under the workspace lock."""
    with workspace_lock(places.lock, wait=True, timeout=LOCK_TIMEOUT):
        return sync_locked(places, settings, url=url, attempts=attempts)


def after_pass(places: Places, settings: Settings, warn: Warn) -> Synced | None:
    """Push after a pass when `wiki.push` is on; a failure is a warning, since the commit is
    safe locally and the next pass or `wikimem sync` pushes it."""
    if not settings.wiki.push:
        return None
    try:
        return sync_locked(places, settings)
    except WikimemError as exc:
        warn(f"wikimem: could not push the wiki: {exc}")
        return None


def sync_locked(
    places: Places, settings: Settings, *, url: str | None = None, attempts: int = ATTEMPTS
) -> Synced:
    """Sync while the caller holds the workspace lock."""
    repo = open_repo(places, settings)
    if repo.mode != "wiki":
        raise WikimemError(
            "wikimem sync shares a wiki that has its own repository "
            '(wiki.commit_into = "wiki"); in workspace mode the wiki travels '
            "with the project's own commits, so push and pull the project instead"
        )
    remote = settings.wiki.remote or "origin"
    ensure_wiki(places, settings, repo)
    if url:
        repo.set_remote(remote, url)
    if repo.remote_url(remote) is None:
        raise WikimemError(
            f"the wiki has no remote {remote!r}: run `wikimem sync --remote "
            f"URL` once (or `git -C {places.wiki} remote add {remote} URL`)"
        )
    repo.commit_person_edits()
    repo.drop_scratches()
    sharing = Sharing(repo, places, settings, remote, repo.branch())
    sharing.settled, sharing.sent = repo.settled()
    return sharing.run(max(attempts, 1))


@dataclass
class Sharing:
    """One sync's rounds: fetch, rebuild our commits on the remote's, push, move the branch.

    A person may save a page meanwhile (editors take no lock): before the branch moves, the
    save is committed as theirs, and a rebuild made without it is stale, so the round is
    taken again with it on top. The wiki's files change only by the final move (`reset
    --keep`, which refuses to clobber a save: then that round, too, is taken again)."""

    repo: WikiRepo
    places: Places
    settings: Settings
    remote: str
    branch: str
    pushed: int = 0
    received: bool = False
    merged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    # our local commit whose changes the remote has, rebuilt (never rebuilt again while the
    # remote has `sent`, the commit pushed with them); kept for the next sync when this one
    # pushed but could not move the branch
    settled: str | None = None
    sent: str | None = None

    def run(self, attempts: int) -> Synced:
        kept = self.settled is not None
        done = False
        try:
            for attempt in range(1, attempts + 1):
                if self.round():
                    done = True
                    return Synced(
                        self.remote,
                        self.branch,
                        self.repo.head(),
                        self.pushed,
                        self.received,
                        attempt,
                        tuple(dict.fromkeys(self.merged)),
                        tuple(dict.fromkeys(self.conflicts)),
                    )
        except WikimemError as exc:
            if not self.pushed:
                raise
            raise HistoryError(
                f"pushed {self.pushed} commit(s) to {self.remote}/{self.branch}, but the "
                f"wiki's branch did not follow: {exc}; run `wikimem sync` again"
            ) from exc
        finally:
            if kept or self.settled:
                # for the next sync: nothing once the branch followed, else what it must not
                # rebuild again
                self.repo.settle(*((None, None) if done else (self.settled, self.sent)))
        if self.pushed:
            raise HistoryError(
                f"pushed {self.pushed} commit(s) to {self.remote}/{self.branch}, but pages "
                f"saved meanwhile kept the wiki's branch from following it after {attempts} "
                "attempts; the saves are committed as yours: run `wikimem sync` again"
            )
        raise HistoryError(
            f"could not push the wiki to {self.remote} after {attempts} attempts: other "
            "machines kept pushing first; run `wikimem sync` again"
        )

    def round(self) -> bool:
        """One fetch, rebuild, push and move; False when it must be taken again (the push
        lost a race, or a person saved a page meanwhile)."""
        repo = self.repo
        theirs = repo.fetch(self.remote, self.branch)
        head = repo.head()
        assert head is not None  # ensure_wiki made the first commit
        settled = (
            [self.settled]
            if self.settled
            and self.sent
            and theirs
            and repo.is_ancestor(self.settled, head)
            and repo.is_ancestor(self.sent, theirs)
            else []
        )
        merged: list[str] = []
        conflicts: list[str] = []
        if theirs is None or repo.is_ancestor(theirs, head):
            target = head
            ours = len(repo.commits_since(theirs, *settled)) if theirs else -1
        elif repo.is_ancestor(head, theirs):
            target, ours = theirs, 0
        else:
            replay = rebuild(repo, theirs, self.places, self.settings, settled)
            target, ours = replay.head, replay.kept
            merged, conflicts = replay.merged, replay.conflicts
        if repo.commit_person_edits():
            return False  # saved while we fetched and rebuilt: rebuild with the save on top
        if target != theirs:
            if not repo.push(self.remote, target, self.branch):
                return False
            self.pushed += ours if ours >= 0 else len(repo.log(limit=100000))
        # the remote now has all `head` holds: those commits are never rebuilt again
        self.settled, self.sent = head, target
        self.merged += merged
        self.conflicts += conflicts
        self.received = self.received or (theirs is not None and target != head)
        if target == head:
            return True
        if repo.commit_person_edits() is None and repo.move_to(target):
            return True
        # a save since the look above (or one the move would have clobbered): committed as
        # theirs, so the branch moves only once a rebuild has it on top
        repo.commit_person_edits()
        return False


def rebuild(
    repo: WikiRepo, theirs: str, places: Places, settings: Settings, settled: list[str]
) -> Replay:
    """Our commits the remote lacks (and has not already had rebuilt), rebuilt one by one on
    top of `theirs` in a scratch work tree, each through a change of its own."""
    commits = repo.commits_since(theirs, *settled)
    with repo.scratch(theirs) as scratch:
        replay = Replay(head=theirs)
        for commit in commits:
            sha = replay_commit(repo, scratch, commit, places, settings, replay)
            if sha:
                replay.head, replay.kept = sha, replay.kept + 1
        return replay


def replay_commit(
    repo: WikiRepo,
    scratch: WikiRepo,
    commit: Commit,
    places: Places,
    settings: Settings,
    replay: Replay,
) -> str | None:
    """Our change (the commit against its parent) applied to the scratch tree, TOPIC.md and
    PROFILE.md recompiled from the merged leaves, committed with the commit's author and
    message; None when it changes nothing there."""
    parent = repo.parent(commit.sha)
    merger = Merger(repo, commit, replay.merged, replay.conflicts)
    with scratch_change(places, settings, scratch) as change:
        for path in commit.paths:
            base, ours = repo.read(parent, path), repo.read(commit.sha, path)
            on_disk = change.wiki.confine(path)
            current = read_text(on_disk) if on_disk.is_file() else None
            result = merger.merge(path, base, ours, current)
            if result != current:
                if result is None:
                    change.remove(path)
                else:
                    change.write(path, result)
            change.touch(path)
        return change.commit(repo.message(commit.sha), author=Identity(commit.author, commit.email))
