"""`wikimem install claude|codex`: default places, idempotence, and what it prints."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import run_wikimem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def hook_commands(settings: Path, event: str) -> list[str]:
    data = json.loads(settings.read_text(encoding="utf-8"))
    return [h["command"] for group in data["hooks"][event] for h in group["hooks"]]


def test_claude_project_install_is_idempotent_and_keeps_other_settings(
    workspace: Path, cli
) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n    "model": "opus",\n    "hooks": {"Stop": [{"hooks": '
        '[{"type": "command", "command": "say done"}]}]}\n}\n'
    )
    first = cli("install", "claude")
    assert first.code == 0 and first.out.startswith("installed the wikimem hook")
    assert str(settings) in first.out
    assert hook_commands(settings, "Stop") == ["say done", "wikimem hook"]
    assert hook_commands(settings, "SessionEnd") == ["wikimem hook"]
    assert json.loads(settings.read_text())["model"] == "opus"
    before = settings.read_bytes()
    second = cli("install", "claude", "--project")
    assert second.code == 0 and second.out == f"already installed in {settings}\n"
    assert settings.read_bytes() == before


def test_claude_user_scope_and_explicit_path(workspace: Path, isolated_env: Path, cli) -> None:
    assert cli("install", "claude", "--user").code == 0
    assert hook_commands(isolated_env / ".claude" / "settings.json", "Stop") == ["wikimem hook"]
    assert not (workspace / ".claude").exists()
    target = workspace / "elsewhere" / "settings.json"
    assert cli("install", "claude", "--settings", str(target)).code == 0
    assert hook_commands(target, "SessionEnd") == ["wikimem hook"]


def test_claude_refuses_a_broken_settings_file(workspace: Path, cli) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    result = cli("install", "claude")
    assert result.code == 1 and "not valid JSON" in result.err
    assert settings.read_text() == "{ not json"


def test_codex_honours_codex_home_and_is_idempotent(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text('model = "gpt-5.5"\n')
    env = {"CODEX_HOME": str(home)}
    first = run_wikimem("install", "codex", cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr
    said = first.stdout.decode()
    assert said == f"installed the wikimem hook (notify) in {home / 'config.toml'}\n"
    data = tomllib.loads((home / "config.toml").read_text())
    assert data == {"notify": ["wikimem", "hook"], "model": "gpt-5.5"}
    second = run_wikimem("install", "codex", cwd=workspace, env=env)
    assert second.stdout.decode() == f"already installed in {home / 'config.toml'}\n"


def test_codex_default_is_under_home_and_config_overrides(
    workspace: Path, isolated_env: Path, cli
) -> None:
    assert cli("install", "codex").code == 0
    assert tomllib.loads((isolated_env / ".codex" / "config.toml").read_text())["notify"] == [
        "wikimem",
        "hook",
    ]
    target = workspace / "codex.toml"
    target.write_text('notify = ["my-notifier"]\n')
    refused = cli("install", "codex", "--config", str(target))
    assert refused.code == 1 and "already sets notify" in refused.err
    assert target.read_text() == 'notify = ["my-notifier"]\n'
