"""Atomic writes and the workspace lock: the only place that does temp-file + rename or locking.

Invariant: a reader never sees a half-written file; a crash leaves either the old or the new bytes.

State is private. Everything under a workspace's `.clarvis/state/` (queued jobs carry task text
and evidence) is created 0700 (folders) and 0600 (files) whatever the umask, and is never
reached through a symlink. A state folder owned by another user, or writable by group or
others, is refused with one line: whoever can write it can plant a job or point a log outside.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from wikimem.errors import LockBusy, UnsafeState

STATE_PARTS = (".clarvis", "state")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_checked: set[str] = set()  # state folders already found private in this process


def state_root(path: Path) -> Path | None:
    """The `.clarvis/state` folder `path` is in (or is), None when it is not state."""
    parts = path.parts
    for i in range(len(parts) - 1):
        if parts[i] == STATE_PARTS[0] and parts[i + 1] == STATE_PARTS[1]:
            return Path(*parts[: i + 2])
    return None


def ensure_dir(folder: Path) -> None:
    """Create `folder` with its parents; state folders private (0700) and checked."""
    root = state_root(folder)
    if root is None:
        folder.mkdir(parents=True, exist_ok=True)
        return
    if str(folder) in _checked:
        return
    root.parent.mkdir(parents=True, exist_ok=True)
    level = root
    for part in (*folder.relative_to(root).parts, None):
        try:
            os.mkdir(level, 0o700)
            os.chmod(level, 0o700)  # the umask may have taken bits the owner needs
        except FileExistsError:
            pass
        check_private(level)
        if part is None:
            break
        level = level / part
    _checked.add(str(folder))


def check_private(folder: Path) -> None:
    """Refuse a state folder that is a symlink, another user's, or group/other-writable;
    tighten one of ours that others could read (made by an older version)."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafeState(f"{folder} is not a folder of its own (a symlink?); refusing to use it")
    uid = os.getuid() if hasattr(os, "getuid") else info.st_uid
    if info.st_uid != uid:
        raise UnsafeState(
            f"{folder} belongs to another user (uid {info.st_uid}); refusing to use it"
        )
    if info.st_mode & 0o022:
        raise UnsafeState(
            f"{folder} is writable by group or others (mode {stat.S_IMODE(info.st_mode):o}); "
            "refusing to use it (chmod 700 it if it is yours)"
        )
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)


def open_private(path: Path, flags: int) -> int:
    """Open a state file for writing: created 0600, never through a symlink."""
    ensure_dir(path.parent)
    try:
        fd = os.open(path, flags | os.O_CREAT | _NOFOLLOW, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeState(f"{path} is a symlink; refusing to follow it") from exc
        raise
    try:
        if os.fstat(fd).st_mode & 0o077 and hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


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
        import signal  # fault injection in the crash tests only

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


def atomic_write_bytes(
    path: Path, data: bytes, *, durable: bool = True, mode: int | None = None
) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync, rename. The file is
    0600 in state, else `mode` (0644) less what the umask takes."""
    private = state_root(path) is not None
    mode = 0o600 if private else 0o644 if mode is None else mode
    ensure_dir(path.parent)
    # A private name in the same folder (so the rename is atomic); not tempfile, whose import
    # costs the hook more than the write itself.
    tmp = path.parent / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    if private and hasattr(os, "fchmod"):
        os.fchmod(fd, 0o600)
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


def atomic_write_text(
    path: Path, text: str, *, durable: bool = True, mode: int | None = None
) -> None:
    """Text is written exactly as given: no newline translation, UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable, mode=mode)


def move(src: Path, dst: Path) -> None:
    """Rename `src` to `dst` durably (same filesystem); the state change of a queue item."""
    ensure_dir(dst.parent)
    checkpoint(f"before move {src.name}")
    os.replace(src, dst)
    fsync_dir(dst.parent)
    if src.parent != dst.parent:
        fsync_dir(src.parent)


def read_text(path: Path) -> str:
    """Read a file as UTF-8 without newline translation (CRLF survives a round trip)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read()


PROBE_GRACE = 0.05  # seconds


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
    from filelock import FileLock, Timeout  # the hook's path writes its job here, lock-free

    ensure_dir(lock_path.parent)
    if os.path.islink(lock_path):  # filelock opens with O_TRUNC: it would empty the target
        raise UnsafeState(f"{lock_path} is a symlink; refusing to follow it")
    private = state_root(lock_path) is not None
    lock = FileLock(str(lock_path), mode=0o600 if private else -1)
    try:
        # Not waiting still allows a grace of PROBE_GRACE: a hook probing whether a pass runs
        # holds a shared lock for microseconds (intake.background._held), and a pass starting
        # at that instant must not take the probe for a running pass and leave its jobs.
        lock.acquire(timeout=timeout if wait else PROBE_GRACE, poll_interval=0.005)
    except Timeout as exc:
        raise LockBusy(busy) from exc
    _release_spawn_claim()
    try:
        yield
    finally:
        lock.release()


SPAWN_FD = "WIKIMEM_STARTING_FD"


def _release_spawn_claim() -> None:
    """A pass started by a hook holds the hook's "a pass is starting" lock (see
    `wikimem.intake.background.spawn_pass`) until it holds the workspace lock: then it lets go,
    so the next hook sees the workspace lock instead and leaves its job to this pass."""
    fd = os.environ.pop(SPAWN_FD, "")
    if fd.isdigit():
        with contextlib.suppress(OSError):
            os.close(int(fd))
