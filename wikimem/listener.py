"""The warm intake listener: one process per workspace that takes runs over a Unix socket.

A hook that finds a listener sends it the payload and its environment and waits for the reply,
so it pays for Python's start-up and one round trip instead of importing the run adapters and
redaction rules and writing the job itself. The listener does exactly what an in-process hook
does (adapt, redact, bound, enqueue, start a background pass, with the hook's environment) and
replies only once the job is on disk. A hook that gets no usable reply does the work itself;
the queue drops a run it already holds by run id. The payload travels only through the socket
(memory): unredacted text never reaches a file.

Trust: the socket lives in the workspace's state folder with mode 0600 and the listener checks
the peer's uid where the platform says it (Linux); a hook and listener of another interpreter
or an older copy of the code refuse each other, and the listener leaves when its code changes.
The client half (`send`) imports only os, socket and json: it is the hook's fast path.
"""

from __future__ import annotations

import json
import os
import socket
import sys

TYPE_CHECKING = False  # typing, collections and contextlib cost a hook milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from .config import Places

PROTOCOL = 1
HEADER_MAX = 1 << 22  # the environment rides in the header
PAYLOAD_MAX = 64 << 20  # larger payloads are bounded by an in-process hook instead
REPLY_TIMEOUT = 3.0  # seconds a hook waits before doing the work itself
TICK = 5.0  # seconds between checks that the socket and the code are still ours


# ---- the hook's side ----------------------------------------------------------------------


def send(socket_path: str, workspace: str, data: bytes, source: str, *, github: bool = False,
         early: bool = False, timeout: float = REPLY_TIMEOUT) -> dict[str, Any] | None:
    """Hand one run to the workspace's listener; its reply, or None when no listener answered
    (none, a dead one's socket, a timeout). Either None or a reply holding "retry" (a refusal)
    means the caller does the work itself.

    `early` asks for a reply as soon as the payload is read (SessionEnd, whose hooks have about
    a second and a half, while its transcript can be long)."""
    if not hasattr(socket, "AF_UNIX") or not os.path.exists(socket_path):
        return None
    header = {"v": PROTOCOL, "op": "run", "exe": _installation(), "workspace": workspace,
              "cwd": os.getcwd(), "env": dict(os.environ), "source": source,
              "github": github, "early": early, "size": len(data)}
    try:
        return _ask(socket_path, json.dumps(header).encode("utf-8") + b"\n" + data, timeout)
    except (OSError, ValueError):
        return None


def stop(socket_path: str, timeout: float = REPLY_TIMEOUT) -> bool:
    """Ask a listener to leave; False when none answered."""
    return _control(socket_path, "stop", timeout) is not None


def ping(socket_path: str, timeout: float = REPLY_TIMEOUT) -> dict[str, Any] | None:
    """A live listener's pid and how many runs it queued, or None."""
    return _control(socket_path, "ping", timeout)


def _control(socket_path: str, op: str, timeout: float) -> dict[str, Any] | None:
    if not hasattr(socket, "AF_UNIX") or not os.path.exists(socket_path):
        return None
    header = {"v": PROTOCOL, "op": op, "exe": _installation(), "size": 0}
    try:
        reply = _ask(socket_path, json.dumps(header).encode("utf-8") + b"\n", timeout)
    except (OSError, ValueError):
        return None
    return None if reply is None or "retry" in reply else reply


def _ask(socket_path: str, message: bytes, timeout: float) -> dict[str, Any] | None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        _at(socket_path, sock.connect)
        sock.sendall(message)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    reply = json.loads(b"".join(chunks) or b"null")
    return reply if isinstance(reply, dict) else None


def _installation() -> list[str]:
    """Which Python environment and which copy of wikimem: `python` and `python3` in one
    virtualenv are one installation; two virtualenvs are two."""
    return [sys.prefix, sys.version, os.path.dirname(os.path.abspath(__file__))]


def _at(path: str, call: Callable[[str], None]) -> None:
    """connect/bind to a socket path, also one longer than AF_UNIX allows (~104 bytes): from
    inside its folder, by its bare name."""
    if len(os.fsencode(path)) < 100:
        call(path)
        return
    here = os.getcwd()
    os.chdir(os.path.dirname(path))
    try:
        call(os.path.basename(path))
    finally:
        os.chdir(here)


# ---- the listener's side ------------------------------------------------------------------


def serve(workspace: str, idle: float, say: Callable[[str], None]) -> str:
    """Take runs until `idle` seconds pass without one (0: never), a `stop` request, or the
    socket or the code changes under us; return why it stopped. Raises LockBusy when another
    listener serves this workspace."""
    from . import config
    from .errors import WikimemError
    from .fsio import workspace_lock

    if not hasattr(socket, "AF_UNIX"):
        raise WikimemError("this platform has no Unix sockets: hooks do their work themselves")
    places = config.places(workspace)
    path = str(places.intake_socket)
    _leave_on_signals()
    with workspace_lock(places.listener_lock, busy="a listener already serves this workspace"):
        sock, inode = _bind(path)
        try:
            code = _code_stamp()
            say(f"wikimem: listening for runs in {places.workspace} "
                f"({f'leaving after {idle:g} s idle' if idle else 'until stopped'})")
            return _loop(sock, inode, path, str(places.workspace), idle, code, say)
        finally:
            sock.close()
            if _still_ours(path, inode):
                os.unlink(path)


def _leave_on_signals() -> None:
    """SIGTERM and SIGHUP end the listener through its `finally`, which removes the socket
    (a dead listener's socket only costs hooks a refused connect, but tidy is better)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(0)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), leave)


def _loop(sock: socket.socket, inode: int, path: str, workspace: str, idle: float,
          code: dict[str, tuple[int, int]], say: Callable[[str], None]) -> str:
    import time

    last = time.monotonic()
    taken = [0]  # runs queued so far: `wikimem listen --status` says it
    while True:
        left = idle - (time.monotonic() - last) if idle else TICK
        if left <= 0:
            return "idle"
        sock.settimeout(min(left, TICK))
        try:
            conn, _ = sock.accept()
        except TimeoutError:
            if not _still_ours(path, inode):
                return "socket gone"
            if _code_stamp() != code:
                return "code changed"
            continue
        last = time.monotonic()
        with conn:
            why = _serve_one(conn, workspace, code, say, taken)
        if why:
            return why


def _serve_one(conn: socket.socket, workspace: str, code: dict[str, tuple[int, int]],
               say: Callable[[str], None], taken: list[int]) -> str | None:
    """Answer one connection; return a reason to stop serving, or None."""
    conn.settimeout(REPLY_TIMEOUT)
    try:
        if not _same_user(conn):
            return None
        header, data = _read_request(conn)
    except (OSError, ValueError) as exc:
        say(f"wikimem: listener: dropped a request: {exc}")
        return None
    if header.get("v") != PROTOCOL or header.get("exe") != _installation():
        _reply(conn, {"retry": "another wikimem installation"})
        return None
    if _code_stamp() != code:
        _reply(conn, {"retry": "the listener's code changed"})
        return "code changed"
    op = header.get("op")
    if op == "ping":
        _reply(conn, {"ok": True, "pid": os.getpid(), "runs": taken[0]})
        return None
    if op == "stop":
        _reply(conn, {"ok": True, "pid": os.getpid()})
        return "asked to stop"
    if op != "run" or header.get("workspace") != workspace:
        _reply(conn, {"retry": "not a run for this workspace"})
        return None
    if _take_run(conn, header, data, workspace, say):
        taken[0] += 1
    return None


def _take_run(conn: socket.socket, header: Mapping[str, Any], data: bytes, workspace: str,
              say: Callable[[str], None]) -> bool:
    """Queue one run and start a pass for it; whether a job was queued."""
    from . import config
    from .errors import WikimemError

    env = {str(k): str(v) for k, v in dict(header.get("env") or {}).items()}
    source = str(header.get("source") or "input")
    early = bool(header.get("early"))
    if early:
        _reply(conn, {"ok": True, "received": True})
    try:
        try:
            os.chdir(str(header.get("cwd") or workspace))  # relative paths as the hook saw them
        except OSError:
            os.chdir(workspace)
        reply = accept_run(config.places(workspace, env), data, source,
                           bool(header.get("github")), env)
    except WikimemError as exc:
        reply = {"error": str(exc)}
    except Exception as exc:  # the hook then tries itself, and reports what goes wrong
        reply = {"retry": f"listener failed: {exc.__class__.__name__}: {exc}"}
    if early:
        if "error" in reply or "retry" in reply:
            say(f"wikimem: listener: {source}: {reply.get('error') or reply.get('retry')}")
    else:
        _reply(conn, reply)
    if reply.get("job"):
        say(f"wikimem: queued job {reply['job']} (run {reply['run']})"
            f"{' again: already known' if reply.get('duplicate') else ''}")
        from .background import spawn_pass

        places = config.places(workspace, env)
        spawn_pass(workspace, str(places.background_log), env)
    return bool(reply.get("job"))


def accept_run(places: Places, data: bytes, source: str, github: bool,
               env: Mapping[str, str]) -> dict[str, Any]:
    """Adapt, redact, bound and enqueue one run as the hook would; a reply for the hook."""
    from . import config
    from .intake import enqueue, record_from_bytes
    from .passlog import failure_warning

    if config.memory_disabled(env) or places.paused_flag.exists():
        return {"ok": True, "skipped": "memory is off or paused"}
    record = record_from_bytes(data, source, github, env)
    if record is None:
        return {"ok": True, "skipped": "not a run to remember"}
    done = enqueue(places, config.load(places, env), record)
    return {"ok": True, "job": done.job_id, "run": done.run_id, "duplicate": done.duplicate,
            "redactions": list(done.redactions), "warning": failure_warning(places.pass_log)}


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], bytes]:
    buffer = bytearray()
    while b"\n" not in buffer:
        chunk = conn.recv(65536)
        if not chunk:
            raise ValueError("connection closed before the header ended")
        buffer += chunk
        if len(buffer) > HEADER_MAX + PAYLOAD_MAX:
            raise ValueError("request too large")
    line, _, rest = bytes(buffer).partition(b"\n")
    if len(line) > HEADER_MAX:
        raise ValueError("header too large")
    header = json.loads(line)
    if not isinstance(header, dict):
        raise ValueError("header is not an object")
    size = header.get("size")
    if not isinstance(size, int) or not 0 <= size <= PAYLOAD_MAX:
        raise ValueError(f"bad payload size {size!r}")
    data = bytearray(rest)
    while len(data) < size:
        chunk = conn.recv(min(1 << 20, size - len(data)))
        if not chunk:
            raise ValueError("connection closed before the payload ended")
        data += chunk
    return header, bytes(data[:size])


def _reply(conn: socket.socket, reply: Mapping[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(reply).encode("utf-8"))
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the hook gave up waiting; it does the work itself


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as our user (Linux says so; elsewhere the socket's 0600 mode decides)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", creds)
    return uid == os.getuid()


def _bind(path: str) -> tuple[socket.socket, int]:
    """A listening socket at `path`, mode 0600, and its inode. The caller holds the listener
    lock, so a socket file already there is a dead listener's."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)
        try:
            _at(path, sock.bind)
        finally:
            os.umask(old)
        sock.listen(128)
        return sock, os.stat(path).st_ino
    except BaseException:
        sock.close()
        raise


def _still_ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _code_stamp() -> dict[str, tuple[int, int]]:
    """Size and mtime of every module of this package: an upgrade or an edit makes a running
    listener leave rather than serve with old code."""
    root = os.path.dirname(os.path.abspath(__file__))
    stamp: dict[str, tuple[int, int]] = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                info = os.stat(os.path.join(folder, name))
                stamp[os.path.join(folder, name)] = (info.st_mtime_ns, info.st_size)
    return stamp
