"""The wiki on disk: the only module that writes pages.

Pages are read with `wikimem.markdown` (lossless) and written atomically; an edit touches only
its entry's bytes and the leaf's `updated` field. Every path is confined to the wiki folder,
symlinks included: nothing is ever read or written outside it through a wiki path. A write never
replaces bytes this Wiki has not seen: when a person saved a page after it was read, the write
raises EditConflict instead, so the person's save is kept. A held page (`hold`) is written only
on top of the text it was held at or this Wiki's own writes, never on a later save.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from pathlib import Path
from stat import S_ISLNK
from typing import TYPE_CHECKING

from wikimem.errors import NotFound, WikiError
from wikimem.frozen import frozen
from wikimem.fsio import atomic_write_bytes, read_text
from wikimem.wiki.edit import SLUG, Edit

LEAF_FILE = "MEMORY.md"
TOPIC_FILE = "TOPIC.md"
PROFILE_FILE = "PROFILE.md"
TRASH = ".trash"
MAX_PAGE_BYTES = 2_000_000  # a larger page is skipped, not parsed: it is not a memory


@frozen
class Leaf:
    path: str
    page: Page

    @property
    def title(self) -> str:
        return self.page.title or self.path.rsplit("/", 1)[-1]

    @property
    def summary(self) -> str:
        return str(self.page.meta.get("summary") or "")

    @property
    def type(self) -> str:
        return str(self.page.meta.get("type") or "")


class Applied:
    """What one application of edits changed: files (wiki-relative) and topics touched."""

    __slots__ = ("files", "topics", "done")

    def __init__(self) -> None:
        self.files: list[str] = []
        self.topics: set[str] = set()
        self.done: list[Edit] = []

    def __repr__(self) -> str:
        return f"Applied(files={self.files!r}, topics={self.topics!r}, done={self.done!r})"


def split_ref(ref: str) -> tuple[str, str | None, str | None]:
    """`build/bun#entry@abc123` -> ("build/bun", "entry", "abc123")."""
    rev = None
    if "@" in ref:
        ref, rev = ref.rsplit("@", 1)
    path, _, entry = ref.partition("#")
    return path.strip("/"), entry or None, rev or None


# Words a slug lowercases that a person writes in capitals (`ci` is CI, not "Ci").
ACRONYMS = frozenset(
    "ai api aws cd ci cli cpu css db dns e2e ffi gcp gpu grpc html http https iam io json jwt"  # noqa: SIM905
    " k8s llm ml os rpc sdk sql ssh ssl tls ui url ux vm xml yaml".split()
)

if TYPE_CHECKING:  # the parser is loaded where a page is parsed: `show` prints most pages as
    # their files, and its start should cost what click's does
    from wikimem.wiki.markdown import Page


# Names a slug lowercases that are spelled their own way, even at the start of a title.
_BRAND_NAMES = (
    "GitHub GitLab Bitbucket JavaScript TypeScript PostgreSQL MySQL SQLite MongoDB GraphQL"  # noqa: SIM905
    " OpenAI PyPI PyTorch NumPy FastAPI macOS iOS OAuth WebSocket npm pnpm uv pip".split()
)
BRANDS = {name.lower(): name for name in _BRAND_NAMES}


def title_from_slug(slug: str) -> str:
    words = slug.split("-")
    words[0] = words[0].capitalize()
    return " ".join(
        BRANDS.get(w.lower()) or (w.upper() if w.lower() in ACRONYMS else w) for w in words
    )


class PageCache:
    """Parsed pages of this process, keyed by file and stamp: a pass reads every TOPIC.md of
    the wiki (for PROFILE.md and the prompt) and a long-lived process (a queue drain, the MCP
    server, eval) would parse the same unchanged pages again and again.

    Never a source of truth: an entry is used only while the file's stamp (mtime, ctime, size,
    inode) is what it was when read; ctime cannot be set back by a person, and a file changed
    within the last two seconds is not kept at all, since file times are coarser than edits."""

    RACY_NS = 2_000_000_000
    MAX_CHARS = 16_000_000

    def __init__(self) -> None:
        self._pages: OrderedDict[str, tuple[tuple[int, int, int, int], str, Page]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def read(self, target: Path, stat: os.stat_result) -> tuple[str, Page]:
        from wikimem.wiki import markdown

        key = str(target)
        stamp = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino)
        with self._lock:
            found = self._pages.get(key)
            if found is not None and found[0] == stamp:
                self._pages.move_to_end(key)
                return found[1], found[2]
        text = read_text(target)
        page = markdown.parse_page(text)
        recent = time.time_ns() - self.RACY_NS
        if (
            stat.st_ctime_ns < recent
            and stat.st_mtime_ns < recent
            and len(text) <= (self.MAX_CHARS // 64)
        ):
            with self._lock:
                old = self._pages.pop(key, None)
                self._chars += len(text) - (len(old[1]) if old else 0)
                self._pages[key] = (stamp, text, page)
                while self._chars > self.MAX_CHARS:
                    _, (_, dropped, _) = self._pages.popitem(last=False)
                    self._chars -= len(dropped)
        return text, page

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()
            self._chars = 0


PAGES = PageCache()


class EditConflict(WikiError):
    """A page changed on disk between wikimem reading it and writing it (a person saved it)."""


class Wiki:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._resolved_root: Path | None = None
        self._name_limit: int | None = None
        # relpath -> the text last read or written through this object (None: it was absent)
        self._seen: dict[str, str | None] = {}
        self._wrote: dict[str, str | None] = {}
        # relpath -> the only text a write may build on while held (None: absent)
        self._held: dict[str, str | None] = {}

    @property
    def exists(self) -> bool:
        return (self.root / PROFILE_FILE).is_file()

    # ---- paths -------------------------------------------------------------------------------
    def confine(self, relpath: str) -> Path:
        """The absolute path of a wiki-relative path, refusing anything that leaves the wiki."""
        target = self.root / relpath
        too_long = [p for p in relpath.split("/") if len(os.fsencode(p)) > self._name_max()]
        if too_long:
            # looked up, such a name is ENAMETOOLONG from deep inside a write: refused here,
            # so the one edit naming it is rejected and nothing else of its pass fails
            raise WikiError(f"{relpath[:60]}...: a name over {self._name_max()} bytes")
        if self._plainly_inside(relpath):
            return target
        root = self._real_root()
        resolved = target.resolve()
        if resolved != root and root not in resolved.parents:
            raise WikiError(f"{relpath}: leaves the wiki folder (symlink or ..)")
        return target

    def _name_max(self) -> int:
        if self._name_limit is None:
            try:
                self._name_limit = os.pathconf(self.root, "PC_NAME_MAX")
            except (OSError, ValueError):
                self._name_limit = 255
        return self._name_limit

    def _real_root(self) -> Path:
        if self._resolved_root is None:
            self._resolved_root = self.root.resolve()
        return self._resolved_root

    def _plainly_inside(self, relpath: str) -> bool:
        """True when no part of `relpath` is `..`, absolute, or a symlink on disk: then it is
        inside the wiki without resolving anything (a couple of lstat calls instead of one per
        folder from the file system's root, twice). Anything else takes the full check."""
        if not relpath or relpath.startswith(("/", "\\")) or "\\" in relpath:
            return False
        parts = relpath.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return False
        where = str(self.root)
        for part in parts:
            where = f"{where}/{part}"
            try:
                mode = os.lstat(where).st_mode
            except FileNotFoundError:
                return True  # nothing below a missing folder exists, so nothing links out
            except OSError:
                return False
            if S_ISLNK(mode):
                return False
        return True

    def check_path(self, path: str) -> str:
        parts = path.strip("/").split("/")
        if not path.strip("/") or len(parts) > 4 or not all(SLUG.match(p) for p in parts):
            raise WikiError(f"{path!r} is not a wiki path (1-4 lowercase slug segments)")
        return "/".join(parts)

    def leaf_file(self, path: str) -> str:
        return f"{self.check_path(path)}/{LEAF_FILE}"

    def topic_file(self, topic: str) -> str:
        return f"{self.check_path(topic)}/{TOPIC_FILE}"

    # ---- reading -----------------------------------------------------------------------------
    def read_page(self, relpath: str) -> Page | None:
        target = self.confine(relpath)
        if not target.is_file():
            self._seen[relpath] = None
            return None
        stat = target.stat()
        if stat.st_size > MAX_PAGE_BYTES:
            raise WikiError(f"{relpath}: page is over {MAX_PAGE_BYTES} bytes; split it by hand")
        text, page = PAGES.read(target, stat)
        self._seen[relpath] = text
        return page

    def read_leaf(self, path: str) -> Leaf | None:
        page = self.read_page(self.leaf_file(path))
        return None if page is None else Leaf(self.check_path(path), page)

    def entry_bodies(self, path: str) -> dict[str, str] | None:
        """{entry id: body} of a leaf, None when the leaf does not exist (plan validation).
        WikiError when it cannot be looked up (a symlink out, a name too long, too large):
        such an edit is rejected, never taken for an add to a missing leaf."""
        try:
            leaf = self.read_leaf(path)
        except OSError as exc:
            raise WikiError(f"{path}: {exc.strerror or exc}") from exc
        return None if leaf is None else {e.id: e.body for e in leaf.page.entries}

    def topics(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(
            p.name
            for p in self.root.iterdir()
            if p.is_dir() and SLUG.match(p.name) and not p.is_symlink()
        )

    def namesakes(self, leaf: str) -> list[str]:
        """The other leaves named as `leaf` is, under any topic (`infra/terraform` for
        `build/terraform`), sorted; hidden and symlinked folders skipped."""
        name = leaf.rstrip("/").rsplit("/", 1)[-1]
        if not SLUG.match(name):
            return []
        found = set()
        for topic in self.topics():
            for pattern in (f"{name}/{LEAF_FILE}", f"*/{name}/{LEAF_FILE}"):
                for page in (self.root / topic).glob(pattern):
                    rel = page.parent.relative_to(self.root).as_posix()
                    if rel != leaf and not page.parent.is_symlink() and not page.is_symlink():
                        found.add(rel)
        return sorted(found)

    def leaves(self, topic: str | None = None) -> Iterator[str]:
        """Wiki paths of every leaf (or of one topic's), sorted; hidden folders, symlinked
        folders and symlinked pages skipped."""
        tops = [topic] if topic else self.topics()
        for top in tops:
            base = self.root / top
            for folder, dirs, files in os.walk(base):
                dirs[:] = sorted(d for d in dirs if SLUG.match(d))
                rel = Path(folder).relative_to(self.root).as_posix()
                # A MEMORY.md that is a symlink is not a page of this wiki (it may point out).
                if (
                    LEAF_FILE in files
                    and rel.count("/") >= 1
                    and not os.path.islink(os.path.join(folder, LEAF_FILE))
                ):
                    yield rel

    def count_entries(self) -> int:
        total = 0
        for path in self.leaves():
            leaf = self.read_leaf(path)
            total += len(leaf.page.entries) if leaf else 0
        return total

    # ---- writing -----------------------------------------------------------------------------
    def _on_disk(self, target: Path) -> str | None:
        try:
            return read_text(target)
        except FileNotFoundError:
            return None

    def hold(self, relpaths: Iterable[str]) -> None:
        """Hold these pages to their text on disk now, until `release`: a write must then build
        on that text (or on this Wiki's own write of the page), or it raises EditConflict.

        A pass holds the pages it is about to write, then commits a person's edits of them as
        the person's: so what it writes on is what was committed, and a person's save made
        after that is refused, never built on and folded into the pass's commit."""
        self._held.update({p: self._on_disk(self.confine(p)) for p in relpaths})

    def held(self) -> set[str]:
        return set(self._held)

    def release(self) -> None:
        self._held = {}

    def _check_unchanged(self, relpath: str, target: Path) -> None:
        """Refuse to replace a page that changed since this Wiki last read or wrote it, or
        whose text was built on something else than what it is held to."""
        if relpath not in self._seen and relpath not in self._held:
            return
        on_disk = self._on_disk(target)
        if relpath in self._seen and on_disk != self._seen[relpath]:
            raise EditConflict(f"{relpath}: changed on disk while wikimem was editing it")
        if relpath in self._held and on_disk != self._held[relpath]:
            raise EditConflict(f"{relpath}: changed on disk just before wikimem edited it")

    def write(self, relpath: str, text: str) -> None:
        target = self.confine(relpath)
        if target.is_symlink():
            raise WikiError(f"{relpath}: refusing to write through a symlink")
        self._check_unchanged(relpath, target)
        # Pages are read with surrogateescape: bytes that are not UTF-8 go back out unchanged.
        atomic_write_bytes(target, text.encode("utf-8", "surrogateescape"))
        self._seen[relpath] = self._wrote[relpath] = text
        if relpath in self._held:
            self._held[relpath] = text

    def remove_file(self, relpath: str) -> None:
        target = self.confine(relpath)
        if target.exists():
            self._check_unchanged(relpath, target)
            target.unlink()
            self._seen[relpath] = self._wrote[relpath] = None
            if relpath in self._held:
                self._held[relpath] = None

    def written(self, relpaths: Iterable[str]) -> dict[str, bytes | None]:
        """The bytes this Wiki last wrote to those of `relpaths` it wrote (None: removed): what
        wikimem's commit holds, whatever a person saved on disk since."""
        found: dict[str, bytes | None] = {}
        for relpath in relpaths:
            if relpath in self._wrote:
                text = self._wrote[relpath]
                found[relpath] = None if text is None else text.encode("utf-8", "surrogateescape")
        return found

    def still_ours(self, relpaths: Iterable[str]) -> list[str]:
        """Of `relpaths`, those this Wiki wrote (or removed) and nobody changed since: the only
        ones a rollback may put back without losing a person's save."""
        return sorted(
            p
            for p in set(relpaths)
            if p in self._wrote and self._on_disk(self.confine(p)) == self._wrote[p]
        )

    def apply(self, edits: Iterable[Edit], today: str) -> Applied:
        """Apply validated edits, leaf by leaf; one write per leaf touched."""
        from wikimem.wiki import markdown

        applied = Applied()
        by_leaf: dict[str, list[Edit]] = {}
        for edit in edits:
            by_leaf.setdefault(edit.leaf, []).append(edit)
        for path, leaf_edits in by_leaf.items():
            relpath = self.leaf_file(path)
            page = self.read_page(relpath)
            before = page.render() if page else None
            for edit in leaf_edits:
                page = self._apply_one(page, edit)
                applied.done.append(edit)
            assert page is not None
            if page.render() == before:
                continue
            page = markdown.with_meta(page, "updated", today)
            if not page.meta.get("summary") and page.entries:
                page = markdown.with_meta(page, "summary", page.entries[0].title)
            self.write(relpath, page.render())
            applied.files.append(relpath)
            applied.topics.add(path.split("/", 1)[0])
        return applied

    def _apply_one(self, page: Page | None, edit: Edit) -> Page:
        from wikimem.wiki import markdown

        if page is None:
            if edit.action != "add":
                raise NotFound(f"{edit.leaf}: no such leaf")
            title = edit.leaf_title or title_from_slug(edit.leaf.rsplit("/", 1)[-1])
            page = markdown.new_page(
                {
                    "title": title,
                    "summary": edit.leaf_summary or edit.title,
                    "type": edit.type,
                    "updated": "",
                },
                title,
            )
        elif edit.leaf_summary and edit.leaf_summary != page.meta.get("summary"):
            page = markdown.with_meta(page, "summary", edit.leaf_summary)
        leaf_type = str(page.meta.get("type") or "")
        meta = {} if edit.type == leaf_type else {"type": edit.type}
        meta.update(edit.meta)
        if edit.action == "add":
            return markdown.add_entry(page, edit.title, edit.body, meta)
        entry = page.entry(edit.entry)
        if entry is None:
            raise NotFound(f"{edit.leaf}#{edit.entry}: no such entry")
        if edit.action == "confirm":
            # a later run's support: the entry's date of confirmation moves, its words stay
            confirmed = {**entry.meta, **dict(edit.meta)}
            return markdown.replace_entry(page, edit.entry, entry.title, entry.body, confirmed)
        if edit.action == "update":
            merged = {**entry.meta, **meta} if meta else dict(entry.meta)
            was = entry.meta.get("type") or leaf_type
            if was == "working" and edit.type not in ("", "working") and "review-by" not in meta:
                merged.pop("review-by", None)  # a working note's review date goes once settled
            return markdown.replace_entry(
                page, edit.entry, edit.title or entry.title, edit.body, merged
            )
        return markdown.remove_entry(page, edit.entry)
