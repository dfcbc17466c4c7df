"""The warm intake listener: one process per workspace that takes runs over a Unix socket.

A hook that finds a listener sends it the payload and its environment and waits for the reply,
so it pays for Python's start-up and one round trip instead of importing the run adapters and
redaction rules and writing the job itself. The listener does exactly what an in-process hook
does (adapt, redact, bound, enqueue, start a background pass, with the hook's environment) and
replies only once the job is on disk. A hook that gets no usable reply does the work itself;
the queue drops a run it already holds by run id. The payload travels only through the socket
(memory): unredacted text never reaches a file.

Trust runs both ways. The socket lives in the workspace's state folder with mode 0600; each side
checks the other's uid where the platform says it (SO_PEERCRED, LOCAL_PEERCRED), and the hook
also refuses a socket file that is not ours and private, since it sends its environment. A hook
and listener of another Python environment or another copy of wikimem refuse each other, and
the listener leaves when its code changes on disk.
The wire format is a 4-byte length, a `marshal`led header (the hook's environment rides in it),
then the payload; the reply is one `marshal`led table. marshal and `_socket` are built into the
interpreter, where json (and re) and socket (and enum) would double a hook's import time; both
ends are checked to be the same user and the same installation, so marshal's format and trust
assumptions hold. The client half (`send`) is the hook's fast path and imports nothing else.
"""

from __future__ import annotations

import _socket as socket  # the C module under `socket`, without its enum start-up cost
import marshal
import os
import sys

TYPE_CHECKING = False  # typing, collections and contextlib cost a hook milliseconds to import
if TYPE_CHECKING:
    import socket as stdlib_socket  # the listener's own end is a full socket object
    from collections.abc import Callable, Mapping
    from typing import Any

PROTOCOL = 1
HEADER_MAX = 1 << 22  # the environment rides in the header
PAYLOAD_MAX = 64 << 20  # larger payloads are bounded by an in-process hook instead
REPLY_TIMEOUT = 2.0  # seconds, all told, a hook waits before doing the work itself
EARLY_TIMEOUT = 0.5  # SessionEnd hooks have ~1.5 s; the pipe handoff is the fallback
TICK = 1.0  # seconds between checks that the socket and the code are still ours


# ---- the hook's side ----------------------------------------------------------------------


def send(
    socket_path: str,
    workspace: str,
    data: bytes,
    source: str,
    *,
    github: bool = False,
    early: bool = False,
) -> dict[str, Any] | None:
    """Hand one run to the workspace's listener; its reply, or None when no listener is there
    to ask (no socket, a dead one's socket, not a socket of ours). A reply holding "retry" (a
    refusal, or no answer in time) also means the caller does the work itself.

    `early` asks for a reply as soon as the payload is read (SessionEnd, whose hooks have about
    a second and a half, while its transcript can be long)."""
    if len(data) > PAYLOAD_MAX:
        return {"retry": "payload too large for the listener"}
    try:
        if not _private_socket(socket_path):
            return None
        try:
            cwd = os.getcwd()
        except OSError:  # a deleted folder: the listener then works from the workspace
            cwd = workspace
        header = {
            "v": PROTOCOL,
            "op": "run",
            "exe": _installation(),
            "workspace": workspace,
            "cwd": cwd,
            "env": dict(os.environ),
            "source": source,
            "github": github,
            "early": early,
            "size": len(data),
        }
        return _ask(socket_path, frame(header, data), EARLY_TIMEOUT if early else REPLY_TIMEOUT)
    except Exception:  # whatever it is, the hook does the work itself
        return None


def stop(socket_path: str) -> bool:
    """Ask a listener to leave; False when none answered."""
    return _control(socket_path, "stop") is not None


def ping(socket_path: str) -> dict[str, Any] | None:
    """A live listener's pid and how many runs it queued, or None."""
    return _control(socket_path, "ping")


def _control(socket_path: str, op: str) -> dict[str, Any] | None:
    try:
        if not _private_socket(socket_path):
            return None
        reply = _ask(socket_path, frame({"v": PROTOCOL, "op": op, "size": 0}), REPLY_TIMEOUT)
    except Exception:
        return None
    return None if reply is None or "retry" in reply else reply


def frame(header: Mapping[str, Any], data: bytes = b"") -> bytes:
    """One request on the wire: the header's length, the header, the payload."""
    head = marshal.dumps(dict(header))
    return len(head).to_bytes(4, "big") + head + data


def _private_socket(path: str) -> bool:
    """A socket file of our own user that nobody else may open: the hook sends it secrets."""
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        info.st_mode & 0o170000 == 0o140000
        and info.st_mode & 0o077 == 0
        and info.st_uid == os.getuid()
    )


def _ask(socket_path: str, message: bytes, timeout: float) -> dict[str, Any] | None:
    """One request, one reply, within `timeout` seconds all told. None when nothing listens;
    a "retry" reply when a listener is there but did not answer in time."""
    import time  # the hook's side: imported when a listener's socket is there to ask

    deadline = time.monotonic() + timeout
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            _at(socket_path, sock.connect)
        except TimeoutError:  # alive but swamped: do the work, start no second listener
            return {"retry": "the listener did not take the connection in time"}
        except OSError:
            return None  # refused or gone: a dead listener's socket
        if not _same_user(sock):
            return None
        try:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            sock.sendall(message)
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while True:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError as exc:  # a timeout is an OSError
            return {"retry": f"no answer from the listener ({exc.__class__.__name__})"}
    finally:
        sock.close()
    try:
        reply = marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):
        reply = None
    return reply if isinstance(reply, dict) else {"retry": "no answer from the listener"}


def _installation() -> list[str]:
    """Which Python environment and which copy of wikimem: `python` and `python3` in one
    virtualenv are one installation; two virtualenvs are two."""
    return [sys.prefix, sys.version, os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]


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


def _same_user(sock: socket.socket) -> bool:
    """The other end runs as our user, where the platform says (Linux SO_PEERCRED, macOS and
    BSD LOCAL_PEERCRED); elsewhere the socket file's owner and mode decide."""
    import struct  # the hook's side: only once connected

    try:
        if hasattr(socket, "SO_PEERCRED"):
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            return struct.unpack("3i", creds)[1] == os.getuid()
        if hasattr(socket, "LOCAL_PEERCRED"):  # struct xucred: version, then uid
            creds = sock.getsockopt(0, socket.LOCAL_PEERCRED, 76)
            return struct.unpack_from("Ii", creds)[1] == os.getuid()
    except OSError:
        return False
    return True


# ---- the listener's side ------------------------------------------------------------------


def serve(
    workspace: str, idle: float, say: Callable[[str], None], warn: Callable[[str], None]
) -> str:
    """Take runs until `idle` seconds pass without one (0: never), a `stop` request, or the
    socket or the code changes under us; return why it stopped. `say` reports each run,
    `warn` what went wrong (it reaches the background log even when `say` is silent).
    Raises LockBusy when another listener serves this workspace."""
    # the listener's side: the module's other half is the hook's fast path
    from wikimem import config
    from wikimem.errors import WikimemError
    from wikimem.fsio import workspace_lock

    if not hasattr(socket, "AF_UNIX"):
        raise WikimemError("this platform has no Unix sockets: hooks do their work themselves")
    places = config.places(workspace)
    path = str(places.intake_socket)
    _leave_on_signals()
    with workspace_lock(places.listener_lock, busy="a listener already serves this workspace"):
        sock, inode = _bind(path)
        try:
            listener = _Listener(sock, inode, path, str(places.workspace), say, warn)
            say(
                f"wikimem: listening for runs in {places.workspace} "
                f"({f'leaving after {idle:g} s idle' if idle else 'until stopped'})"
            )
            return listener.loop(idle)
        finally:
            sock.close()
            if _still_ours(path, inode):
                os.unlink(path)


def _leave_on_signals() -> None:
    """SIGTERM and SIGHUP end the listener through its `finally`, which removes the socket
    (a dead listener's socket only costs hooks a refused connect, but tidy is better)."""
    import signal  # the listener's side (see serve)
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(0)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), leave)


class _Listener:
    """The serving loop's state: its socket, its code's stamp, the runs it took."""

    def __init__(
        self,
        sock: stdlib_socket.socket,
        inode: int,
        path: str,
        workspace: str,
        say: Callable[[str], None],
        warn: Callable[[str], None],
    ) -> None:
        self.sock, self.inode, self.path, self.workspace = sock, inode, path, workspace
        self.say, self.warn = say, warn
        self.code = _code_stamp()
        self.runs = 0

    def loop(self, idle: float) -> str:
        import time  # the listener's side (see serve)

        last = time.monotonic()
        while True:
            _reap()
            why = self.gone()
            if why:
                return why
            left = idle - (time.monotonic() - last) if idle else TICK
            if left <= 0:
                return "idle"
            self.sock.settimeout(min(left, TICK))
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, ConnectionAbortedError, InterruptedError):
                continue  # a quiet tick, or a hook that gave up before we took it
            with conn:
                try:
                    why, took_run = self.serve_one(conn)
                except Exception as exc:  # one bad request never ends the listener
                    why, took_run = None, False
                    self.warn(
                        f"wikimem: listener: dropped a request: {exc.__class__.__name__}: {exc}"
                    )
            if took_run:
                last = time.monotonic()  # only runs count: `status` polling is not activity
            os.chdir(self.workspace)  # never pin the folder of a hook that has gone
            if why:
                return why

    def gone(self) -> str | None:
        if not _still_ours(self.path, self.inode):
            return "socket gone"
        if _code_stamp() != self.code:
            return "code changed"
        return None

    def serve_one(self, conn: socket.socket) -> tuple[str | None, bool]:
        """Answer one connection: (a reason to stop serving or None, whether a run came)."""
        conn.settimeout(REPLY_TIMEOUT)
        if not _same_user(conn):
            return None, False
        try:
            header, data = _read_request(conn)
        except (OSError, ValueError) as exc:
            self.warn(f"wikimem: listener: dropped a request: {exc}")
            return None, False
        op = header["op"]
        if op in ("ping", "stop"):  # harmless from any installation: status and --stop see us
            _reply(conn, {"ok": True, "pid": os.getpid(), "runs": self.runs})
            return ("asked to stop" if op == "stop" else None), False
        why = self.gone()
        if header.get("exe") != _installation() or why:
            _reply(conn, {"retry": why or "another wikimem installation"})
            return why, False
        if op != "run" or header.get("workspace") != self.workspace:
            _reply(conn, {"retry": "not a run for this workspace"})
            return None, False
        if self.take_run(conn, header, data):
            self.runs += 1
        return None, True

    def take_run(self, conn: socket.socket, header: Mapping[str, Any], data: bytes) -> bool:
        """Queue one run and start a pass for it; whether a job was queued."""
        # the listener's side (see serve)
        from wikimem import config
        from wikimem.errors import WikimemError
        from wikimem.intake.accept import accept
        from wikimem.intake.background import spawn_pass

        env = header.get("env", {})  # checked by _read_request: a table of strings
        source = str(header.get("source") or "input")
        early = bool(header.get("early"))
        if early:
            _reply(conn, {"ok": True, "received": True})
        try:
            try:
                os.chdir(str(header.get("cwd") or self.workspace))  # relative paths as the
            except OSError:  # hook saw them
                os.chdir(self.workspace)
            places = config.places(self.workspace, env)
            reply = accept(places, env, data, source, bool(header.get("github"))).wire()
        except WikimemError as exc:
            reply = {"error": str(exc)}
        except Exception as exc:  # the hook then tries itself, and reports what goes wrong
            reply = {"retry": f"listener failed: {exc.__class__.__name__}: {exc}"}
        if not early:
            _reply(conn, reply)
        elif "error" in reply or "retry" in reply:  # nobody waits for it: the log must say it
            self.warn(f"wikimem hook: {reply.get('error') or reply.get('retry')}")
        if not reply.get("job"):
            return False
        self.say(
            f"wikimem: queued job {reply['job']} (run {reply['run']})"
            f"{' again: already known' if reply.get('duplicate') else ''}"
        )
        spawn_pass(self.workspace, str(places.background_log), env)
        return True


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], bytes]:
    """One request: a 4-byte length, a marshalled header, `size` bytes of payload.
    ValueError for anything else."""
    head_size = int.from_bytes(_read_exactly(conn, 4, "the header's length"), "big")
    if head_size > HEADER_MAX:
        raise ValueError("header too large")
    try:
        header = marshal.loads(_read_exactly(conn, head_size, "the header"))
    except (EOFError, TypeError) as exc:
        raise ValueError(f"unreadable header ({exc})") from exc
    if not isinstance(header, dict) or header.get("v") != PROTOCOL:
        raise ValueError("not a request of this protocol")
    size, op, env = header.get("size"), header.get("op"), header.get("env", {})
    if type(size) is not int or not 0 <= size <= PAYLOAD_MAX:
        raise ValueError(f"bad payload size {size!r}")
    if op not in ("run", "ping", "stop"):
        raise ValueError(f"unknown request {op!r}")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise ValueError("the environment is not a table of strings")
    return header, _read_exactly(conn, size, "the payload")


def _read_exactly(conn: socket.socket, size: int, what: str) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = conn.recv(min(1 << 20, size - len(data)))
        if not chunk:
            raise ValueError(f"connection closed before {what} ended")
        data += chunk
    return bytes(data)


def _reply(conn: socket.socket, reply: Mapping[str, Any]) -> None:
    try:
        conn.sendall(marshal.dumps(dict(reply)))
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the hook gave up waiting; it does the work itself


def _reap() -> None:
    """Collect the passes this listener started, so none lingers as a zombie."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except (ChildProcessError, OSError, AttributeError):
            return
        if pid == 0:
            return


def _bind(path: str) -> tuple[stdlib_socket.socket, int]:
    """A listening socket at `path`, mode 0600, and its inode. The caller holds the listener
    lock, so a socket file already there is a dead listener's."""
    import socket as sockets  # the full module: accept() hands out closable socket objects

    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    sock = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
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
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamp: dict[str, tuple[int, int]] = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                info = os.stat(os.path.join(folder, name))
                stamp[os.path.join(folder, name)] = (info.st_mtime_ns, info.st_size)
    return stamp
