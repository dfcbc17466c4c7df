"""Sharing one wiki between machines through a git remote: fetch, rebuild, push.

Invariants: the wiki's history stays linear (wikimem's commits are rebuilt on top of the remote's,
never merged); nothing either side wrote is lost (a leaf both sides changed is merged entry by
entry, our entries winning for the ids our commit touched); TOPIC.md and PROFILE.md are
regenerated from the merged leaves instead of merged as text; the wiki's branch and files move
only once the rebuilt history is on the remote (or when there is nothing to push).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from wikimem.config import Places, Settings
from wikimem.errors import HistoryError, WikimemError
from wikimem.fsio import atomic_write_text, read_text, workspace_lock
from wikimem.wiki import markdown
from wikimem.wiki.compile import compile_profile, compile_topic
from wikimem.wiki.history import Identity, WikiRepo
from wikimem.wiki.pages import LEAF_FILE, PROFILE_FILE, TOPIC_FILE, Wiki
from wikimem.wiki.workspace import ensure_wiki, open_repo, today

ATTEMPTS = 5  # pushes refused because another machine pushed first, before giving up
LOCK_TIMEOUT = 300.0  # seconds to wait for a running pass
GENERATED = (TOPIC_FILE, PROFILE_FILE)

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
        head = f" (head {self.head[:7]})" if self.head else ""
        return "wiki synced: " + "; ".join(parts) + head


@dataclass
class Replay:
    """What rebuilding our commits on top of the remote produced."""

    head: str
    merged: list[str] = field(default_factory=list)
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
    branch = repo.branch()
    merged: list[str] = []
    for attempt in range(1, max(attempts, 1) + 1):
        theirs = repo.fetch(remote, branch)
        head = repo.head()
        assert head is not None  # ensure_wiki made the first commit
        if theirs is None or repo.is_ancestor(theirs, head):
            target, ours = head, len(repo.commits_since(theirs)) if theirs else -1
            received = False
        elif repo.is_ancestor(head, theirs):
            repo.move_to(theirs)
            return Synced(remote, branch, theirs, 0, True, attempt)
        else:
            replay = rebuild(repo, theirs, places, settings)
            target, ours, received = replay.head, replay.kept, True
            merged = replay.merged
        if target == theirs:  # our commits changed nothing the remote lacked
            repo.move_to(theirs)
            return Synced(
                remote, branch, theirs, 0, received, attempt, tuple(dict.fromkeys(merged))
            )
        if repo.push(remote, target, branch):
            if target != head:
                repo.move_to(target)
            pushed = ours if ours >= 0 else len(repo.log(limit=100000))
            return Synced(
                remote, branch, target, pushed, received, attempt, tuple(dict.fromkeys(merged))
            )
    raise HistoryError(
        f"could not push the wiki to {remote} after {attempts} attempts: other "
        "machines kept pushing first; run `wikimem sync` again"
    )


def rebuild(repo: WikiRepo, theirs: str, places: Places, settings: Settings) -> Replay:
    """Our commits the remote lacks, rebuilt one by one on top of `theirs`."""
    commits = repo.commits_since(theirs)
    with repo.scratch(theirs) as scratch:
        replay = Replay(head=theirs)
        wiki = Wiki(scratch.wiki)
        for commit in commits:
            parent = repo.parent(commit.sha)
            touched: list[str] = []
            for path in commit.paths:
                base, ours = repo.read(parent, path), repo.read(commit.sha, path)
                current = read_text(wiki.root / path) if (wiki.root / path).is_file() else None
                result = merge(repo, path, base, ours, current, replay.merged)
                if result != current:
                    write(wiki, path, result)
                    touched.append(path)
            touched += recompile(wiki, commit.paths, places, settings)
            author = Identity(commit.author, commit.email)
            sha = (
                scratch.commit(repo.message(commit.sha), paths=sorted(set(touched)), author=author)
                if touched
                else None
            )
            if sha:
                replay.head, replay.kept = sha, replay.kept + 1
        return replay


def merge(
    repo: WikiRepo,
    path: str,
    base: str | None,
    ours: str | None,
    current: str | None,
    merged: list[str],
) -> str | None:
    """The content `path` should have after applying our change (base -> ours) to `current`."""
    if current in (base, ours):
        return ours
    if ours == base:
        return current
    if ours is None or current is None:
        # One side deleted what the other changed: keep the changed version, lose nothing.
        merged.append(path)
        return current if ours is None else ours
    merged.append(path)
    text = repo.merge_text(base, ours, current)
    if text is not None:
        return text
    name = path.rsplit("/", 1)[-1]
    if name in GENERATED:
        return current  # regenerated from the merged leaves right after
    if name == LEAF_FILE:
        return merge_entries(base, ours, current)
    return ours  # a file wikimem does not understand: the commit being replayed wins


def merge_entries(base: str | None, ours: str, theirs: str) -> str:
    """A leaf both sides changed: theirs, with the entries our commit added or changed put in
    (replacing theirs of the same id) and the ones it removed taken out."""
    # An entry's trailing blank lines belong to its position on the page, not to its content.
    before = {e.id: e.text.rstrip() for e in markdown.parse_page(base).entries} if base else {}
    mine = markdown.parse_page(ours)
    page = markdown.parse_page(theirs)
    texts = {e.id: e.text for e in page.entries}
    order = [e.id for e in page.entries]
    for entry in mine.entries:
        if before.get(entry.id) == entry.text.rstrip():
            continue
        if entry.id not in texts:
            order.append(entry.id)
        texts[entry.id] = entry.text
    for gone in set(before) - {e.id for e in mine.entries}:
        if texts.get(gone, "").rstrip() == before[gone]:
            order.remove(gone)
    nl = page.newline
    body = ""
    for entry_id in order:
        if body and not body.endswith(nl + nl):
            body += nl if body.endswith(nl) else nl + nl
        body += texts[entry_id]
    head = page.head
    if body and head.strip() and not head.endswith(nl + nl):
        head += nl if head.endswith(nl) else nl + nl
    result = markdown.parse_page(page.frontmatter + head + body)
    newer = max(str(mine.meta.get("updated") or ""), str(page.meta.get("updated") or ""))
    if newer and str(result.meta.get("updated") or "") != newer:
        result = markdown.with_meta(result, "updated", newer)
    return result.render()


def write(wiki: Wiki, path: str, text: str | None) -> None:
    target = wiki.confine(path)
    if text is None:
        if target.exists():
            target.unlink()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)


def recompile(wiki: Wiki, paths: tuple[str, ...], places: Places, settings: Settings) -> list[str]:
    """Regenerate the TOPIC.md of every topic these paths are in, then PROFILE.md."""
    topics = {p.split("/", 1)[0] for p in paths if "/" in p} & set(wiki.topics())
    date = today()
    changed = [
        p
        for p in (compile_topic(wiki, t, date, None, places.templates) for t in sorted(topics))
        if p
    ]
    if paths:
        profile = compile_profile(
            wiki, date, settings.wiki.profile_max, places.workspace.name, places.templates
        )
        changed += [profile] if profile else []
    return changed
