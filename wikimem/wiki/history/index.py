"""The indexes a commit touches: a private one to build a tree in when building it by hand
will not do, and the repository's own one, brought up to date with each new commit.

Invariant: the repository's index changes only for the paths a commit changed, so nothing a
person staged is touched; in the wiki's own repository the index also takes the committed
files' stat data, so later status calls need not re-hash them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wikimem.errors import HistoryError
from wikimem.wiki.history.session import Session, batched, decode, one_line, split_z
from wikimem.wiki.history.trees import blob_id, hash_given


def stage(s: Session, paths: Sequence[str], index: str) -> None:
    wanted = sorted({s.to_repo(p) for p in paths})
    present = [p for p in wanted if os.path.lexists(s.root / p)]
    gone = [p for p in wanted if not os.path.lexists(s.root / p)]
    # `git add` rejects a pathspec matching nothing: keep a vanished path only if it was
    # tracked (its deletion is the change), drop it if it never existed.
    tracked: set[str] = set()
    for chunk in batched(gone):
        tracked.update(split_z(s.run("ls-files", "-z", "--", *chunk, index=index)))
    present += [p for p in gone if p in tracked or any(t.startswith(p + "/") for t in tracked)]
    for chunk in batched(present):
        s.run("add", "-A", "--", *chunk, index=index)


def stage_given(s: Session, given: Mapping[str, bytes | None], index: str, tmp: Path) -> None:
    """In a private index the paths were staged into from disk, put the given bytes (None:
    no file) in their place wherever the disk no longer holds them."""
    if not given:
        return
    wanted = {s.to_repo(p): data for p, data in given.items()}
    staged: dict[str, str] = {}
    for chunk in batched(sorted(wanted)):
        for line in split_z(s.run("ls-files", "-s", "-z", "--", *chunk, index=index)):
            meta, _, path = line.partition("\t")
            staged[path] = meta.split(" ")[1]
    width = len(next(iter(staged.values()), "")) // 2 or 20  # SHA-1 or SHA-256
    differ = {
        p: data
        for p, data in wanted.items()
        if data is not None and staged.get(p) != blob_id(data, width)
    }
    blobs = hash_given(s, differ, tmp)
    entries = [f"100644 {blobs[p]}\t{p}\0" for p in sorted(blobs)]
    entries += [
        f"0 {'0' * 2 * width}\t{p}\0"
        for p, data in sorted(wanted.items())
        if data is None and p in staged
    ]
    if entries:
        listing = Path(tmp, "given-index-info")
        listing.write_bytes("".join(entries).encode("utf-8", "surrogateescape"))
        s.run("update-index", "-z", "--index-info", stdin=listing, index=index)


def sync_index(s: Session, old: str | None, new: str, scratch: Path) -> None:
    """Make the person's index agree with the new commit for exactly the paths it changed."""
    base = [old, new] if old else ["--root", new]
    raw = split_z(
        s.run(
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--no-commit-id",
            *base,
            "--",
            s.scope,
            index=s.no_index,
        )
    )
    # Raw diff records alternate ":oldmode newmode oldsha newsha status" and the path; the
    # new side is exactly an index-info line (mode 0 removes the entry). One linear call
    # instead of pathspec matching, which is quadratic on a large first commit.
    entries = []
    present = []
    for meta, path in zip(raw[::2], raw[1::2], strict=True):
        _, mode, _, sha, _ = meta.lstrip(":").split(" ")
        entries.append(f"{mode} {sha}\t{path}\0")
        if mode.strip("0"):
            present.append(path)
    scratch.write_bytes("".join(entries).encode("utf-8", "surrogateescape"))
    try:
        s.run("update-index", "-z", "--index-info", stdin=scratch)
        # index-info entries carry no stat data; without a refresh every later status would
        # re-hash them. Only these paths: refreshing the whole index stats every file of a
        # large wiki. A failure only means a file differs again, which is not ours to fix.
        for chunk in batched(present):
            s.probe("add", "--refresh", "--", *chunk)
    except HistoryError as exc:
        raise HistoryError(
            f"committed {new[:12]} but could not update the index for the "
            f"wiki's files ({exc}); run `git reset -q -- {s.scope}`"
        ) from exc


class IndexUpdate:
    """The wiki's own index taking a by-hand commit's plain files (present or deleted) from the
    work tree, stat data included, in one `update-index` started while the commit is written.

    The index then matches the new commit, since its tree was hashed from the same files at
    the same moment, or from the bytes wikimem wrote to them. Should a person edit one after
    that write, the index holds their version, staged, never the commit's blob with their
    file's stat data, and the next pass commits it as theirs: nothing is lost or folded into
    wikimem's commit. Only for the wiki's own repository: a person's index in workspace
    mode gets exactly the committed entries (`sync_index`), after the commit.
    """

    def __init__(self, s: Session, paths: Sequence[str], scratch: Path) -> None:
        self.paths = sorted({s.to_repo(p) for p in paths})
        self.scope = s.scope
        scratch.write_bytes(
            "".join(f"{p}\0" for p in self.paths).encode("utf-8", "surrogateescape")
        )
        self.stdin = open(scratch, "rb")  # noqa: SIM115 (closed by wait)
        try:
            self.process: Any = s.start(
                "update-index", "--add", "--remove", "-z", "--stdin", stdin=self.stdin
            )
        except HistoryError:
            self.stdin.close()
            raise

    def wait(self) -> str | None:
        """Wait for the update; git's complaint when it failed."""
        try:
            _, err = self.process.proc.communicate()
            status = self.process.proc.returncode
        finally:
            self.stdin.close()
        return None if status == 0 else one_line("update-index", decode(err))

    def finish(self, new: str | None) -> None:
        """Wait for the update of the commit `new` (None: nothing was committed, and the files
        the index took equal HEAD's)."""
        error = self.wait()
        if error and new:
            raise HistoryError(
                f"committed {new[:12]} but could not update the index for the "
                f"wiki's files ({error}); run `git reset -q -- {self.scope}`"
            )

    def undo(self, s: Session) -> None:
        """The commit failed after the index took its files: give the index HEAD's back."""
        self.wait()
        for chunk in batched(self.paths):
            s.probe("reset", "-q", "HEAD", "--", *chunk)
