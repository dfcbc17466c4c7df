"""Atomic writes and the workspace lock: the only place that does temp-file + rename or locking.

Invariant: a reader never sees a half-written file; a crash leaves either the old or the new bytes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import LockBusy


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Text is written exactly as given: no newline translation, UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def move(src: Path, dst: Path) -> None:
    """Rename `src` to `dst` durably (same filesystem); the state change of a queue item."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, dst)
    fsync_dir(dst.parent)
    if src.parent != dst.parent:
        fsync_dir(src.parent)


def read_text(path: Path) -> str:
    """Read a file as UTF-8 without newline translation (CRLF survives a round trip)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read()


@contextlib.contextmanager
def workspace_lock(lock_path: Path, *, wait: bool = False, timeout: float = -1) -> Iterator[None]:
    """Hold the one-pass-per-workspace lock; raise LockBusy at once unless `wait`."""
    from filelock import FileLock, Timeout

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path))
    try:
        lock.acquire(timeout=timeout if wait else 0)
    except Timeout as exc:
        raise LockBusy("a pass is already running in this workspace") from exc
    try:
        yield
    finally:
        lock.release()
