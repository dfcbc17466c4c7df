"""The wiki's git history: WikiRepo, the one door every other module goes through.

Invariant: every change wikimem makes is exactly one commit on the current branch of the wiki's
repository (the wiki's own, or the enclosing workspace's). Commits are built in a private index
with plumbing, so a person's staged changes, current branch and hooks are never involved; a
person's uncommitted edits are committed on their own first, never folded in and never lost.
Paths given and returned are wiki-relative with forward slashes, in both modes.

The package's modules: `session` (the only importer of GitPython: one open repository and
every git call), `commits` (Identity, Commit, reading the log), `trees` (trees and commit
objects written without an index), `index` (the private index, and the repository's own kept
in step), `person_edits` (a person's uncommitted edits and the status that finds them),
`writes` (committing, restoring and reverting), `blame` (who last wrote each line),
`sharing` (remotes, fetch, push, merges and scratch work trees for a sync).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from wikimem.errors import HistoryError, NotFound
from wikimem.fsio import atomic_write_text, read_text
from wikimem.wiki.history import blame, sharing, writes
from wikimem.wiki.history.commits import EDITOR, LOG_FORMAT, WIKIMEM, Commit, Identity, parse_commit
from wikimem.wiki.history.index import IndexUpdate, stage, sync_index
from wikimem.wiki.history.person_edits import PERSON_EDIT_MESSAGE, PersonEdits, status_paths
from wikimem.wiki.history.session import (
    Session,
    changed_since,
    decode,
    exclude_file,
    init_repo,
    open_session,
    relative,
)
from wikimem.wiki.history.trees import tree_by_hand, write_commit

__all__ = [
    "WIKIMEM",
    "Commit",
    "changed_since",
    "Identity",
    "IndexUpdate",
    "PersonEdits",
    "WikiRepo",
]

MODES = ("wiki", "workspace")
EXCLUDE_HEADER = "# wikimem: its wiki repository and state stay out of this repository"


class WikiRepo:
    """The wiki's repository: its own (mode "wiki") or the enclosing workspace's ("workspace")."""

    def __init__(
        self, wiki: Path, workspace: Path, mode: str = "wiki", state: Path | None = None
    ) -> None:
        if mode not in MODES:
            raise HistoryError(f"wiki.commit_into must be 'wiki' or 'workspace', not {mode!r}")
        self.wiki = Path(os.path.abspath(wiki))
        self.workspace = Path(os.path.abspath(workspace))
        self.mode = mode
        self.state = Path(os.path.abspath(state)) if state else self.wiki.parent / "state"

    # The steps of a commit, looked up through the class so each can be timed or made to fail
    # on its own.
    status_paths = staticmethod(status_paths)
    tree_by_hand = staticmethod(tree_by_hand)
    stage = staticmethod(stage)
    write_commit = staticmethod(write_commit)
    sync_index = staticmethod(sync_index)

    # -- opening -------------------------------------------------------------------------------

    def has_repo(self) -> bool:
        """Own mode: whether the wiki's repository exists yet (workspace mode: always asked)."""
        return self.mode == "workspace" or (self.wiki / ".git").exists()

    def session(self) -> contextlib.AbstractContextManager[Session]:
        return open_session(self.wiki, self.workspace, self.mode)

    def ensure(self) -> None:
        """Make the wiki's repository usable and keep the wiki out of the workspace's status."""
        if self.mode == "wiki":
            if not self.has_repo():
                self.init()
            self.exclude()
            return
        if (self.wiki / ".git").exists():
            raise HistoryError(
                f"the wiki at {self.wiki} has its own repository; remove its "
                '.git or set wiki.commit_into = "wiki"'
            )
        with self.session() as s:  # fails first when the workspace is not a repository
            self.exclude()
            # Any file inside the wiki will do: ignored, it could never be committed here.
            if (
                s.probe(
                    "check-ignore",
                    "-q",
                    "--",
                    s.to_repo("PROFILE.md"),
                    extra={"GIT_LITERAL_PATHSPECS": "0"},
                )
                is not None
            ):  # takes no magic
                raise HistoryError(
                    f"the workspace ignores {s.prefix}/, so wiki.commit_into ="
                    f' "workspace" cannot commit it; un-ignore it (for'
                    f' example `!/{s.prefix}/` in .gitignore) or use "wiki"'
                )

    def init(self) -> None:
        init_repo(self.wiki)

    def exclude(self, files: Sequence[Path] = ()) -> None:
        """Add the wiki (own mode), the state folder and `files` wikimem created (the sample
        policy) to the workspace's info/exclude, once."""
        found = exclude_file(self.workspace)
        if found is None:
            return
        root, target = found
        pattern = {
            folder: f"/{relative(folder, root, 'folder')}/"
            for folder in (self.wiki, self.state)
            if folder.is_relative_to(self.workspace)
        }
        # Workspace mode commits the wiki into this repository, so it must not stay ignored
        # (as it was in own mode) after a switch.
        keep_out = [self.state] if self.mode == "workspace" else [self.wiki, self.state]
        wanted = [pattern[folder] for folder in keep_out if folder in pattern]
        wanted += [
            f"/{relative(f, root, 'file')}" for f in files if f.is_relative_to(self.workspace)
        ]
        unwanted = set(pattern.values()) - set(wanted)
        text = read_text(target) if target.is_file() else ""
        lines = text.splitlines()
        kept = [line for line in lines if line.strip() not in unwanted]
        missing = [pattern for pattern in wanted if pattern not in {x.strip() for x in kept}]
        if not missing and kept == lines:
            return
        if missing and EXCLUDE_HEADER not in kept:
            kept.append(EXCLUDE_HEADER)
        atomic_write_text(target, "\n".join([*kept, *missing]) + "\n")

    # -- reading -------------------------------------------------------------------------------

    def head(self) -> str | None:
        if not self.has_repo():
            return None
        with self.session() as s:
            return s.head()

    @contextlib.contextmanager
    def history(self, rev: str) -> Iterator[Session]:
        """A session for reading revision `rev`; NotFound while the wiki has no repository."""
        if not self.has_repo():
            raise NotFound(f"no revision {rev!r}: the wiki has no history yet")
        with self.session() as s:
            yield s

    def resolve(self, rev: str) -> str:
        with self.history(rev) as s:
            return s.resolve(rev)

    def changes_since(self, old: str | None) -> tuple[str | None, list[str] | None]:
        """(HEAD, wiki paths that differ between `old` and HEAD); the paths are None when `old`
        is None or not a commit of this repository (any more)."""
        if not self.has_repo():
            return None, None
        with self.session() as s:
            head = s.head()
            if head is None or old is None:
                return head, None
            if old == head:
                return head, []
            try:
                return head, s.wiki_paths(s.diff_names(old, head))
            except HistoryError:
                return head, None

    def dirty_paths(self) -> list[str]:
        """Wiki paths with uncommitted changes (staged or not, untracked), ignored files aside."""
        if not self.has_repo():
            return self.files_on_disk(self.wiki)
        with self.session() as s:
            return self.status_paths(s, own=self.mode == "wiki")

    def files_on_disk(self, folder: Path) -> list[str]:
        return writes.files_on_disk(self.wiki, folder)

    def person(self) -> Identity:
        """The identity git would use for the person, as configured for this repository."""
        if not self.has_repo():
            return EDITOR
        with self.session() as s:
            name, email = (s.probe("config", "--get", key) for key in ("user.name", "user.email"))
        return Identity(
            decode(name).strip() if name else EDITOR.name,
            decode(email).strip() if email else EDITOR.email,
        )

    def person_lines(self, path: str) -> list[bool] | None:
        """For each line of the wiki file `path`, whether a person wrote it since wikimem last
        did (see `blame`); None when the history cannot say."""
        if not self.has_repo():
            return None
        with self.session() as s:
            return blame.person_lines(s, path)

    def log(
        self, path: str | None = None, limit: int = 50, with_paths: bool = False
    ) -> list[Commit]:
        """Commits touching the wiki (or `path` within it), newest first."""
        if not self.has_repo():
            return []
        with self.session() as s:
            if s.head() is None:
                return []
            args = ["log", "-z", f"--max-count={limit}", f"--format={LOG_FORMAT}"]
            if with_paths:
                args += ["--name-only", "--no-renames", "--full-diff"]
            out = s.run(*args, "--", s.to_repo(path) if path else s.scope)
            return [parse_commit(s, chunk) for chunk in out.split("\x1e") if chunk]

    def show(self, rev: str, path: str) -> str:
        """A wiki file's content at a revision, byte for byte (no newline translation)."""
        with self.history(rev) as s:
            sha = s.resolve(rev)
            out = s.probe("cat-file", "blob", f"{sha}:{s.to_repo(path)}")
        if out is None:
            raise NotFound(f"{path} does not exist at {rev}")
        return decode(out)

    def changed_paths(self, rev: str) -> list[str]:
        """Wiki paths one commit changed (against its first parent)."""
        with self.history(rev) as s:
            sha = s.resolve(rev)
            return s.wiki_paths(s.diff_names(s.first_parent(sha), sha))

    def message(self, rev: str) -> str:
        """A commit's whole message, trailers included, exactly as written."""
        with self.history(rev) as s:
            return s.run("log", "-1", "--format=%B", s.resolve(rev))

    def parent(self, rev: str) -> str | None:
        with self.history(rev) as s:
            return s.first_parent(s.resolve(rev))

    def read(self, rev: str | None, path: str) -> str | None:
        """A wiki file at a revision, or None when it does not exist there (or rev is None)."""
        if rev is None:
            return None
        try:
            return self.show(rev, path)
        except NotFound:
            return None

    # -- writing -------------------------------------------------------------------------------

    def commit_person_edits(
        self, message: str = PERSON_EDIT_MESSAGE, paths: Sequence[str] | None = None
    ) -> str | None:
        """Commit what a person left uncommitted in the wiki (or in just these wiki paths), as
        theirs, before wikimem writes."""
        with self.person_edits(paths) as edits:
            return edits.commit(message)

    def person_edits(self, paths: Sequence[str] | None = None) -> PersonEdits:
        """Start looking for a person's uncommitted edits (of the whole wiki, or of `paths`);
        `commit()` the result before writing. The look (`git status`) runs in the background
        meanwhile: see `PersonEdits`."""
        return PersonEdits(self, paths)

    def commit(
        self,
        message: str,
        paths: Sequence[str] | None = None,
        author: Identity = WIKIMEM,
        committer: Identity = WIKIMEM,
        contents: Mapping[str, bytes | None] | None = None,
    ) -> str | None:
        """Commit the given wiki paths (or the whole wiki) as one commit; None if nothing changed
        (built with plumbing, never `git commit`: see `writes.commit`). Paths in `contents`
        are committed with those bytes (None: deleted) rather than as the disk has them."""
        return writes.commit(self, message, paths, author, committer, contents)

    def restore(self, paths: Sequence[str]) -> None:
        """Put these wiki paths back as they are in HEAD: roll back a failed or crashed pass."""
        writes.restore(self, paths)

    def prune_parents(self, target: Path) -> None:
        """Remove folders left empty above `target`, up to but excluding the wiki itself."""
        writes.prune_parents(self.wiki, target)

    def revert(self, rev: str, message: str, author: Identity = WIKIMEM) -> str | None:
        """Commit the undoing of one commit's changes to the wiki; None if already undone."""
        return writes.revert(self, rev, message, author)

    # -- sharing through a remote (see `sharing`) ----------------------------------------------

    def branch(self) -> str:
        with self.session() as s:
            return sharing.branch(s, self.wiki)

    def remote_url(self, remote: str) -> str | None:
        if not self.has_repo():
            return None
        with self.session() as s:
            return sharing.remote_url(s, remote)

    def set_remote(self, remote: str, url: str) -> bool:
        """Point `remote` at `url` (adding it when missing); return whether anything changed."""
        current = self.remote_url(remote)
        if current == url:
            return False
        with self.session() as s:
            sharing.set_remote(s, remote, url, exists=current is not None)
        return True

    def fetch(self, remote: str, branch: str) -> str | None:
        with self.session() as s:
            return sharing.fetch(s, remote, branch)

    def push(self, remote: str, sha: str, branch: str) -> bool:
        with self.session() as s:
            return sharing.push(s, remote, sha, branch)

    def is_ancestor(self, older: str, newer: str) -> bool:
        with self.session() as s:
            return sharing.is_ancestor(s, older, newer)

    def commits_since(self, upstream: str, *settled: str) -> list[Commit]:
        with self.session() as s:
            return sharing.commits_since(s, upstream, *settled)

    def settled(self) -> tuple[str | None, str | None]:
        with self.session() as s:
            return sharing.settled(s)

    def settle(self, settled: str | None, sent: str | None) -> None:
        with self.session() as s:
            sharing.settle(s, settled, sent)

    def merge_text(
        self, base: str | None, ours: str, theirs: str, *, marked: bool = False
    ) -> str | None:
        with self.session() as s:
            return sharing.merge_text(s, base, ours, theirs, marked=marked)

    def move_to(self, sha: str) -> bool:
        with self.session() as s:
            return sharing.move_to(s, sha)

    @contextlib.contextmanager
    def scratch(self, rev: str) -> Iterator[WikiRepo]:
        """A throwaway work tree of this repository on a branch of its own starting at `rev`,
        so commits can be rebuilt on top of another history without touching the wiki."""
        self.drop_scratches()
        folder = tempfile.mkdtemp(prefix="wikimem-sync-")
        branch = sharing.scratch_branch(folder)
        try:
            with self.session() as s:
                sharing.add_scratch(s, folder, branch, rev)
            yield WikiRepo(Path(folder), Path(folder), "wiki", Path(folder, ".state"))
        finally:
            with self.session() as s:
                sharing.remove_scratch(s, folder, branch)
            shutil.rmtree(folder, ignore_errors=True)

    def drop_scratches(self) -> None:
        if not self.has_repo():
            return
        with self.session() as s:
            sharing.drop_scratches(s)
