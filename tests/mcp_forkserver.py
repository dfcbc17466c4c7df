"""The test MCP memory server (tests/mcp_memory_server.py), started as a command in a few
milliseconds: a process that imported the SDK once forks a server for each command.

The MCP adapter starts its server for every operation, and importing the SDK takes over a
second, most of a provider test. `command(store)` names a small launcher (the stdlib only):
it hands its stdin, stdout and stderr, its arguments, folder and environment to the forking
process over a Unix socket; the forked child runs `mcp_memory_server.main()` on exactly those,
so the adapter talks to a real SDK server in a process of its own, over its own pipes. The
launcher lives as long as the server (it sees the server's end of the socket close) and passes
a SIGTERM on to it.

    python tests/mcp_forkserver.py SOCKET        # the forking process; prints "ready"
    python -I -S tests/mcp_forkserver.py --launch SOCKET STORE.json [--read-only]
"""

from __future__ import annotations

import atexit
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_started: list[tuple[subprocess.Popen[str], str]] = []


def command(store: Path, *more: str) -> str:
    """The shell command that starts a test memory server on `store` (as memory.command)."""
    return shlex.join(
        [sys.executable, "-I", "-S", __file__, "--launch", _socket(), str(store), *more]
    )


def _socket() -> str:
    """The socket of this process's forking server, started the first time it is asked for."""
    if _started and _started[0][0].poll() is None:
        return _started[0][1]
    folder = tempfile.mkdtemp(prefix="mcp-")  # short: a socket's path has a length limit
    path = os.path.join(folder, "fork.sock")
    proc = subprocess.Popen(
        [sys.executable, __file__, path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    _started[:] = [(proc, path)]
    atexit.register(_stop, proc, folder)
    return path


def _stop(proc: subprocess.Popen[str], folder: str) -> None:
    proc.kill()
    proc.wait()
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)


def launch(path: str, argv: list[str]) -> None:
    """The command's side: hand our pipes to a forked server and live as long as it does."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(sock, [json.dumps(request).encode()], [0, 1, 2])
    sock.shutdown(socket.SHUT_WR)
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = sock.recv(64)
        if not chunk:
            sys.exit(1)  # the forking process is gone
        reply += chunk
    pid = int(reply)

    def stop(signum: int, _frame: object) -> None:
        os.kill(pid, signum)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    while sock.recv(64):  # the server holds its end open until it exits
        pass


def serve(path: str) -> None:
    """The forking side: one forked server per launcher that connects."""
    sys.path.insert(0, str(HERE))
    import mcp_memory_server  # the SDK, imported once for every server forked from here

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
        while chunk := conn.recv(1 << 16):
            data += chunk
        pid = os.fork()
        if pid == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for number, fd in enumerate(fds):
                os.dup2(fd, number)
                os.close(fd)
            request = json.loads(data)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            sys.argv = [str(HERE / "mcp_memory_server.py"), *request["argv"]]
            code = 0
            try:
                mcp_memory_server.main()
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
            except BaseException:
                import traceback

                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)  # and with it closes conn: the launcher leaves
        for fd in fds:
            os.close(fd)
        conn.sendall(b"%d\n" % pid)
        conn.close()


if __name__ == "__main__":
    if sys.argv[1] == "--launch":
        launch(sys.argv[2], sys.argv[3:])
    else:
        serve(sys.argv[1])
