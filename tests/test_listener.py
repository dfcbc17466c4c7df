"""The warm intake listener: hooks hand it runs over a Unix socket, and fall back to doing the
work themselves whenever it cannot answer. Real processes, a real socket, real queue files."""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import queue as lines
import shutil
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_wikimem
from tests.openai_server import Reply
from tests.test_concurrency import wait_until
from tests.test_hooks_claude import FIRST_PROMPT, payload, transcript  # noqa: F401  (fixture)
from tests.test_pipeline import model_env
from wikimem.intake import listener
from wikimem.intake.queue import Queue

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")

TOKEN = "ghp_" + "Zq8Lw2Rt6Yb0Nc4Vx7Mk1Pj5Hg9Fd3Sa2Ue6"
RUN = {
    "run_id": "listener-1",
    "task": "release the web app",
    "status": "succeeded",
    "agent": {"name": "claude-code"},
    "evidence": [
        {"command": f"GH_TOKEN={TOKEN} gh release create v1", "exit_code": 0, "output": "released"}
    ],
}
WAIT = 60  # seconds a test waits for a listener to say something before failing


class Listener:
    """`wikimem listen` in the foreground; what it says on stdout (ready, each run) and stderr
    (what went wrong) arrives line by line: the tests' synchronisation points."""

    def __init__(self, workspace: Path, *args: str, package_root: Path = ROOT) -> None:
        env = {**os.environ, "PYTHONPATH": str(package_root)}
        self.socket = workspace / ".clarvis" / "state" / "intake.sock"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "wikimem", "listen", *args],
            cwd=workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: lines.Queue[str] = lines.Queue()
        self.err: lines.Queue[str] = lines.Queue()
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()

    @staticmethod
    def _pump(stream, sink: lines.Queue[str]) -> None:  # type: ignore[no-untyped-def]
        for text in stream:
            sink.put(text)
        sink.put("")  # end of stream

    def line(self) -> str:
        return self.out.get(timeout=WAIT)

    def error(self) -> str:
        return self.err.get(timeout=WAIT)

    def close(self) -> int:
        if self.proc.poll() is None:
            listener.stop(str(self.socket))
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait()


@pytest.fixture
def start() -> Iterator[Callable[..., Listener]]:
    """Start listeners that are stopped (or killed) whatever the test's outcome."""
    started: list[Listener] = []

    def begin(workspace: Path, *args: str, package_root: Path = ROOT) -> Listener:
        served = Listener(workspace, *args, package_root=package_root)
        started.append(served)
        ready = served.line()
        assert ready.startswith("wikimem: listening for runs in"), (ready, served.error())
        return served

    yield begin
    for served in started:
        served.close()


@pytest.fixture
def ws(tmp_path: Path, initialised: Callable[[Path], Path]) -> Path:
    return initialised(tmp_path / "ws")  # as `wikimem init` leaves it


@pytest.fixture
def warm(ws: Path, start: Callable[..., Listener]) -> Listener:
    return start(ws, "--idle", "0")


def queued(workspace: Path) -> list[dict]:
    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    return [
        job.run
        for state in ("pending", "active", "done", "failed", "review")
        for _, job in queue.jobs(state)
        if job is not None
    ]


def no_secret_on_disk(workspace: Path, secret: str) -> None:
    for path in (workspace / ".clarvis").rglob("*"):
        if path.is_file() and not path.is_socket():
            assert secret.encode() not in path.read_bytes(), path


def hook(
    ws: Path,
    run: dict | str = RUN,
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    return run_wikimem(
        "hook",
        *args,
        cwd=cwd or ws,
        input=run if isinstance(run, str) else json.dumps(run),
        env=env,
    )


def copy_of_the_package(tmp_path: Path) -> Path:
    """Another copy of wikimem (another installation, as far as a listener can tell)."""
    root = tmp_path / "other-install"
    shutil.copytree(
        ROOT / "wikimem", root / "wikimem", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(ROOT / "templates", root / "templates")
    return root


def test_a_hook_hands_its_run_to_the_listener_and_returns_once_it_is_queued(
    ws: Path, warm: Listener
) -> None:
    hooked = hook(ws)
    runs = queued(ws)  # read before anything else: the listener answers after the write
    assert hooked.returncode == 0, hooked.stderr
    assert [run["run_id"] for run in runs] == ["listener-1"]
    assert b"removed 1 secret kind(s)" in hooked.stderr  # the listener's reply, said by the hook
    said = warm.line()
    assert said.startswith("wikimem: queued job") and "(run listener-1)" in said
    assert TOKEN not in json.dumps(runs)
    no_secret_on_disk(ws, TOKEN)
    assert hook(ws).returncode == 0 and "already known" in warm.line()
    assert len(queued(ws)) == 1


def test_through_the_listener_the_hook_loads_none_of_the_intake(ws: Path, warm: Listener) -> None:
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wikimem", "hook", "-q"],
        cwd=ws,
        input=json.dumps(RUN).encode(),
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT,
    )
    assert traced.returncode == 0
    loaded = {line.rsplit("|", 1)[-1].strip() for line in traced.stderr.decode().splitlines()}
    assert "wikimem.intake.listener" in loaded
    assert not loaded & {
        "wikimem.redaction.redact",
        "wikimem.config",
        "wikimem.intake.accept",
        "dataclasses",
        "pathlib",
        "typing",
        "json",
        "re",
        "socket",
        "enum",
        "click",
        "openai",
        "git",
    }, sorted(loaded)
    assert warm.line().startswith("wikimem: queued job")


def test_the_pass_it_starts_runs_with_the_hooks_environment(
    ws: Path, warm: Listener, openai_server
) -> None:  # type: ignore[no-untyped-def]
    openai_server.default = Reply.plan({"summary": "nothing durable", "edits": []})
    hooked = hook(ws, env=model_env(openai_server))  # the listener itself has no model set
    assert hooked.returncode == 0 and warm.line().startswith("wikimem: queued job")
    [request] = openai_server.wait_for_requests(1, timeout=WAIT)
    assert request.body["model"] == "memory-model"


def test_the_socket_is_private_and_a_second_listener_steps_aside(ws: Path, warm: Listener) -> None:
    assert stat.S_IMODE(warm.socket.stat().st_mode) == 0o600
    second = run_wikimem("listen", cwd=ws)
    assert second.returncode == 1 and b"a listener already serves" in second.stderr
    quiet = run_wikimem("listen", "--quiet", cwd=ws)
    assert quiet.returncode == 0 and quiet.stderr == b""
    status = run_wikimem("listen", "--status", cwd=ws)
    assert f"pid {warm.proc.pid}, 0 run(s) taken".encode() in status.stdout
    as_json = run_wikimem("listen", "--status", "--json", cwd=ws)
    assert json.loads(as_json.stdout) == {"running": True, "pid": warm.proc.pid, "runs": 0}
    overview = run_wikimem("status", "--json", cwd=ws)
    assert json.loads(overview.stdout)["listener"] == {"pid": warm.proc.pid, "runs": 0}


def test_a_socket_anyone_may_open_gets_no_secrets(ws: Path, warm: Listener) -> None:
    os.chmod(warm.socket, 0o666)  # as if someone else had put it there
    hooked = hook(ws)
    assert hooked.returncode == 0 and len(queued(ws)) == 1  # the hook did the work itself
    assert listener.ping(str(warm.socket)) is None
    os.chmod(warm.socket, 0o600)
    assert listener.ping(str(warm.socket))["runs"] == 0  # type: ignore[index]


def test_stop_removes_the_socket_and_hooks_go_on_without_it(
    ws: Path, start: Callable[..., Listener]
) -> None:
    served = start(ws, "--idle", "0")
    assert run_wikimem("listen", "--stop", cwd=ws).stdout.startswith(b"wikimem: the listener")
    assert served.line() == "wikimem: listener left (asked to stop)\n"
    assert served.close() == 0 and not served.socket.exists()
    assert b"no listener" in run_wikimem("listen", "--status", cwd=ws).stdout
    none = run_wikimem("listen", "--status", "--json", cwd=ws).stdout
    assert json.loads(none) == {"running": False, "pid": None, "runs": 0}
    assert hook(ws).returncode == 0 and [r["run_id"] for r in queued(ws)] == ["listener-1"]


def test_it_leaves_when_idle_or_when_its_socket_goes(
    ws: Path, start: Callable[..., Listener]
) -> None:
    served = start(ws, "--idle", "0.2")
    assert served.line() == "wikimem: listener left (idle)\n"
    assert served.close() == 0 and not served.socket.exists()
    served = start(ws, "--idle", "0")
    served.socket.unlink()  # the workspace's state was wiped
    assert served.line() == "wikimem: listener left (socket gone)\n"


def test_it_leaves_when_its_code_changes(
    ws: Path, tmp_path: Path, start: Callable[..., Listener]
) -> None:
    root = copy_of_the_package(tmp_path)
    served = start(ws, "--idle", "0", package_root=root)
    init = root / "wikimem" / "__init__.py"
    init.write_text(init.read_text() + "\n# upgraded\n")
    assert served.line() == "wikimem: listener left (code changed)\n"
    assert served.close() == 0


def test_another_installation_is_refused_and_the_hook_does_the_work(
    ws: Path, tmp_path: Path, start: Callable[..., Listener]
) -> None:
    served = start(ws, "--idle", "0", package_root=copy_of_the_package(tmp_path))
    hooked = hook(ws)
    assert hooked.returncode == 0 and [r["run_id"] for r in queued(ws)] == ["listener-1"]
    assert listener.ping(str(served.socket))["runs"] == 0  # type: ignore[index]
    assert b"a listener runs here" in run_wikimem("listen", "--status", cwd=ws).stdout
    other = listener.send(str(served.socket), str(ws / "elsewhere"), b"{}", "stdin")
    assert other == {"retry": "another wikimem installation"}


def test_a_dead_listeners_socket_is_no_obstacle(ws: Path, start: Callable[..., Listener]) -> None:
    path = ws / ".clarvis" / "state" / "intake.sock"
    path.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    os.chmod(path, 0o600)
    dead.close()  # the file stays; nobody listens (a listener killed with SIGKILL)
    assert hook(ws).returncode == 0 and len(queued(ws)) == 1
    served = start(ws, "--idle", "0")
    assert listener.ping(str(path)) == {"ok": True, "pid": served.proc.pid, "runs": 0}


def framed(head: bytes) -> bytes:
    return len(head).to_bytes(4, "big") + head


JUNK = [
    b"\x00\x00",
    b"\xff\xff\xff\xff" + b"x" * 100,
    framed(b"not marshal"),
    framed(marshal.dumps([1, 2])),
    framed(marshal.dumps({"v": 2, "op": "ping", "size": 0})),
    listener.frame({"v": 1, "op": "ping", "size": -4}),
    listener.frame({"v": 1, "op": "run", "size": 1 << 40}),
    listener.frame({"v": 1, "op": "run", "size": 0, "env": 5}),
    listener.frame({"v": 1, "op": "run", "size": 0, "env": {"A": 1}}),
    listener.frame({"v": 1, "op": "dance", "size": 0}),
    listener.frame({"v": 1, "op": "run", "size": 10}, b"short"),
]


def test_garbage_on_the_socket_is_dropped_and_it_keeps_serving(ws: Path, warm: Listener) -> None:
    for junk in JUNK:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(WAIT)
            sock.connect(str(warm.socket))
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            # dropped without an answer (a reset when unread bytes were left behind)
            with contextlib.suppress(ConnectionResetError):
                assert sock.recv(100) == b"", junk[:40]
        assert warm.error().startswith("wikimem: listener: dropped a request"), junk[:40]
    assert hook(ws).returncode == 0 and warm.line().startswith("wikimem: queued job")


def test_errors_in_the_run_reach_the_hooks_stderr(ws: Path, warm: Listener) -> None:
    hooked = hook(ws, "{not json")
    assert hooked.returncode == 0  # fails open
    assert hooked.stderr.startswith(b"wikimem hook: stdin:"), hooked.stderr
    assert queued(ws) == []
    assert listener.ping(str(warm.socket)) is not None


def test_the_run_gets_the_hooks_environment_not_the_listeners(ws: Path, warm: Listener) -> None:
    log = "Agent finished: the flaky e2e suite needs `npx playwright install` first.\n"
    env = {
        "GITHUB_REPOSITORY": "acme/web",
        "GITHUB_RUN_ID": "991",
        "GITHUB_SERVER_URL": "https://github.com",
    }
    hooked = hook(ws, log, "--github", env=env)
    assert hooked.returncode == 0, hooked.stderr
    assert warm.line().startswith("wikimem: queued job")
    [run] = queued(ws)
    assert "acme/web" in json.dumps(run) and "991" in json.dumps(run)


def test_a_relative_file_from_another_folder_with_a_workspace_flag(
    ws: Path, warm: Listener, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "run.json").write_text(json.dumps(RUN))
    hooked = run_wikimem("hook", "-C", str(ws), "run.json", cwd=elsewhere)
    assert hooked.returncode == 0, hooked.stderr
    assert warm.line().startswith("wikimem: queued job")
    assert [r["run_id"] for r in queued(ws)] == ["listener-1"]


def test_session_end_is_acknowledged_at_once_and_queued_after(
    ws: Path, warm: Listener, transcript: Path
) -> None:  # noqa: F811
    event = payload(
        transcript,
        hook_event_name="SessionEnd",
        reason="exit",
        last_assistant_message=f"Done. The token was {TOKEN}.",
    )
    hooked = hook(ws, json.dumps(event))
    assert hooked.returncode == 0 and hooked.stderr == b""
    assert warm.line().startswith("wikimem: queued job")
    runs = queued(ws)  # both turns of the session: no Stop recorded the first
    assert {run["task"] for run in runs} >= {FIRST_PROMPT} and len(runs) == 2
    assert TOKEN not in json.dumps(runs)
    no_secret_on_disk(ws, TOKEN)


def test_paused_and_switched_off_hooks_never_reach_it(ws: Path, warm: Listener) -> None:
    off = hook(ws, env={"WIKIMEM_MEMORY": "off"})
    assert run_wikimem("pause", cwd=ws).returncode == 0
    paused = hook(ws)
    assert off.returncode == paused.returncode == 0 and queued(ws) == []
    assert listener.stop(str(warm.socket))
    assert warm.line() == "wikimem: listener left (asked to stop)\n"  # nothing said before


def test_a_hook_starts_a_listener_that_the_next_hook_uses(ws: Path) -> None:
    path = ws / ".clarvis" / "state" / "intake.sock"
    try:
        assert hook(ws, env={"WIKIMEM_LINGER": "30"}).returncode == 0 and len(queued(ws)) == 1
        wait_until(lambda: listener.ping(str(path)) is not None, "the listener a hook started")
        assert hook(ws, dict(RUN, run_id="listener-2")).returncode == 0
        assert sorted(r["run_id"] for r in queued(ws)) == ["listener-1", "listener-2"]
        assert listener.ping(str(path))["runs"] == 1  # type: ignore[index]  (the second run)
    finally:
        listener.stop(str(path))
    wait_until(lambda: not path.exists(), "the listener to leave")


def test_a_socket_path_longer_than_unix_allows(
    tmp_path: Path, start: Callable[..., Listener]
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert run_wikimem("init", cwd=deep).returncode == 0
    served = start(deep, "--idle", "0")
    assert len(str(served.socket)) > 110
    assert hook(deep).returncode == 0
    assert served.line().startswith("wikimem: queued job")


def test_twenty_hooks_at_once_through_one_listener_each_land_once(ws: Path, warm: Listener) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    hooks = [
        subprocess.Popen(
            [sys.executable, "-m", "wikimem", "hook", "-q"],
            cwd=ws,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(20)
    ]
    for n, proc in enumerate(hooks):  # all payloads first (each fits a pipe's buffer), then wait
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(dict(RUN, run_id=f"burst-{n}")).encode())
        proc.stdin.close()
    for proc in hooks:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()  # type: ignore[union-attr]
    assert sorted(r["run_id"] for r in queued(ws)) == sorted(f"burst-{n}" for n in range(20))
    taken = listener.ping(str(warm.socket))["runs"]  # type: ignore[index]
    assert 0 < taken <= 20  # a hook that timed out did the work itself, once
    no_secret_on_disk(ws, TOKEN)


def test_it_reaps_the_passes_it_starts(ws: Path, warm: Listener) -> None:
    for n in range(3):
        assert hook(ws, dict(RUN, run_id=f"reap-{n}")).returncode == 0
        warm.line()
    assert listener.ping(str(warm.socket)) is not None  # a loop turn, which reaps
    wait_until(
        lambda: not [pid for pid in children(warm.proc.pid) if zombie(pid)],
        "the listener to reap its finished passes",
    )


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        pytest.skip("no /proc children list here")
    return [int(child) for child in text.split()]


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_terminated_it_tidies_up_killed_the_next_hook_replaces_it(
    ws: Path, start: Callable[..., Listener]
) -> None:
    served = start(ws, "--idle", "0")
    served.proc.terminate()
    assert served.close() == 0 and not served.socket.exists()
    served = start(ws, "--idle", "0")
    served.proc.kill()
    served.proc.wait(timeout=WAIT)
    assert served.socket.is_socket()  # SIGKILL leaves the socket behind: nobody answers it
    try:
        hooked = hook(ws, env={"WIKIMEM_LINGER": "30"})
        assert hooked.returncode == 0 and len(queued(ws)) == 1
        wait_until(lambda: listener.ping(str(served.socket)) is not None, "a new listener")
    finally:
        listener.stop(str(served.socket))
    wait_until(lambda: not served.socket.exists(), "the listener to leave")


def test_a_runners_pipe_is_not_held_open_by_the_listener_a_hook_starts(ws: Path) -> None:
    """A runner that reads a pipe it passed to the hook until EOF must not wait for the
    listener (or the pass) the hook left behind."""
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)
    path = ws / ".clarvis" / "state" / "intake.sock"
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "wikimem", "hook", "-q"],
            cwd=ws,
            stdin=subprocess.PIPE,
            pass_fds=(write_end,),
            env={**os.environ, "PYTHONPATH": str(ROOT), "WIKIMEM_LINGER": "30"},
        )
        proc.communicate(json.dumps(RUN).encode(), timeout=WAIT)
        os.close(write_end)
        write_end = -1
        wait_until(lambda: listener.ping(str(path)) is not None, "the listener a hook started")
        os.set_blocking(read_end, False)  # still held somewhere: BlockingIOError, not a hang
        assert os.read(read_end, 1) == b""  # EOF: nobody else holds the write end
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
        listener.stop(str(path))
    wait_until(lambda: not path.exists(), "the listener to leave")


@pytest.mark.parametrize("args", [("--idle", "-1"), ("--idle", "soon"), ("--bogus",)])
def test_bad_listen_arguments_are_one_line_and_start_nothing(ws: Path, args: tuple) -> None:
    called = run_wikimem("listen", *args, cwd=ws)
    assert called.returncode == 2 and called.stdout == b""
    assert called.stderr.count(b"\n") == 1 and b"wikimem listen --help" in called.stderr
    assert not (ws / ".clarvis" / "state" / "intake.sock").exists()
