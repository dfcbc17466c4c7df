"""Sharing the wiki's history through a remote: its branch, remotes, fetch and push, ancestry,
git's three-way merge of one file, and the scratch work trees a sync rebuilds commits in.

Invariant: these functions never touch the wiki's files or index except `move_to`, which moves
the branch with `reset --keep` (refusing rather than clobbering a person's edits); a push that
lost a race and a move refused over a person's save are values (False), not errors, so the
caller can commit the save, fetch and rebuild.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from wikimem.errors import HistoryError
from wikimem.wiki.history.commits import LOG_FORMAT, Commit, parse_commit
from wikimem.wiki.history.session import Session, decode, one_line, split_z

SCRATCH = "wikimem-sync"  # prefix of the throwaway branches `scratch` makes
# What git says when a push lost a race with another push: fetch, rebuild, try again.
PUSH_RACES = (
    "[rejected]",
    "non-fast-forward",
    "fetch first",
    "cannot lock ref",
    "failed to lock",
    "incorrect old value",
    "stale info",
)
# A sync that pushed but could not move the branch (a person kept saving) leaves these: our
# last local commit whose changes the remote has, rebuilt, and the commit pushed with them;
# the next sync rebuilds only what came after, and only while the remote still has that push.
SETTLED_REF = "refs/wikimem/sync-settled"
SENT_REF = "refs/wikimem/sync-sent"
# What `reset --keep` says when it refuses to move over a person's uncommitted edit.
KEEP_REFUSALS = ("not uptodate", "would be overwritten", "cannot merge")
# How `merge_text(marked=True)` opens, splits and closes a conflict (ours, then theirs): longer
# than any marker a page holds by chance.
CONFLICT_SIZE = 24
CONFLICT = ("<" * CONFLICT_SIZE + " ours", "=" * CONFLICT_SIZE, ">" * CONFLICT_SIZE + " theirs")


def branch(s: Session, wiki: Path) -> str:
    """The short name of the branch the wiki is on; HistoryError when HEAD is detached."""
    ref = s.probe("symbolic-ref", "-q", "--short", "HEAD")
    if not ref:
        raise HistoryError(f"HEAD of {wiki} is detached; check out a branch first")
    return decode(ref).strip()


def checked_remote(remote: str) -> str:
    if not remote or remote.startswith("-") or any(c.isspace() for c in remote):
        raise HistoryError(f"not a usable remote name: {remote!r}")
    return remote


def remote_url(s: Session, remote: str) -> str | None:
    out = s.probe("remote", "get-url", checked_remote(remote))
    return decode(out).strip() if out else None


def set_remote(s: Session, remote: str, url: str, exists: bool) -> None:
    s.run("remote", "set-url" if exists else "add", checked_remote(remote), url)


def fetch(s: Session, remote: str, branch: str) -> str | None:
    """Fetch `branch` from `remote`; its commit there, or None when the remote lacks it."""
    tracking = f"refs/remotes/{checked_remote(remote)}/{branch}"
    status, _, err = s.attempt(
        "fetch", "--quiet", "--no-tags", remote, f"+refs/heads/{branch}:{tracking}"
    )
    if status != 0:
        if "couldn't find remote ref" in err.lower():
            return None
        raise HistoryError(one_line("fetch", err))
    return s.resolve(tracking)


def push(s: Session, remote: str, sha: str, branch: str) -> bool:
    """Push `sha` as the remote's `branch`; False when refused because the remote moved."""
    args = ("push", "--porcelain", "--quiet", checked_remote(remote), f"{sha}:refs/heads/{branch}")
    return _done_unless(s, args, PUSH_RACES)


def is_ancestor(s: Session, older: str, newer: str) -> bool:
    return s.probe("merge-base", "--is-ancestor", older, newer) is not None


def commits_since(s: Session, upstream: str, *settled: str) -> list[Commit]:
    """Commits on the wiki's branch that `upstream` lacks, oldest first, with their paths;
    leaving out those in the history of `settled` too (commits whose changes the remote
    already has, rebuilt)."""
    if s.head() is None:
        return []
    out = s.run(
        "log",
        "-z",
        "--reverse",
        "--first-parent",
        "--no-merges",
        f"--format={LOG_FORMAT}",
        "--name-only",
        "--no-renames",
        "HEAD",
        *(f"^{rev}" for rev in (upstream, *settled)),
        "--",
        s.scope,
    )
    return [parse_commit(s, chunk) for chunk in out.split("\x1e") if chunk]


def merge_text(
    s: Session, base: str | None, ours: str, theirs: str, *, marked: bool = False
) -> str | None:
    """git's three-way line merge of one file's versions; None when lines conflict, or with
    `marked` the merge holding each conflict as ours and theirs between CONFLICT markers."""
    with tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
        names = []
        for name, text in (("ours", ours), ("base", base or ""), ("theirs", theirs)):
            Path(tmp, name).write_bytes(text.encode("utf-8", "surrogateescape"))
            names.append(str(Path(tmp, name)))
        labels = ("-L", "ours", "-L", "base", "-L", "theirs")
        size = f"--marker-size={CONFLICT_SIZE}"
        status, out, err = s.attempt("merge-file", "-p", "--quiet", size, *labels, *names)
    if status < 0 or status > 127:
        raise HistoryError(one_line("merge-file", err))
    return decode(out) if status == 0 or marked else None


def move_to(s: Session, sha: str) -> bool:
    """Move the wiki's branch and files to `sha`, keeping a person's uncommitted edits of
    files the move leaves alone; False, with nothing moved, when the move would clobber one
    (a file a person saved that the move changes)."""
    return _done_unless(s, ("reset", "--quiet", "--keep", sha), KEEP_REFUSALS)


def _done_unless(s: Session, args: tuple[str, ...], refusals: tuple[str, ...]) -> bool:
    """Run git `args`: True when done, False when git refused for one of the expected reasons
    (`refusals`, read from its output), HistoryError for any other failure."""
    status, out, err = s.attempt(*args)
    if status == 0:
        return True
    said = f"{decode(out)}\n{err}".lower()
    if any(sign in said for sign in refusals):
        return False
    raise HistoryError(one_line(args[0], err or decode(out)))


def scratch_branch(folder: str) -> str:
    return f"{SCRATCH}-{os.getpid()}-{os.path.basename(folder)[-8:]}"


def add_scratch(s: Session, folder: str, branch: str, rev: str) -> None:
    """Check `rev` out into `folder`, a new work tree on the new branch `branch`."""
    # git checks the new tree out in a child process that inherits the index
    # variable: point it at the new work tree's own index, never at the wiki's.
    index = os.path.join(
        os.path.abspath(s.repo.common_dir), "worktrees", os.path.basename(folder), "index"
    )
    s.run("worktree", "add", "--quiet", "-b", branch, folder, rev, index=index)


def remove_scratch(s: Session, folder: str, branch: str) -> None:
    s.probe("worktree", "remove", "--force", folder)
    s.probe("branch", "-D", "--", branch)


def drop_scratches(s: Session) -> None:
    """Remove scratch trees and branches a killed sync left (callers hold the lock, so no
    scratch in use can exist)."""
    listing = decode(s.probe("worktree", "list", "--porcelain", "-z") or b"")
    folder = ""
    for field in split_z(listing):
        folder = field[len("worktree ") :] if field.startswith("worktree ") else folder
        if field.startswith(f"branch refs/heads/{SCRATCH}-"):
            s.probe("worktree", "remove", "--force", folder)  # left by a killed sync
    s.probe("worktree", "prune")
    for stale in split_z(
        decode(
            s.probe("for-each-ref", "--format=%(refname:short)%00", f"refs/heads/{SCRATCH}-*")
            or b""
        )
    ):
        s.probe("branch", "-D", "--", stale.strip())


def settled(s: Session) -> tuple[str | None, str | None]:
    """What the last sync that could not move the branch left: (settled, sent)."""
    found = [s.probe("rev-parse", "--verify", "-q", f"{ref}^{{commit}}") for ref in REFS]
    settled, sent = (decode(out).strip() if out else None for out in found)
    return settled, sent


def settle(s: Session, settled: str | None, sent: str | None) -> None:
    """Keep (or with None, forget) what `settled` returns for the next sync."""
    for ref, sha in zip(REFS, (settled, sent), strict=True):
        if sha and settled and sent:
            s.run("update-ref", ref, sha)
        else:
            s.probe("update-ref", "-d", ref)


REFS = (SETTLED_REF, SENT_REF)
