"""Which leaves the wiki has and whether they changed: stamps of pages and folders, the walk
that lists them (reusing an earlier walk's folders), and the single-leaf look a git-guided
refresh makes.

Invariant: a page counts only as a regular file (never a symlink) named MEMORY.md within the
size cap, in a chain of real slug folders at most MAX_DEPTH deep, outside any dot-folder; a full
walk and a single-leaf look agree on that. Anything changed within the last RACY_NS is UNSURE,
never trusted, since file times are coarser than edits.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISDIR, S_ISREG

from wikimem.wiki.pages import MAX_PAGE_BYTES

LEAF_FILE = "MEMORY.md"
MAX_DEPTH = 4
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

# A stamp is the hash of (mtime_ns, ctime_ns, size, inode): one integer to store and compare
# (CPython hashes tuples of ints the same way in every process, and a new Python that hashes
# differently only makes every page read once more, when its text is found unchanged).
Stamp = int
# A stamp no file has (hash() never returns -1): stored for what changed too recently to trust.
UNSURE: Stamp = -1
# Timestamps come from a coarse kernel clock: a second change within the same tick as a scan
# leaves the stamp the scan saw. Anything changed this recently is looked at again next time.
RACY_NS = 2_000_000_000


def racy_since() -> int:
    """The time (ns) from which a change is too recent to trust a stamp."""
    return time.time_ns() - RACY_NS


def stamp_of(stat: os.stat_result, since_ns: int) -> Stamp:
    """What identifies this version of a file or folder; UNSURE when it changed too recently.

    ctime is in it because a person can restore an edited file's mtime, never its ctime; the
    inode because a rename over a page keeps neither."""
    if stat.st_ctime_ns >= since_ns or stat.st_mtime_ns >= since_ns:
        return UNSURE
    return hash((stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino))


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


@dataclass
class Listing:
    """What a walk of the wiki found: leaf path -> stamp of its page, folder -> (stamp, whether
    it holds a page). Folders are wiki-relative ("" is the wiki itself)."""

    pages: dict[str, Stamp]
    folders: dict[str, tuple[Stamp, bool]]


def page_stat(path: str) -> os.stat_result | None:
    """The stat of a page file that counts: a regular file (never a symlink) within the size cap."""
    try:
        stat = os.lstat(path)
    except OSError:
        return None
    if not S_ISREG(stat.st_mode) or stat.st_size > MAX_PAGE_BYTES:
        return None  # a symlinked page may point outside the wiki; an oversized one is no memory
    return stat


def scan(
    wiki: Path, known: Mapping[str, tuple[Stamp, bool]] | None = None, since_ns: int | None = None
) -> Listing:
    """Every leaf of the wiki with its stamp; dot-folders, non-slug folders and folders deeper
    than MAX_DEPTH are skipped, as are symlinks.

    With `known` (the folders of an earlier scan), a folder whose stamp is unchanged is not
    listed again: creating, removing or renaming anything in a folder changes the folder's own
    mtime, so its sub-folders and whether it holds a page are as known, and only the page
    itself is stat-ed (an edit in place changes the page's stamp, not the folder's)."""
    since = racy_since() if since_ns is None else since_ns
    known = known or {}
    children: dict[str, list[str]] = {}
    for folder in known:
        if folder:
            parent, _, _ = folder.rpartition("/")
            children.setdefault(parent, []).append(folder)
    pages: dict[str, Stamp] = {}
    folders: dict[str, tuple[Stamp, bool]] = {}
    base = str(wiki)
    lstat, fullmatch, leaf_name = os.lstat, SLUG.fullmatch, "/" + LEAF_FILE
    # Tens of thousands of folders on a large wiki: one loop, no recursion, few calls a folder.
    todo: list[tuple[str, int]] = [("", 0)]
    while todo:
        folder, depth = todo.pop()
        where = f"{base}/{folder}" if folder else base
        try:
            stat = lstat(where) if folder else os.stat(where)  # the wiki itself may be a link
        except OSError:
            continue
        if not S_ISDIR(stat.st_mode):
            continue
        if stat.st_ctime_ns >= since or stat.st_mtime_ns >= since:
            stamp = UNSURE
        else:
            stamp = hash((stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino))
        before = known.get(folder)
        if stamp != UNSURE and before is not None and before[0] == stamp:
            has_page = before[1]
            subfolders = children.get(folder, ())
        else:
            has_page, found = False, []
            try:
                with os.scandir(where) as listing:
                    for item in listing:
                        name = item.name
                        if name.startswith("."):
                            continue
                        try:
                            if item.is_dir(follow_symlinks=False):
                                if depth < MAX_DEPTH and fullmatch(name):
                                    found.append(f"{folder}/{name}" if folder else name)
                            elif depth and name == LEAF_FILE:
                                has_page = True
                        except OSError:
                            continue
            except OSError:
                continue
            subfolders = found
        folders[folder] = (stamp, has_page)
        if has_page:
            page = page_stat(where + leaf_name)
            if page is not None:
                pages[folder] = stamp_of(page, since)
        todo.extend((sub, depth + 1) for sub in subfolders)
    return Listing(pages, folders)


def leaf_of(wiki_file: str) -> str | None:
    """The leaf path of a wiki-relative file if it is a leaf's page (`a/b/MEMORY.md` -> `a/b`)."""
    folder, _, name = wiki_file.replace("\\", "/").strip("/").rpartition("/")
    parts = folder.split("/") if folder else []
    if name != LEAF_FILE or not 1 <= len(parts) <= MAX_DEPTH:
        return None
    if not all(SLUG.fullmatch(part) for part in parts):
        return None
    return folder


def leaf_stat(wiki: Path, leaf: str) -> os.stat_result | None:
    """The page of one leaf as a full scan would see it: every folder on the way a real
    folder (no symlink, no dot-folder: `leaf_of` checked the names), the page a real file."""
    where = str(wiki)
    try:
        if not S_ISDIR(os.stat(where).st_mode):
            return None
        for part in leaf.split("/"):
            where = os.path.join(where, part)
            if not S_ISDIR(os.lstat(where).st_mode):
                return None
    except OSError:
        return None
    return page_stat(os.path.join(where, LEAF_FILE))
