"""The objects of a commit, written without a private index where that is cheap: the trees above
a few changed files, built by hand, and the commit object itself.

Invariant: a tree built by hand is byte for byte the tree `git add -A -- paths` would give in a
fresh index of the parent; whenever that cannot be guaranteed (a folder, a link, an executable
or ignored new file, ...) `tree_by_hand` returns None and the caller uses an index instead.
A commit moves its branch only from the parent it was built on.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from wikimem.errors import HistoryError
from wikimem.fsio import checkpoint
from wikimem.wiki.history.commits import Identity
from wikimem.wiki.history.session import Session

# The empty tree under SHA-1 and SHA-256: an unborn branch with this tree has nothing to commit.
EMPTY_TREES = frozenset(
    {
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
    }
)
FILE_MODE = b"100644"
TREE_MODE = b"40000"


def parse_tree(data: bytes, width: int) -> dict[bytes, tuple[bytes, bytes]]:
    """A raw tree object's entries: name -> (mode, binary object id)."""
    entries = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        entries[data[space + 1 : nul]] = (data[at:space], data[nul + 1 : nul + 1 + width])
        at = nul + 1 + width
    return entries


def tree_body(entries: Mapping[bytes, tuple[bytes, bytes]]) -> bytes:
    """A raw tree object's content, entries in git's order (a folder sorts as "name/")."""

    def key(name: bytes) -> bytes:
        return name + b"/" if entries[name][0] == TREE_MODE else name

    return b"".join(
        entries[name][0] + b" " + name + b"\0" + entries[name][1]
        for name in sorted(entries, key=key)
    )


def regular(target: Path) -> bool:
    """Whether `target` is a plain, non-executable file (not a link, folder or nothing)."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and not mode & 0o111


def blob_id(data: bytes, width: int) -> str:
    """The id git gives a blob of these bytes (SHA-1 or SHA-256 by the id's width)."""
    algorithm = "sha1" if width == 20 else "sha256"
    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()


def hash_given(s: Session, given: Mapping[str, bytes], tmp: Path) -> dict[str, str]:
    """Write blobs of these bytes as `git add` would store them at these repository paths
    (their filters apply); repository path -> blob id. One git process per path: only for
    the rare path whose file on disk is not what wikimem wrote."""
    blobs = {}
    for n, (path, data) in enumerate(sorted(given.items())):
        file = Path(tmp, f"given-{n}")
        file.write_bytes(data)
        blobs[path] = s.run("hash-object", "-w", f"--path={path}", "--", str(file)).strip()
    return blobs


def tree_by_hand(
    s: Session,
    old_tree: str,
    paths: Sequence[str],
    tmp: Path,
    sure: Callable[[], None] = lambda: None,
    contents: Mapping[str, bytes | None] | None = None,
) -> str | None:
    """The tree `old_tree` with these paths as they are in the work tree (or, for the wiki
    paths in `contents`, as those bytes, None meaning deleted), written without an index:
    new blobs, then new trees for just the folders above them, bottom up.

    The result is the tree `git add -A -- paths` would give. None when a path needs git's
    general handling (a folder, a symlink, an executable or ignored new file, a file
    where a folder must be, ...): the caller then builds the tree in a private index.
    Every path it accepts is a plain file, present or deleted, so `IndexUpdate` can
    bring an index up to date with the result; `sure` is called once nothing can make it
    return None any more, before the files are hashed.

    A path in `contents` is committed as wikimem wrote it, whatever the disk holds by now: a
    person's save landing between wikimem's write and this commit stays out of it, and the
    next look finds it and commits it as the person's.
    """
    given = {s.to_repo(p): data for p, data in (contents or {}).items()}
    wanted = sorted({s.to_repo(p) for p in paths})
    on_disk: dict[str, bool] = {}
    folders = {""}
    for path in wanted:
        if path == "." or "\n" in path:
            return None
        if path in given:
            on_disk[path] = given[path] is not None
        else:
            try:
                mode = os.lstat(s.root / path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                on_disk[path] = False
            else:
                if not stat.S_ISREG(mode) or mode & 0o111:
                    return None
                on_disk[path] = True
        parts = path.split("/")
        folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
    if any(not on_disk[f] for f in folders if f in on_disk):
        return None  # a vanished folder and paths inside it: git's rules, not these
    order = sorted(folders)
    query = Path(tmp, "trees")
    query.write_bytes(
        "".join(f"{old_tree}:{f}\n" if f else f"{old_tree}\n" for f in order).encode(
            "utf-8", "surrogateescape"
        )
    )
    out = s.run_bytes("cat-file", "--batch", stdin=query)
    width = len(old_tree) // 2  # bytes of one object id: SHA-1 or SHA-256
    trees: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
    at = 0
    for folder in order:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        at = end + 1
        if header[-1] == b"missing":
            trees[folder] = {}
            continue
        if header[1] != b"tree":
            return None  # a file, or a link, stands where the folder must be
        size = int(header[2])
        trees[folder] = parse_tree(out[at : at + size], width)
        at += size + 1
    present = [p for p in wanted if on_disk[p]]
    new = []
    for path in wanted:
        folder, _, name = path.rpartition("/")
        entry = trees[folder].get(name.encode("utf-8", "surrogateescape"))
        if entry is None:
            new += [path] if on_disk[path] else []
        elif entry[0] != FILE_MODE:
            # an executable, a link, a submodule, or a whole folder replaced or deleted
            return None
    if new:
        listing = Path(tmp, "new")
        listing.write_bytes("".join(f"{p}\0" for p in new).encode("utf-8", "surrogateescape"))
        status, _, _ = s.attempt(
            "check-ignore",
            "-q",
            "-z",
            "--stdin",
            extra={"GIT_LITERAL_PATHSPECS": "0"},
            stdin=listing,
        )
        if status != 1:  # something is ignored (git add refuses it), or git failed
            return None
    sure()
    # Bytes wikimem wrote are hashed from their files too, in the same one process, as
    # long as the file is still what was written (its filters applied, as `git add` would);
    # only a file changed since (a person's save) or gone has its bytes hashed on their own.
    hashed = [p for p in present if p not in given or regular(s.root / p)]
    blobs: dict[str, str] = {}
    if hashed:
        listing = Path(tmp, "blobs")
        listing.write_bytes("".join(f"{p}\n" for p in hashed).encode("utf-8", "surrogateescape"))
        ids = s.run("hash-object", "-w", "--stdin-paths", stdin=listing).split()
        if len(ids) != len(hashed):
            raise HistoryError(
                f"git hash-object failed: it hashed {len(ids)} of {len(hashed)} files"
            )
        blobs = dict(zip(hashed, ids, strict=True))
    differ = {
        p: data
        for p in present
        if p in given and (data := given[p]) is not None and blobs.get(p) != blob_id(data, width)
    }
    blobs.update(hash_given(s, differ, tmp))
    for path, blob in blobs.items():
        folder, _, name = path.rpartition("/")
        trees[folder][name.encode("utf-8", "surrogateescape")] = (FILE_MODE, bytes.fromhex(blob))
    for path in wanted:
        if not on_disk[path]:  # a deleted file, or nothing at all
            folder, _, name = path.rpartition("/")
            trees[folder].pop(name.encode("utf-8", "surrogateescape"), None)
    algorithm = "sha1" if width == 20 else "sha256"
    built: list[tuple[str, Path]] = []
    root = ""
    for folder in sorted(order, key=lambda f: f.count("/") + bool(f), reverse=True):
        entries = trees[folder]
        parent, _, name = folder.rpartition("/")
        if folder and not entries:  # git keeps no empty folders
            trees[parent].pop(name.encode("utf-8", "surrogateescape"), None)
            continue
        body = tree_body(entries)
        sha = hashlib.new(algorithm, b"tree %d\0" % len(body) + body).hexdigest()
        file = Path(tmp, f"tree-{len(built)}")
        file.write_bytes(body)
        built.append((sha, file))
        if folder:
            trees[parent][name.encode("utf-8", "surrogateescape")] = (TREE_MODE, bytes.fromhex(sha))
        else:
            root = sha
    listing = Path(tmp, "tree-files")
    listing.write_bytes(
        "".join(f"{file}\n" for _, file in built).encode("utf-8", "surrogateescape")
    )
    # hash-object checks each tree's format as it writes it; the ids must be ours
    written = s.run("hash-object", "-w", "-t", "tree", "--stdin-paths", stdin=listing).split()
    if written != [sha for sha, _ in built]:
        raise HistoryError("git hash-object wrote trees other than the ones built")
    return root


def write_commit(
    s: Session,
    message: str,
    tree: str,
    old: str | None,
    branch: str,
    author: Identity,
    committer: Identity,
    message_file: Path,
) -> str:
    """Write the commit object and move the branch to it; the commit's id."""
    message_file.write_bytes(
        message.encode("utf-8", "surrogateescape") + (b"" if message.endswith("\n") else b"\n")
    )
    identity = {
        "GIT_AUTHOR_NAME": author.name,
        "GIT_AUTHOR_EMAIL": author.email,
        "GIT_COMMITTER_NAME": committer.name,
        "GIT_COMMITTER_EMAIL": committer.email,
    }
    checkpoint("before commit-tree")
    # Never signed: a background pass cannot answer a passphrase prompt.
    new = s.run(
        "commit-tree",
        "--no-gpg-sign",
        tree,
        *(["-p", old] if old else []),
        "-F",
        str(message_file),
        extra=identity,
    ).strip()
    subject = message.strip().splitlines()[0]
    checkpoint("before update-ref")
    # The old value guards against a commit made meanwhile by someone else.
    s.run("update-ref", "-m", f"wikimem: {subject}", branch, new, old or "")
    return new
