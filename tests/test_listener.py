"""The warm intake listener: hooks hand it runs over a Unix socket, and fall back to doing the
work themselves whenever it cannot answer. Real processes, a real socket, real queue files."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_wikimem
from tests.test_concurrency import wait_until
from tests.test_hooks_claude import FIRST_PROMPT, payload, transcript  # noqa: F401  (fixture)
from wikimem import listener
from wikimem.queue import Queue

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")

TOKEN = "ghp_" + "Zq8Lw2Rt6Yb0Nc4Vx7Mk1Pj5Hg9Fd3Sa2Ue6"
RUN = {"run_id": "listener-1", "task": "release the web app", "status": "succeeded",
       "agent": {"name": "claude-code"},
       "evidence": [{"command": f"GH_TOKEN={TOKEN} gh release create v1", "exit_code": 0,
                     "output": "released"}]}


class Listener:
    """`wikimem listen` in the foreground; its stdout says when it is ready and what it took."""

    def __init__(self, workspace: Path, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.workspace = workspace
        self.socket = workspace / ".clarvis" / "state" / "intake.sock"
        self.proc = subprocess.Popen([sys.executable, "-m", "wikimem", "listen", *args],
                                     cwd=workspace, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)

    def line(self) -> str:
        """The next line it says (blocks until it says one: the synchronisation point)."""
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def close(self) -> tuple[int, str]:
        listener.stop(str(self.socket))
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        assert self.proc.stderr is not None
        return self.proc.returncode, self.proc.stderr.read()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    assert run_wikimem("init", cwd=folder).returncode == 0
    return folder


@pytest.fixture
def warm(ws: Path) -> Iterator[Listener]:
    served = Listener(ws, "--idle", "0")
    assert served.line().startswith("wikimem: listening for runs in"), served.close()
    yield served
    served.close()


def queued(workspace: Path) -> list[dict]:
    queue = Queue(workspace / ".clarvis" / "state" / "queue")
    return [job.run for state in ("pending", "active", "done", "failed", "review")
            for _, job in queue.jobs(state) if job is not None]


def no_secret_on_disk(workspace: Path, secret: str) -> None:
    for path in (workspace / ".clarvis").rglob("*"):
        if path.is_file() and not path.is_socket():
            assert secret.encode() not in path.read_bytes(), path


def test_a_hook_hands_its_run_to_the_listener_and_returns_once_it_is_queued(
        ws: Path, warm: Listener) -> None:
    hooked = run_wikimem("hook", cwd=ws, input=json.dumps(RUN))
    assert hooked.returncode == 0, hooked.stderr
    assert b"removed 1 secret kind(s)" in hooked.stderr  # the listener's reply, said by the hook
    said = warm.line()
    assert said.startswith("wikimem: queued job") and "(run listener-1)" in said
    runs = queued(ws)  # on disk when the hook returned: the listener answers after the write
    assert [run["run_id"] for run in runs] == ["listener-1"]
    assert TOKEN not in json.dumps(runs)
    no_secret_on_disk(ws, TOKEN)
    again = run_wikimem("hook", cwd=ws, input=json.dumps(RUN))
    assert again.returncode == 0 and "already known" in warm.line()
    assert len(queued(ws)) == 1


def test_the_socket_is_private_and_a_second_listener_steps_aside(
        ws: Path, warm: Listener) -> None:
    assert stat.S_IMODE(warm.socket.stat().st_mode) == 0o600
    second = run_wikimem("listen", cwd=ws)
    assert second.returncode == 1 and b"a listener already serves" in second.stderr
    quiet = run_wikimem("listen", "--quiet", cwd=ws)
    assert quiet.returncode == 0 and quiet.stderr == b""
    status = run_wikimem("listen", "--status", cwd=ws)
    assert f"pid {warm.proc.pid}, 0 run(s) taken".encode() in status.stdout
    overview = run_wikimem("status", "--json", cwd=ws)
    assert json.loads(overview.stdout)["listener"] == {"pid": warm.proc.pid, "runs": 0}


def test_stop_removes_the_socket_and_hooks_go_on_without_it(ws: Path) -> None:
    served = Listener(ws, "--idle", "0")
    served.line()
    assert run_wikimem("listen", "--stop", cwd=ws).stdout.startswith(b"wikimem: the listener")
    code, err = served.close()
    assert code == 0 and err == ""
    assert "listener left (asked to stop)" in served.proc.stdout.read()  # type: ignore[union-attr]
    assert not served.socket.exists()
    assert b"no listener" in run_wikimem("listen", "--status", cwd=ws).stdout
    hooked = run_wikimem("hook", cwd=ws, input=json.dumps(RUN))
    assert hooked.returncode == 0 and [r["run_id"] for r in queued(ws)] == ["listener-1"]


def test_it_leaves_after_its_idle_time(ws: Path) -> None:
    served = Listener(ws, "--idle", "0.2")
    served.line()
    assert served.proc.wait(timeout=30) == 0
    assert "listener left (idle)" in served.line()
    assert not served.socket.exists()


def test_a_dead_listeners_socket_is_no_obstacle(ws: Path) -> None:
    path = ws / ".clarvis" / "state" / "intake.sock"
    path.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays; nobody listens (a listener killed with SIGKILL)
    assert path.is_socket()
    hooked = run_wikimem("hook", cwd=ws, input=json.dumps(RUN))
    assert hooked.returncode == 0 and len(queued(ws)) == 1
    served = Listener(ws, "--idle", "0")
    assert served.line().startswith("wikimem: listening")
    assert listener.ping(str(path)) == {"ok": True, "pid": served.proc.pid, "runs": 0}
    served.close()


def test_garbage_on_the_socket_does_not_stop_it(ws: Path, warm: Listener) -> None:
    for junk in (b"not json\n", b"{\"v\": 1, \"size\": -4}\n", b"[1, 2]\n", b"no newline",
                 json.dumps({"v": 1, "op": "run", "size": 1 << 40}).encode() + b"\n"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(warm.socket))
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(100) == b""  # dropped without an answer
        assert warm.line().startswith("wikimem: listener: dropped a request")
    hooked = run_wikimem("hook", cwd=ws, input=json.dumps(RUN))
    assert hooked.returncode == 0 and warm.line().startswith("wikimem: queued job")


def test_another_installation_is_refused_and_the_hook_does_the_work(
        ws: Path, warm: Listener) -> None:
    header = {"v": listener.PROTOCOL, "op": "ping", "exe": ["/elsewhere", "3.0", "/x"], "size": 0}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(warm.socket))
        sock.sendall(json.dumps(header).encode() + b"\n")
        sock.shutdown(socket.SHUT_WR)
        assert json.loads(sock.recv(1000)) == {"retry": "another wikimem installation"}
    other = listener.send(str(warm.socket), str(ws / "elsewhere"), b"{}", "stdin")
    assert other == {"retry": "not a run for this workspace"}  # the caller does it itself


def test_errors_in_the_run_reach_the_hooks_stderr(ws: Path, warm: Listener) -> None:
    hooked = run_wikimem("hook", cwd=ws, input="{not json")
    assert hooked.returncode == 0  # fails open
    assert hooked.stderr.startswith(b"wikimem hook: stdin:"), hooked.stderr
    assert queued(ws) == []
    assert listener.ping(str(warm.socket)) is not None


def test_the_run_gets_the_hooks_environment_not_the_listeners(ws: Path, warm: Listener) -> None:
    log = "Agent finished: the flaky e2e suite needs `npx playwright install` first.\n"
    env = {"GITHUB_REPOSITORY": "acme/web", "GITHUB_RUN_ID": "991",
           "GITHUB_SERVER_URL": "https://github.com"}
    hooked = run_wikimem("hook", "--github", cwd=ws, input=log, env=env)
    assert hooked.returncode == 0, hooked.stderr
    assert warm.line().startswith("wikimem: queued job")
    [run] = queued(ws)
    assert "acme/web" in json.dumps(run) and "991" in json.dumps(run)


def test_session_end_is_acknowledged_at_once_and_queued_after(
        ws: Path, warm: Listener, transcript: Path) -> None:  # noqa: F811
    event = payload(transcript, hook_event_name="SessionEnd", reason="exit",
                    last_assistant_message=f"Done. The token was {TOKEN}.")
    hooked = run_wikimem("hook", cwd=ws, input=json.dumps(event))
    assert hooked.returncode == 0 and hooked.stderr == b""
    assert warm.line().startswith("wikimem: queued job")
    [run] = queued(ws)
    assert run["task"] == FIRST_PROMPT and TOKEN not in json.dumps(run)
    no_secret_on_disk(ws, TOKEN)


def test_paused_and_switched_off_hooks_never_reach_it(ws: Path, warm: Listener) -> None:
    off = run_wikimem("hook", cwd=ws, input=json.dumps(RUN), env={"WIKIMEM_MEMORY": "off"})
    assert run_wikimem("pause", cwd=ws).returncode == 0
    paused = run_wikimem("hook", cwd=ws, input=json.dumps(RUN))
    assert off.returncode == paused.returncode == 0 and queued(ws) == []
    assert listener.stop(str(warm.socket))
    assert "listener left (asked to stop)" in warm.line()  # nothing else was said before


def test_a_hook_starts_a_listener_that_the_next_hook_uses(ws: Path) -> None:
    path = ws / ".clarvis" / "state" / "intake.sock"
    first = run_wikimem("hook", cwd=ws, input=json.dumps(RUN), env={"WIKIMEM_LINGER": "30"})
    assert first.returncode == 0 and len(queued(ws)) == 1
    wait_until(lambda: listener.ping(str(path)) is not None, "the listener a hook started")
    second = dict(RUN, run_id="listener-2")
    assert run_wikimem("hook", cwd=ws, input=json.dumps(second)).returncode == 0
    assert sorted(r["run_id"] for r in queued(ws)) == ["listener-1", "listener-2"]
    assert listener.ping(str(path))["runs"] == 1  # type: ignore[index]  (the second one)
    assert listener.stop(str(path))
    wait_until(lambda: not path.exists(), "the listener to leave")


def test_a_socket_path_longer_than_unix_allows(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert run_wikimem("init", cwd=deep).returncode == 0
    served = Listener(deep, "--idle", "0")
    assert served.line().startswith("wikimem: listening"), served.close()
    assert len(str(served.socket)) > 110
    assert run_wikimem("hook", cwd=deep, input=json.dumps(RUN)).returncode == 0
    assert served.line().startswith("wikimem: queued job")
    served.close()


def test_twenty_hooks_at_once_through_one_listener_each_land_once(
        ws: Path, warm: Listener) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    hooks = [subprocess.Popen([sys.executable, "-m", "wikimem", "hook", "-q"], cwd=ws, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(20)]
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


def test_terminated_it_tidies_up_killed_the_next_hook_replaces_it(ws: Path) -> None:
    served = Listener(ws, "--idle", "0")
    served.line()
    served.proc.terminate()
    assert served.proc.wait(timeout=30) == 0 and not served.socket.exists()
    served = Listener(ws, "--idle", "0")
    served.line()
    served.proc.kill()
    served.proc.wait(timeout=30)
    assert served.socket.is_socket()  # SIGKILL leaves the socket behind: nobody answers it
    hooked = run_wikimem("hook", cwd=ws, input=json.dumps(RUN), env={"WIKIMEM_LINGER": "30"})
    assert hooked.returncode == 0 and len(queued(ws)) == 1
    wait_until(lambda: listener.ping(str(served.socket)) is not None, "a new listener")
    assert listener.stop(str(served.socket))
    wait_until(lambda: not served.socket.exists(), "the listener to leave")
