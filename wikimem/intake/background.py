"""Detached wikimem processes: the background pass a hook starts, and the warm listener.

They run in their own session, so a runner tearing down its process group does not kill them,
with stderr appended to `.clarvis/state/background.log`. Starting one must stay cheap: no fork
of the caller and no `subprocess` import on the usual path.

At most one pass process per workspace: a hook starts one only when no pass holds the
workspace lock (that pass re-checks the queue after releasing it, so it takes the new job) and
no pass a hook started is still on its way to the lock (it will claim the job once it holds
it). 50 hooks at once then start one or two passes, not 50 (figures in BENCHMARKS.md).

A background pass then stays for the retries of failed jobs that come due within
`queue.retry_wait` seconds (`index --until-due`, wikimem.indexing.indexer). At most one per
workspace waits so (it holds `retry.lock`; another leaves after its passes), and it waits
without the workspace lock: a hook meanwhile starts a pass of its own, as above.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

PASS_LOCK = "pass.lock"  # the workspace lock (config.Places.lock), held by a running pass
RETRY_LOCK = "retry.lock"  # held by the one background pass waiting for due retries
LISTENER_LOCK = "listener.lock"  # held by a serving listener (config.Places.listener_lock)
SPAWN_FD = "WIKIMEM_STARTING_FD"  # the inherited "starting" flock (wikimem.fsio lets it go)


def spawn_pass(workspace: str, log_path: str, env: Mapping[str, str] | None = None) -> bool:
    """Start `wikimem index` detached, so the runner's next task never waits for it; unless a
    pass already runs or is starting in this workspace (False then: it will take the job).
    The pass stays for retries coming due (`--until-due`). The state folder is the one
    `log_path` is in."""
    args = ["index", "--quiet", "--until-due", "-C", workspace]
    return _spawn_one(args, log_path, PASS_LOCK, env)


def spawn_listener(workspace: str, log_path: str, idle: int) -> bool:
    """Start a warm intake listener that leaves after `idle` seconds without a run; unless one
    serves or is starting (a burst of hooks would otherwise start one each, all but one to
    step aside)."""
    import socket  # the hook's path: socket and its enums cost a hook milliseconds

    if not hasattr(socket, "AF_UNIX"):  # hooks then always do their work themselves
        return False
    args = ["listen", "--quiet", "--idle", str(idle), "-C", workspace]
    return _spawn_one(args, log_path, LISTENER_LOCK, None)


def _spawn_one(
    args: list[str], log_path: str, lock_name: str, env: Mapping[str, str] | None
) -> bool:
    """Spawn `wikimem ARGS` unless a process holds `lock_name` or one spawned for it is still
    on its way there. The child inherits an flock on `<lock_name>.starting` and lets go of it
    once it holds `lock_name` (wikimem.fsio.workspace_lock), or when it exits."""
    try:
        import fcntl
    except ImportError:  # no flock here: every hook starts one, and the lock sorts them out
        spawn(args, log_path, env=env)
        return True

    state = os.path.dirname(log_path)
    _private_folder(state)
    if _held(os.path.join(state, lock_name)):
        return False
    fd = os.open(
        os.path.join(state, lock_name + ".starting"),
        os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC,
        0o600,
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        os.set_inheritable(fd, True)
        child_env = {**(os.environ if env is None else env), SPAWN_FD: str(fd)}
        spawn(args, log_path, env=child_env, keep=fd)
        return True
    finally:
        os.close(fd)  # the child holds the flock through its own copy


def lock_held(lock_path: str) -> bool:
    """Whether a process holds `lock_path` (`status` asks it of the retry waiter's lock)."""
    try:
        return _held(lock_path)
    except ImportError:  # no flock here: nobody can tell
        return False


def _held(lock_path: str) -> bool:
    """Whether a process holds `lock_path` (an flock, as filelock takes it). The probe takes a
    shared lock for a few microseconds when it is free."""
    import fcntl  # POSIX only, like the spawn; on the hook's path

    try:
        fd = os.open(lock_path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
    except OSError:
        return False  # never taken yet
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing lets go of the shared lock if we took it
    return False


def _private_folder(folder: str) -> None:
    # the hook's path: pathlib and fsio load only when a pass or listener is actually started
    from pathlib import Path

    from wikimem.fsio import ensure_dir

    ensure_dir(Path(folder))


def spawn(
    args: list[str],
    log_path: str,
    payload: bytes | None = None,
    env: Mapping[str, str] | None = None,
    keep: int = -1,
) -> None:
    """Start `wikimem ARGS` detached, optionally handing it `payload` on its stdin through a
    pipe (never a file: the payload is not yet redacted); descriptor `keep` is inherited."""
    _private_folder(os.path.dirname(log_path))
    env = os.environ if env is None else env
    # -P: a `wikimem/` folder in the runner's working folder must not stand in for the package
    argv = [
        sys.executable,
        *(["-P"] if sys.version_info >= (3, 11) else []),
        "-m",
        "wikimem",
        *args,
    ]
    read_end, write_end = os.pipe() if payload is not None else (-1, -1)
    try:
        try:
            if not hasattr(os, "posix_spawn"):
                raise NotImplementedError
            stdin = (
                [(os.POSIX_SPAWN_DUP2, read_end, 0), (os.POSIX_SPAWN_CLOSE, write_end)]
                if payload is not None
                else [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
            )
            os.posix_spawn(
                sys.executable,
                argv,
                env,
                setsid=True,
                file_actions=[
                    *stdin,
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (
                        os.POSIX_SPAWN_OPEN,
                        2,
                        log_path,
                        os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0),
                        0o600,
                    ),
                    *((os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited({read_end, write_end, keep})),
                ],
            )
        except (NotImplementedError, TypeError, OSError):
            _popen(argv, log_path, read_end if payload is not None else None, env, keep)
        if payload is not None:
            os.close(read_end)
            read_end = -1
            with open(write_end, "wb", closefd=True) as pipe:
                write_end = -1
                pipe.write(payload)
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)


def _inherited(ours: set[int]) -> list[int]:
    """Descriptors above stderr a runner let us inherit: a detached process (a listener lives
    for minutes) must not hold a runner's pipe open, or the runner waits for its end."""
    try:
        names = os.listdir("/dev/fd")
    except OSError:
        return []
    found = []
    for name in names:
        fd = int(name) if name.isdigit() else -1
        if fd > 2 and fd not in ours:
            try:
                if os.get_inheritable(fd):
                    found.append(fd)
            except OSError:
                continue  # the descriptor listdir itself used, closed by now
    return found


def _popen(
    argv: list[str], log_path: str, stdin_fd: int | None, env: Mapping[str, str], keep: int
) -> None:
    """The portable fallback where posix_spawn cannot start a new session."""
    import subprocess  # off the hook's usual path (see the module docstring)

    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(log_path, flags, 0o600), "ab") as log:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL if stdin_fd is None else stdin_fd,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            pass_fds=(keep,) if keep >= 0 else (),
            env=dict(env),
        )
