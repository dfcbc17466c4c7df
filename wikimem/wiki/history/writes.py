"""What wikimem writes into the wiki's history and work tree: one commit of given paths,
putting paths back as HEAD has them, and reverting a commit; WikiRepo's write paths.

Invariant: a commit holds exactly the given paths as they are on disk (or as the bytes given
for them), on top of the branch's
commit, and the repository's index ends up agreeing with it for those paths only; a restore
leaves no file a failed pass wrote that HEAD does not have.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wikimem.errors import HistoryError
from wikimem.wiki.history.commits import Identity
from wikimem.wiki.history.index import IndexUpdate, stage_given
from wikimem.wiki.history.session import BATCH, batched, decode, split_z, wiki_path
from wikimem.wiki.history.trees import EMPTY_TREES

if TYPE_CHECKING:
    from wikimem.wiki.history import WikiRepo


def commit(
    repo: WikiRepo,
    message: str,
    paths: Sequence[str] | None,
    author: Identity,
    committer: Identity,
    contents: Mapping[str, bytes | None] | None = None,
) -> str | None:
    """Commit the given wiki paths (or the whole wiki) as one commit; None if nothing changed.
    The wiki paths in `contents` are committed with those bytes (None: deleted), not as the
    disk has them: what wikimem wrote, so a person's save made since is not folded in.

    The commit is built with plumbing (read-tree, add, write-tree, commit-tree, update-ref)
    in a private index rather than `git commit`: no commit hook runs, because a person's
    pre-commit hook must neither block memory nor judge memory the person did not write, and
    the person's staged changes never leak into (or out of) wikimem's commit.
    """
    if not message.strip():
        raise HistoryError("refusing to commit with an empty message")
    if not repo.has_repo():
        repo.ensure()
    with repo.session() as s, tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
        branch = s.probe("symbolic-ref", "-q", "HEAD")
        if not branch:
            raise HistoryError(
                f"HEAD of {s.root} is detached; wikimem commits only onto a "
                "branch (finish the rebase or check out a branch)"
            )
        # One process for the parent commit and its tree (none on an unborn branch).
        found = decode(s.probe("log", "-1", "--format=%H %T", "HEAD") or b"").split()
        old, old_tree = (found[0], found[1]) if len(found) == 2 else (None, None)
        # The person's index holds stat data, so asking status what changed is far cheaper
        # than re-hashing every file of the wiki into the fresh private index.
        todo = repo.status_paths(s) if paths is None else paths
        if not todo:
            return None
        # A few paths on top of a parent: build only the trees above them, because reading
        # a whole large wiki into a private index costs more than all the rest of a commit.
        # Then, in the wiki's own repository, the index takes the same files meanwhile.
        update: IndexUpdate | None = None

        def start_update() -> None:
            nonlocal update
            if repo.mode == "wiki":
                update = IndexUpdate(s, todo, Path(tmp, "index-paths"))

        new: str | None = None
        try:
            tree = (
                repo.tree_by_hand(s, old_tree, todo, Path(tmp), start_update, contents)
                if old_tree and len(todo) <= BATCH
                else None
            )
            if tree is None:
                index = os.path.join(tmp, "index")
                s.run("read-tree", *([old] if old else ["--empty"]), index=index)
                if paths is None and len(todo) > BATCH:
                    # Matching thousands of pathspecs costs more than hashing the whole wiki.
                    s.run("add", "-A", "--", s.scope, index=index)
                else:
                    repo.stage(s, todo, index)
                if contents:
                    stage_given(
                        s, {p: contents[p] for p in todo if p in contents}, index, Path(tmp)
                    )
                tree = s.run("write-tree", index=index).strip()
            if not (old and tree == old_tree) and not (not old and tree in EMPTY_TREES):
                new = repo.write_commit(
                    s,
                    message,
                    tree,
                    old,
                    decode(branch).strip(),
                    author,
                    committer,
                    Path(tmp, "message"),
                )
        except BaseException:
            if update is not None:
                update.undo(s)
            raise
        if update is not None:
            update.finish(new)
        elif new is not None:
            # by hand in a person's repository, or through a private index: exactly the
            # committed entries, so nothing a person staged is touched
            repo.sync_index(s, old, new, Path(tmp, "index-info"))
        return new


def restore(repo: WikiRepo, paths: Sequence[str]) -> None:
    """Put these wiki paths back as they are in HEAD: roll back a failed or crashed pass."""
    wanted = sorted({wiki_path(p) for p in paths})
    tracked: set[str] = set()
    if wanted and repo.has_repo():
        with repo.session() as s:
            if s.head():
                for chunk in batched([s.to_repo(p) for p in wanted]):
                    tracked.update(
                        s.wiki_paths(
                            split_z(
                                s.run("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *chunk)
                            )
                        )
                    )
    for path in wanted:
        remove_untracked(repo, path, tracked)
    if tracked:
        with repo.session() as s:
            for chunk in batched([s.to_repo(p) for p in sorted(tracked)]):
                s.run("restore", "--source=HEAD", "--worktree", "--", *chunk)


def remove_untracked(repo: WikiRepo, path: str, tracked: set[str]) -> None:
    target = repo.wiki / path if path else repo.wiki
    if target.is_dir() and not target.is_symlink():
        for rel in files_on_disk(repo.wiki, target):
            if rel not in tracked:
                (repo.wiki / rel).unlink()
        for top, _, _ in os.walk(target, topdown=False):
            if Path(top) != repo.wiki and ".git" not in Path(top).relative_to(repo.wiki).parts:
                with contextlib.suppress(OSError):
                    os.rmdir(top)  # only succeeds on an empty folder
    elif os.path.lexists(target) and path not in tracked:
        target.unlink()
    prune_parents(repo.wiki, target)


def prune_parents(wiki: Path, target: Path) -> None:
    """Remove folders left empty above `target`, up to but excluding the wiki itself."""
    for parent in target.parents:
        if parent == wiki or not parent.is_relative_to(wiki):
            return
        try:
            os.rmdir(parent)
        except OSError:
            return


def revert(repo: WikiRepo, rev: str, message: str, author: Identity) -> str | None:
    """Commit the undoing of one commit's changes to the wiki; None if already undone."""
    repo.commit_person_edits()
    with repo.history(rev) as s, tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
        sha = s.resolve(rev)
        parent = s.first_parent(sha)
        base = [parent, sha] if parent else ["--root", sha]
        patch = s.run(
            "diff-tree",
            "-p",
            "--binary",
            "--full-index",
            "--no-renames",
            "--no-commit-id",
            *base,
            "--",
            s.scope,
        )
        if not patch.strip():
            return None
        patch_file = Path(tmp, "patch")
        patch_file.write_bytes(patch.encode("utf-8", "surrogateescape"))
        apply = ("apply", "--whitespace=nowarn")  # a person's apply.whitespace=fix must not
        if s.probe(*apply, "--check", "-R", str(patch_file)) is None:  # rewrite the undo
            if s.probe(*apply, "--check", str(patch_file)) is not None:
                return None  # the tree already looks like the commit was undone
            raise HistoryError(
                f"cannot revert {sha[:12]}: later edits changed the same "
                "lines; edit the wiki by hand instead"
            )
        s.run(*apply, "-R", str(patch_file))
        changed = s.wiki_paths(s.diff_names(parent, sha))
    return repo.commit(message, paths=changed, author=author)


def files_on_disk(wiki: Path, folder: Path) -> list[str]:
    found = []
    for top, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        found += [Path(top, name).relative_to(wiki).as_posix() for name in files]
    return sorted(found)
