"""Shared fixtures: an isolated environment (HOME, WIKIMEM_HOME, git config, model variables),
temp workspaces, the CLI in-process and as a real subprocess, and the loopback model server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.openai_server import openai_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "wikimem" / "data" / "runs"
GITCONFIG = (
    "[user]\n\tname = Ada Person\n\temail = ada@example.test\n[init]\n\tdefaultBranch = main\n"
)
CLEARED = (
    "WIKIMEM_MODEL",
    "WIKIMEM_WORKSPACE",
    "WIKIMEM_FALLBACK_MODELS",
    "WIKIMEM_MEMORY",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "CODEX_HOME",
)


MEMORY_TMP = Path("/dev/shm")  # a tmpfs on Linux: files in memory, fsync costs nothing
MEMORY_TMP_FREE = 2 << 30  # bytes it must have free for the suite's folders


def pytest_configure(config: pytest.Config) -> None:
    """Put the suite's temporary folders (tmp_path, tempfile, the processes the tests start) in
    memory when the machine has a tmpfs and no one chose a place: every pass fsyncs its writes,
    sqlite fsyncs each schema it creates, and each test's repositories are made and removed,
    which on a busy disk took over half the suite's time. What a test asserts does not change:
    no test cuts the power, a SIGKILLed process leaves its writes in the page cache either way.
    Set TMPDIR (or --basetemp) to keep them on disk."""
    if hasattr(config, "workerinput") or config.option.basetemp:
        return  # a worker inherits the environment its controller set
    if os.environ.get("TMPDIR") or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return
    try:
        usable = MEMORY_TMP.is_dir() and os.access(MEMORY_TMP, os.W_OK | os.X_OK)
        usable = usable and shutil.disk_usage(MEMORY_TMP).free >= MEMORY_TMP_FREE
    except OSError:
        usable = False
    if usable:
        os.environ["TMPDIR"] = str(MEMORY_TMP)
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile wikimem once, before any worker starts: hundreds of tests start it as a process,
    and where PYTHONDONTWRITEBYTECODE is set (or the clone is fresh) each start would otherwise
    compile every module it imports from source again (about 0.1 s each time)."""
    if not hasattr(session.config, "workerinput"):
        import compileall

        compileall.compile_dir(str(ROOT / "wikimem"), quiet=1)


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A developer's own HOME, git identity and model settings never leak into a test."""
    home = tmp_path_factory.mktemp("home")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(GITCONFIG)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("WIKIMEM_HOME", str(home / ".clarvis"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    # no warm intake listener outlives a test, unless the test asks for one
    monkeypatch.setenv("WIKIMEM_LINGER", "0")
    # nor a background pass staying for a retry (tests/test_due_retries.py asks for one)
    monkeypatch.setenv("WIKIMEM_RETRY_WAIT", "0")
    yield home


@pytest.fixture(scope="session")
def template_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment `isolated_env` gives a test, for a process that makes a template once
    per worker (a session fixture runs outside any one test's environment)."""
    home = tmp_path_factory.mktemp("template-home")
    (home / ".gitconfig").write_text(GITCONFIG)
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(
        HOME=str(home),
        WIKIMEM_HOME=str(home / ".clarvis"),
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        WIKIMEM_LINGER="0",
        WIKIMEM_RETRY_WAIT="0",
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    return env


@pytest.fixture(scope="session")
def init_template(tmp_path_factory: pytest.TempPathFactory, template_env: dict[str, str]) -> Path:
    """A folder as a real `wikimem init` leaves it, made once per worker. `wikimem init` writes
    nothing outside the folder and no absolute path into it, so a copy is what a fresh init
    there would make, but for the time of its first commit."""
    folder = tmp_path_factory.mktemp("init-template") / "ws"
    folder.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "wikimem", "init"], cwd=folder, env=template_env, capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    return folder


@pytest.fixture
def initialised(init_template: Path) -> Callable[[Path], Path]:
    """Make `folder` an initialised workspace (a copy of `init_template`); returns it."""

    def copy(folder: Path) -> Path:
        shutil.copytree(init_template, folder, symlinks=True, dirs_exist_ok=True)
        return folder

    return copy


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "ws"
    (folder / ".clarvis").mkdir(parents=True)  # a project's folder, as `wikimem init` leaves it
    monkeypatch.chdir(folder)
    return folder


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run a wikimem command in-process (fast); returns exit code, stdout, stderr."""
    from wikimem.cli import run

    def invoke(*args: str) -> Result:
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def run_wikimem(
    *args: str,
    cwd: Path,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """The CLI as a real process, exactly as a person or a runner calls it."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    data = input.encode() if isinstance(input, str) else input
    return subprocess.run(
        [sys.executable, "-m", "wikimem", *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        timeout=timeout,
        env=full_env,
    )


def example_run(name: str) -> dict:
    """One of the example runs shipped with the package, by file name prefix."""
    path = next(RUNS.glob(f"{name}*.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


HAND = "A line the person saved while the change ran."


def save_during_compile(monkeypatch: pytest.MonkeyPatch, page: Path, fail: bool) -> None:
    """The person saves `page` (an editor's atomic save) the first time a change recompiles,
    after it wrote its own pages and before it commits; `fail` then breaks the change."""
    from wikimem.errors import WikiError
    from wikimem.fsio import atomic_write_text
    from wikimem.wiki import change

    original = change.compile_profile
    saved: list[Path] = []

    def compile_profile(*args, **kwargs):  # type: ignore[no-untyped-def]
        if not saved:
            saved.append(page)
            atomic_write_text(page, page.read_text(encoding="utf-8") + f"\n{HAND}\n")
        if fail:
            raise WikiError("the disk broke mid-change")
        return original(*args, **kwargs)

    monkeypatch.setattr(change, "compile_profile", compile_profile)


def trust_config(path: Path) -> None:
    """Trust a workspace config.toml as `wikimem trust` would (its person wrote it)."""
    from wikimem import config, trust

    trust.trust(path, trust.store_path(config.global_dir()))


def queued_runs(queue: Path) -> list[dict]:
    """The runs of every job in a queue folder (`.clarvis/state/queue`), in any state. Read
    holding the pass lock: a background pass a hook started moves jobs between the state
    folders only while it holds it, so a listing made without it can miss a job in flight."""
    from wikimem.fsio import workspace_lock

    with workspace_lock(queue.parent / "pass.lock", wait=True, timeout=120):
        return [json.loads(job.read_text())["run"] for job in sorted(queue.glob("*/*.json"))]
