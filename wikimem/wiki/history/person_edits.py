"""A person's uncommitted edits of the wiki: the `git status` that finds them, and PersonEdits,
which commits them as the person's before wikimem writes.

Invariant: a person's edits are committed on their own, as theirs, never folded into a commit
of wikimem's and never lost; edits made after the look are left for the next one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from wikimem.errors import HistoryError
from wikimem.wiki.history.session import BATCH, Session, decode, one_line, split_z, wiki_path

if TYPE_CHECKING:
    from wikimem.wiki.history import WikiRepo

PERSON_EDIT_MESSAGE = "Edit the wiki by hand"


def status_paths(s: Session, own: bool = False) -> list[str]:
    args, extra = status_command(s, own)
    return status_result(s.prefix, s.run(*args, extra=extra))


def status_command(
    s: Session, own: bool = False, paths: Collection[str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The `git status` listing the wiki's uncommitted paths (or those among `paths`), and
    its extra environment."""
    # In the wiki's own repository, status may write back refreshed stat data (otherwise,
    # once the index's stat data is stale, as after a copy or a restore, every status
    # re-hashes every file); the lock is optional: when someone holds it, status just does
    # not write. Stat data is safe to cache (git smudges an entry whose file changed in the
    # same tick). The untracked cache is not, and is turned off (dropping one an older
    # version wrote): it trusts a folder whose time did not move, and a folder time moves
    # in coarse ticks, so a folder a person created while this status listed it could hide
    # the page they saved in it from every later look. A person's repository (workspace
    # mode) is left alone.
    args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]
    if paths and len(paths) <= BATCH:
        # Literal pathspecs (Session.env): git stats just these files and lists untracked
        # ones only in their folders, however large the wiki.
        return [*args, "--", *sorted(s.to_repo(p) for p in paths)], {}
    if own and not s.prefix:
        return [*args, "--", s.scope], {
            "GIT_OPTIONAL_LOCKS": "1",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.untrackedCache",
            "GIT_CONFIG_VALUE_0": "false",
        }
    return [*args, "--", s.scope], {}


def status_result(prefix: str, out: bytes | str) -> list[str]:
    repo_paths = [entry[3:] for entry in split_z(decode(out))]
    if prefix:
        repo_paths = [p[len(prefix) + 1 :] for p in repo_paths if p.startswith(prefix + "/")]
    return sorted(repo_paths)


class PersonEdits:
    """A person's uncommitted edits of the wiki, looked for by a `git status` started at once
    and left running in the background; `commit()` waits for it and commits what it found as
    the person's, on its own, before wikimem writes.

    A pass starts the look before it reads the wiki and commits the result before it writes
    anything, so the status sees the same wiki as when it ran in the foreground (reading
    changes no file); the pass just does not wait for it while it reads. Edits made after the
    status looked are left for the next look, as they always were.

    `paths` limits the look to these wiki paths (a pass's own files, looked at again right
    before it writes them): a status with pathspecs, which checks just those files.
    """

    def __init__(self, repo: WikiRepo, paths: Sequence[str] | None = None) -> None:
        self.repo = repo
        self.prefix = ""
        self.process: Any = None  # GitPython's AutoInterrupt around the running status
        self.found: list[str] | None = None
        self.committed = False
        wanted = None if paths is None else {wiki_path(p) for p in paths}
        if wanted is not None and not wanted:
            self.found = []  # no pathspec would mean the whole wiki
            return
        if not repo.has_repo():
            found = repo.files_on_disk(repo.wiki)
            self.found = (
                found
                if wanted is None
                else [p for p in found if p in wanted or any(p.startswith(f"{w}/") for w in wanted)]
            )
            return
        with repo.session() as s:
            args, extra = status_command(s, own=repo.mode == "wiki", paths=wanted)
            self.prefix = s.prefix
            self.process = s.start(*args, extra=extra)

    def __enter__(self) -> PersonEdits:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop a look whose result is no longer wanted (the pass failed before committing)."""
        process, self.process = self.process, None
        if process is not None and process.proc is not None:
            proc = process.proc
            if proc.poll() is None:
                proc.kill()
            proc.communicate()

    def paths(self) -> list[str]:
        """Wiki paths with uncommitted changes (staged or not, untracked), ignored files aside;
        waits for the status."""
        if self.found is None:
            process, self.process = self.process, None
            out, err = process.proc.communicate()
            if process.proc.returncode != 0:
                raise HistoryError(one_line("status", decode(err)))
            self.found = status_result(self.prefix, out)
        return self.found

    def commit(self, message: str = PERSON_EDIT_MESSAGE) -> str | None:
        """Commit what the look found, as the person; None when it found nothing to commit.
        Once only: a second call commits nothing."""
        dirty = self.paths()
        if not dirty or self.committed:
            return None
        self.committed = True
        repo = self.repo
        repo.ensure()
        sha = repo.commit(message, paths=dirty, author=repo.person())
        if sha is None and repo.mode == "wiki" and repo.head() is not None:
            # Dirty with nothing to commit: the files already match HEAD and only the index
            # lags (a pass killed between moving the branch and syncing the index).
            with repo.session() as s:
                s.run("reset", "-q", "HEAD", "--", *[s.to_repo(p) for p in dirty])
        return sha
