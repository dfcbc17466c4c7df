"""`wikimem install|uninstall claude|codex`: where they write, what they print, and that the
installed commands run from a shell without the venv, as Claude Code and Codex run them."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, queued_runs, run_wikimem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).parent / "fixtures" / "runners"
ENTRY = str(Path(sys.executable).parent / "wikimem")


def hook_commands(settings: Path, event: str) -> list[str]:
    data = json.loads(settings.read_text(encoding="utf-8"))
    return [h["command"] for group in data["hooks"][event] for h in group["hooks"]]


def test_claude_project_install_goes_to_the_personal_settings_file(workspace: Path, cli) -> None:
    shared = workspace / ".claude" / "settings.json"
    shared.parent.mkdir()
    shared.write_text('{\n    "model": "opus"\n}\n')
    personal = workspace / ".claude" / "settings.local.json"

    first = cli("install", "claude")

    assert first.code == 0, first.err
    assert first.out == (
        f"wrote {personal}:\n"
        f"  Stop: {ENTRY} hook\n"
        f"  SessionEnd: {ENTRY} hook\n"
        f"  SessionStart: {ENTRY} start --runner claude\n"
        f"  PreCompact: {ENTRY} hook\n"
        f"  PostCompact: {ENTRY} hook\n"
        f"  UserPromptSubmit: {ENTRY} deliver --runner claude\n"
        f"  PostToolUseFailure: {ENTRY} deliver --runner claude\n"
        f"  StopFailure: {ENTRY} hook\n"
    )
    assert shared.read_text() == '{\n    "model": "opus"\n}\n'  # no personal path in it
    assert hook_commands(personal, "Stop") == [f"{ENTRY} hook"]
    before = personal.read_bytes()
    second = cli("install", "claude", "--project")
    assert second.out == f"already installed in {personal}\n"
    assert personal.read_bytes() == before


def test_claude_user_scope_honours_claude_config_dir(
    workspace: Path, isolated_env: Path, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("install", "claude", "--user").code == 0
    assert hook_commands(isolated_env / ".claude" / "settings.json", "Stop") == [f"{ENTRY} hook"]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    assert cli("install", "claude", "--user").code == 0
    assert hook_commands(tmp_path / "claude-config" / "settings.json", "SessionStart") == [
        f"{ENTRY} start --runner claude"
    ]
    assert not (workspace / ".claude").exists()
    target = workspace / "elsewhere" / "settings.json"
    assert cli("install", "claude", "--settings", str(target), "--command", "wikimem").code == 0
    assert hook_commands(target, "SessionEnd") == ["wikimem hook"]


def test_claude_refuses_a_broken_settings_file(workspace: Path, cli) -> None:
    settings = workspace / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    result = cli("install", "claude")
    assert result.code == 1 and "not valid JSON" in result.err
    assert settings.read_text() == "{ not json"


def test_claude_uninstall_removes_what_install_added(workspace: Path, cli) -> None:
    settings = workspace / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    mine = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},
    }
    settings.write_text(json.dumps(mine))
    assert cli("install", "claude").code == 0

    result = cli("uninstall", "claude")

    assert result.out == (
        f"removed Stop, SessionEnd, SessionStart, PreCompact, PostCompact, UserPromptSubmit,"
        f" PostToolUseFailure, StopFailure from {settings}\n"
    )
    assert settings.read_text() == json.dumps(mine)  # byte for byte
    assert cli("uninstall", "claude").out == f"nothing to remove in {settings}\n"


def test_a_venv_inside_the_workspace_gets_a_warning(workspace: Path, cli) -> None:
    result = cli("install", "claude", "--command", str(workspace / ".venv" / "bin" / "wikimem"))

    assert result.code == 0
    assert result.err.startswith("warning: ") and "inside this workspace" in result.err
    assert "pipx install ." in result.err


def test_codex_honours_codex_home_and_is_idempotent(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text('model = "gpt-5.5"\n')
    # an older Codex on PATH, as `codex --version` prints it
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "codex").write_text("#!/bin/sh\necho 'codex-cli 0.129.0'\n")
    (bin_dir / "codex").chmod(0o755)
    env = {"CODEX_HOME": str(home), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    first = run_wikimem("install", "codex", "--command", "wikimem", cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.decode().startswith(
        f'wrote {home / "config.toml"}:\n  notify: ["wikimem", "hook"]\n'
        f"wrote {home / 'config.toml'}:\n  features.codex_hooks: true\n"
        "  Codex 0.129.0 runs hooks.json only with it (0.130 and later need no line).\n"
        f"wrote {home / 'hooks.json'}:\n  SessionStart: wikimem start --runner codex\n"
        "  PreCompact: wikimem hook\n  PostCompact: wikimem hook\n"
    )
    data = tomllib.loads((home / "config.toml").read_text())
    assert data == {
        "notify": ["wikimem", "hook"],
        "model": "gpt-5.5",
        "features": {"codex_hooks": True},
    }
    second = run_wikimem("install", "codex", "--command", "wikimem", cwd=workspace, env=env)
    assert second.stdout.decode() == (
        f"already installed in {home / 'config.toml'} and {home / 'hooks.json'}\n"
    )
    undone = run_wikimem("uninstall", "codex", cwd=workspace, env=env)
    assert undone.returncode == 0, undone.stderr
    assert (home / "config.toml").read_text() == 'model = "gpt-5.5"\n'
    assert not (home / "hooks.json").exists()


def test_codex_default_is_under_home_and_config_overrides(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "codex").code == 0
    assert tomllib.loads((isolated_env / ".codex" / "config.toml").read_text())["notify"] == [
        ENTRY,
        "hook",
    ]
    target = workspace / "codex.toml"
    target.write_text('notify = ["my-notifier"]\n')
    refused = cli("install", "codex", "--config", str(target))
    assert refused.code == 1 and "already sets notify" in refused.err
    assert target.read_text() == 'notify = ["my-notifier"]\n'


# -- the installed commands, run as the runners run them ------------------------------------


def bare_shell(command: str, cwd: Path, home: Path, stdin: str) -> subprocess.CompletedProcess:
    """`command` through /bin/sh with a minimal PATH and no venv, as a runner starts a hook."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "WIKIMEM_HOME": str(home / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }
    return subprocess.run(
        ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c", command],
        cwd=cwd,
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
    )


def test_the_venv_is_not_on_the_minimal_path(workspace: Path, isolated_env: Path) -> None:
    bare = bare_shell("wikimem --version", workspace, isolated_env, "")
    assert bare.returncode == 127  # what a bare `wikimem hook` used to give the runner


def test_the_installed_stop_hook_queues_the_run_without_the_venv(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "claude").code == 0
    (command,) = hook_commands(workspace / ".claude" / "settings.local.json", "Stop")
    transcript = workspace / "transcript.jsonl"
    shutil.copy(FIXTURES / "claude" / "transcript.jsonl", transcript)
    payload = json.loads((FIXTURES / "claude" / "stop.json").read_text())
    payload.update(transcript_path=str(transcript), cwd=str(workspace))

    done = bare_shell(command, workspace, isolated_env, json.dumps(payload))

    assert done.returncode == 0, done.stderr
    jobs = list((workspace / ".clarvis" / "state" / "queue").glob("*/*.json"))
    tasks = sorted(json.loads(job.read_text())["run"]["task"] for job in jobs)
    assert len(tasks) == 2  # both turns of the session: no Stop had recorded the first
    assert tasks[1].startswith("The web build is red")


LEAF = """---
title: Bun
summary: Installing and building with Bun.
type: procedural
updated: 2026-11-28
---
# Bun

## Lockfile drift

Run `bun install` and commit `bun.lockb` when the lockfile drifts.

## Legacy bundle

Build the old bundle with `bun run build:legacy`; it ignores the lockfile.
"""
PROFILE = """---
title: acme-web
summary: Web shop front end built with Bun.
updated: 2026-11-28
---
# acme-web

<!-- wikimem:begin -->
## Topics

- [build](build/TOPIC.md) — How the web app is built. (1 leaf)
<!-- wikimem:end -->
"""


@pytest.mark.parametrize("runner", ["claude", "codex"])
def test_the_installed_session_start_prints_fresh_context_without_the_venv(
    runner: str, workspace: Path, isolated_env: Path, cli
) -> None:
    git("init", "-q", "-b", "bun-lockfile", cwd=workspace)
    (workspace / "package.json").write_text('{"scripts": {"build": "vite build"}}')
    (workspace / "bun.lockb").write_bytes(b"")
    wiki = workspace / ".clarvis" / "memory"
    (wiki / "build" / "bun").mkdir(parents=True)
    (wiki / "PROFILE.md").write_text(PROFILE)
    (wiki / "build" / "bun" / "MEMORY.md").write_text(LEAF)
    assert cli("search", "lockfile").code == 0  # builds the index every pass keeps current
    if runner == "claude":
        assert cli("install", "claude").code == 0
        hooks = workspace / ".claude" / "settings.local.json"
    else:
        assert cli("install", "codex").code == 0
        hooks = isolated_env / ".codex" / "hooks.json"
    (command,) = hook_commands(hooks, "SessionStart")
    payload = {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(workspace)}

    shown = bare_shell(command, workspace, isolated_env, json.dumps(payload))

    assert shown.returncode == 0 and shown.stderr == b""
    text = shown.stdout.decode()
    assert text.startswith("# acme-web\n")
    assert "Lockfile drift" in text and "wikimem show build/bun#lockfile-drift" in text
    assert "build:legacy" not in text  # package.json has no such script any more
    assert "Left out 1 memory entry whose citations no longer match" in text
    assert len(text) <= 6000


def test_session_start_is_silent_when_paused_and_never_fails(
    workspace: Path, isolated_env: Path, cli
) -> None:
    wiki = workspace / ".clarvis" / "memory"
    wiki.mkdir(parents=True)
    (wiki / "PROFILE.md").write_text(PROFILE)
    assert cli("pause").code == 0
    assert cli("start").out == ""
    assert cli("resume").code == 0
    assert cli("start", "--budget", "0").out == ""
    (wiki / "PROFILE.md").write_bytes(b"---\n: [\n---\n\xff\xfe")  # garbage frontmatter
    broken = run_wikimem("start", "--runner", "claude", cwd=workspace, input="not json")
    assert broken.returncode == 0
    assert b"Traceback" not in broken.stderr


def test_the_project_install_keeps_its_file_out_of_git_and_uninstall_leaves_no_trace(
    workspace: Path, cli
) -> None:
    git("init", "-q", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before = exclude.read_bytes()

    assert cli("install", "claude").code == 0

    assert git("status", "--porcelain", "--untracked-files=all", cwd=workspace) == ""
    assert git("check-ignore", ".claude/settings.local.json", cwd=workspace).strip()
    assert cli("install", "claude").code == 0  # a second install lists it once
    assert exclude.read_text().count("/.claude/settings.local.json") == 1
    assert cli("uninstall", "claude").code == 0
    assert exclude.read_bytes() == before
    assert not (workspace / ".claude").exists()  # install made it; it was left empty


def test_a_file_git_already_ignores_is_not_listed_again(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    (workspace / ".gitignore").write_text(".claude/settings.local.json\n")
    exclude = workspace / ".git" / "info" / "exclude"
    before = exclude.read_bytes()

    result = cli("install", "claude")

    assert result.code == 0 and "kept out of git" not in result.out
    assert exclude.read_bytes() == before


def test_the_installed_compaction_hooks_run_without_the_venv(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "claude").code == 0
    settings = workspace / ".claude" / "settings.local.json"
    transcript = workspace / "transcript.jsonl"
    shutil.copy(FIXTURES / "claude" / "transcript.jsonl", transcript)
    payload = json.loads((FIXTURES / "claude" / "stop.json").read_text())
    payload.update(transcript_path=str(transcript), cwd=str(workspace))

    for event in ("PreCompact", "PostCompact"):
        (command,) = hook_commands(settings, event)
        done = bare_shell(
            command,
            workspace,
            isolated_env,
            json.dumps(payload | {"hook_event_name": event, "trigger": "auto"}),
        )
        assert done.returncode == 0 and done.stderr == b"", done.stderr

    # the session's first turn had no Stop: the compaction recorded it, once; the second is
    # still running, so it is left to its Stop
    jobs = list((workspace / ".clarvis" / "state" / "queue").glob("*/*.json"))
    assert [json.loads(job.read_text())["run"]["run_id"] for job in jobs] == [
        f"{payload['session_id']}:u-03"
    ]


def test_the_installed_codex_notify_runs_without_the_venv_from_another_folder(
    workspace: Path, isolated_env: Path, tmp_path: Path
) -> None:
    home = tmp_path / "codex-home"
    env = {"CODEX_HOME": str(home)}
    assert run_wikimem("install", "codex", cwd=workspace, env=env).returncode == 0
    notify = tomllib.loads((home / "config.toml").read_text())["notify"]
    payload = json.loads((FIXTURES / "codex" / "notify.json").read_text())
    payload["cwd"] = str(workspace)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # Codex appends the JSON as the last argument and starts notify in no particular folder
    done = bare_shell(shlex.join([*notify, json.dumps(payload)]), elsewhere, isolated_env, "")

    assert done.returncode == 0 and done.stderr == b"", done.stderr
    (job,) = (workspace / ".clarvis" / "state" / "queue").glob("*/*.json")
    assert json.loads(job.read_text())["run"]["task"] == payload["input-messages"][0]
    for event in ("SessionStart", "PreCompact", "PostCompact"):
        (command,) = hook_commands(home / "hooks.json", event)
        assert command.startswith(notify[0])


ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_s_install_from_a_clone_works_as_written(tmp_path: Path) -> None:
    """wikimem is on no public index: the README says to install from a clone (`pipx install .`
    in it). pipx and uv do a plain, non-editable pip install of the folder; so does this, with
    no index (no network), then the installed command runs under `env -i`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`pipx install .`" in readme and "pipx install wikimem`" not in readme
    site = tmp_path / "site"

    built = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "--target", str(site), str(ROOT)],
        capture_output=True,
        timeout=300,
    )

    assert built.returncode == 0, built.stderr
    assert (site / "wikimem" / "data").is_dir()  # package data came along
    ran = subprocess.run(
        ["/usr/bin/env", "-i", f"PYTHONPATH={site}", str(site / "bin" / "wikimem"), "--version"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert ran.returncode == 0 and ran.stdout.startswith(b"wikimem"), ran.stderr


REAL = FIXTURES / "real"


def fired_each(settings: Path, events: list[tuple[str, dict]], cwd: Path, home: Path) -> set[str]:
    """Run every installed handler of each event under `env -i`, in the order given; each exits
    0 without a traceback, and one that records runs prints nothing on stdout."""
    hooks = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    for event, payload in events:
        for command in hook_commands(settings, event):
            done = bare_shell(command, cwd, home, json.dumps(payload | {"hook_event_name": event}))
            assert done.returncode == 0 and b"Traceback" not in done.stderr, (event, done.stderr)
            if " hook" in command:
                assert done.stdout == b"", event
    return set(hooks)


def test_every_installed_claude_command_runs_bare_and_each_real_turn_is_queued_once(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """Each of the eight handlers `install claude` writes, run as Claude Code runs it, on a real
    two-turn transcript: the compaction records the first turn, StopFailure the second (an
    API error: failed), and Stop, PostCompact and SessionEnd find nothing left."""
    assert cli("install", "claude").code == 0
    settings = workspace / ".claude" / "settings.local.json"
    real = REAL / "claude-2.1.14-hello-world.jsonl"
    session = json.loads(real.read_text().splitlines()[-1])["sessionId"]
    transcript = workspace / f"{session}.jsonl"
    shutil.copy(real, transcript)
    base = {"session_id": session, "transcript_path": str(transcript), "cwd": str(workspace)}
    prompt = json.loads((FIXTURES / "hooks" / "claude-user-prompt-submit.json").read_text())
    failed = json.loads((FIXTURES / "hooks" / "claude-post-tool-use-failure-bash.json").read_text())
    queue = workspace / ".clarvis" / "state" / "queue"

    events = fired_each(
        settings,
        [
            ("SessionStart", base | {"source": "startup"}),
            ("UserPromptSubmit", prompt | base),
            ("PostToolUseFailure", failed | base),
            ("PreCompact", base | {"trigger": "auto"}),
            (
                "StopFailure",
                base | {"error": "server_error", "last_assistant_message": "API Error"},
            ),
            ("Stop", base | {"stop_hook_active": True}),
            ("PostCompact", base | {"trigger": "auto", "compact_summary": "…"}),
        ],
        workspace,
        isolated_env,
    )
    runs = queued_runs(queue)
    fired_each(settings, [("SessionEnd", base | {"reason": "exit"})], workspace, isolated_env)

    assert events == {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUseFailure",
        "PreCompact",
        "StopFailure",
        "Stop",
        "PostCompact",
        "SessionEnd",
    }
    assert len(runs) == len({r["run_id"] for r in runs}) == 2
    last = max(runs, key=lambda r: r["ended_at"])
    assert last["status"] == "failed"
    assert any("server_error" in e.get("text", "") for e in last["evidence"])


def test_every_installed_codex_command_runs_bare_and_each_real_turn_is_queued_once(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """`notify` and each handler in hooks.json, run as Codex runs them, on a real two-turn
    rollout under ~/.codex/sessions: the compaction records the first turn, notify (started
    in another folder) the second, and PostCompact finds nothing left."""
    from wikimem.runners.codex import read_rollout

    assert cli("install", "codex").code == 0
    codex = isolated_env / ".codex"
    real = next(REAL.glob("codex-0.125.0-rollout-*.jsonl"))
    rollout = codex / "sessions" / "2026" / "05" / "11" / real.name.split("-", 2)[2]
    rollout.parent.mkdir(parents=True)
    lines = real.read_text().splitlines(keepends=True)
    end = max(i for i, line in enumerate(lines) if '"task_complete"' in line)
    rollout.write_text("".join(lines[:end]))  # the second turn still running
    thread = real.stem.split("-rollout-")[1][20:]
    base = {"session_id": thread, "transcript_path": str(rollout), "cwd": str(workspace)}
    prompt = json.loads((FIXTURES / "hooks" / "codex-user-prompt-submit.json").read_text())
    failed = json.loads((FIXTURES / "hooks" / "codex-post-tool-use-bash-failed.json").read_text())
    queue = workspace / ".clarvis" / "state" / "queue"
    turn = {"turn_id": "t-2"}

    def runs() -> list[dict]:
        return queued_runs(queue)

    events = fired_each(
        codex / "hooks.json",
        [
            ("SessionStart", base | {"source": "startup"}),
            ("UserPromptSubmit", prompt | base | turn),
            ("PostToolUse", failed | base | turn),
            ("PreCompact", base | turn | {"trigger": "auto"}),
        ],
        workspace,
        isolated_env,
    )
    assert len(runs()) == 1  # the turn still running is left to its end
    rollout.write_text("".join(lines))
    notify = tomllib.loads((codex / "config.toml").read_text())["notify"]
    payload = {
        "type": "agent-turn-complete",
        "thread-id": thread,
        "turn-id": "t-2",
        "cwd": str(workspace),
        "input-messages": ["…"],
        "last-assistant-message": "…",
    }
    elsewhere = isolated_env / "elsewhere"
    elsewhere.mkdir()
    done = bare_shell(shlex.join([*notify, json.dumps(payload)]), elsewhere, isolated_env, "")
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    fired_each(
        codex / "hooks.json",
        [("PostCompact", base | turn | {"trigger": "auto"})],
        workspace,
        isolated_env,
    )

    assert events == {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
    }
    queued = runs()
    assert len(queued) == len({r["run_id"] for r in queued}) == len(read_rollout(rollout).turns())
    assert len(queued) == 2


def test_codex_without_a_version_gets_no_feature_line_and_is_told(
    workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    env = {"CODEX_HOME": str(home), "PATH": "/usr/bin:/bin"}  # no codex here
    done = run_wikimem("install", "codex", "--command", "wikimem", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "`codex --version` did not answer: Codex 0.130 and later run these hooks" in out
    assert "features" not in tomllib.loads((home / "config.toml").read_text())
