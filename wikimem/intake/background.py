"""Detached wikimem processes: the background pass a hook starts, and the warm listener.

They run in their own session, so a runner tearing down its process group does not kill them,
with stderr appended to `.clarvis/state/background.log`. Starting one must stay cheap: no fork
of the caller and no `subprocess` import on the usual path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def spawn_pass(workspace: str, log_path: str, env: Mapping[str, str] | None = None) -> None:
    """Start `wikimem index` detached, so the runner's next task never waits for it."""
    spawn(["index", "--quiet", "-C", workspace], log_path, env=env)


def spawn_listener(workspace: str, log_path: str, idle: int) -> None:
    """Start a warm intake listener that leaves after `idle` seconds without a run."""
    import socket

    if not hasattr(socket, "AF_UNIX"):  # hooks then always do their work themselves
        return
    spawn(["listen", "--quiet", "--idle", str(idle), "-C", workspace], log_path)


def spawn(
    args: list[str],
    log_path: str,
    payload: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> None:
    """Start `wikimem ARGS` detached, optionally handing it `payload` on its stdin through a
    pipe (never a file: the payload is not yet redacted)."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
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
                        os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                        0o644,
                    ),
                    *((os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited({read_end, write_end})),
                ],
            )
        except (NotImplementedError, TypeError, OSError):
            _popen(argv, log_path, read_end if payload is not None else None, env)
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


def _popen(argv: list[str], log_path: str, stdin_fd: int | None, env: Mapping[str, str]) -> None:
    """The portable fallback where posix_spawn cannot start a new session."""
    import subprocess

    with open(log_path, "ab") as log:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL if stdin_fd is None else stdin_fd,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            env=dict(env),
        )
