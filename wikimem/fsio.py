"""Atomic writes and the workspace lock: the only place that does temp-file + rename or locking.

Invariant: a reader never sees a half-written file; a crash leaves either the old or the new bytes.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from wikimem.errors import LockBusy

_CRASH_AFTER = int(os.environ.get("WIKIMEM_CRASH_AFTER", "0") or 0)
_crash_count = 0


def checkpoint(name: str) -> None:
    """A fault-injection point for the crash tests: with WIKIMEM_CRASH_AFTER=N the process
    SIGKILLs itself at the Nth checkpoint it passes. Costs one comparison otherwise."""
    global _crash_count
    if not _CRASH_AFTER:
        return
    _crash_count += 1
    if _crash_count == _CRASH_AFTER:
        import signal

        sys.stderr.write(f"wikimem: crash injected at checkpoint {_crash_count} ({name})\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)


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
    # A private name in the same folder (so the rename is atomic); not tempfile, whose import
    # costs the hook more than the write itself.
    tmp = path.parent / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        checkpoint(f"before rename {path.name}")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)
    checkpoint(f"after write {path.name}")


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Text is written exactly as given: no newline translation, UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def move(src: Path, dst: Path) -> None:
    """Rename `src` to `dst` durably (same filesystem); the state change of a queue item."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    checkpoint(f"before move {src.name}")
    os.replace(src, dst)
    fsync_dir(dst.parent)
    if src.parent != dst.parent:
        fsync_dir(src.parent)


def read_text(path: Path) -> str:
    """Read a file as UTF-8 without newline translation (CRLF survives a round trip)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read()


@contextlib.contextmanager
def workspace_lock(
    lock_path: Path,
    *,
    wait: bool = False,
    timeout: float = -1,
    busy: str = "a pass is already running in this workspace",
) -> Iterator[None]:
    """Hold the one-pass-per-workspace lock (or another per-workspace lock at `lock_path`);
    raise LockBusy(busy) at once unless `wait`."""
    from filelock import FileLock, Timeout

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path))
    try:
        lock.acquire(timeout=timeout if wait else 0)
    except Timeout as exc:
        raise LockBusy(busy) from exc
    try:
        yield
    finally:
        lock.release()
