"""Installing the hooks: Claude Code settings, Codex config.toml and hooks.json; idempotent,
careful, and undone exactly by uninstall."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wikimem.errors import ConfigError
from wikimem.runners.install import (
    entry_point,
    install_claude,
    install_codex,
    is_wikimem,
    moving_reason,
    uninstall_claude,
    uninstall_codex,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXISTING = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
    "env": {"GREETING": "grüß dich"},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier -w"}]}
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "say done", "timeout": 5}]}
        ]
    }
}
"""


def test_claude_adds_stop_and_session_end_and_keeps_the_rest(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(EXISTING, encoding="utf-8")

    assert install_claude(settings) == {
        "Stop": "wikimem hook",
        "SessionEnd": "wikimem hook",
        "SessionStart": "wikimem start --runner claude",
        "PreCompact": "wikimem hook",
        "PostCompact": "wikimem hook",
        "UserPromptSubmit": "wikimem deliver --runner claude",
        "PostToolUseFailure": "wikimem deliver --runner claude",
        "StopFailure": "wikimem hook",
    }

    text = settings.read_text(encoding="utf-8")
    data = json.loads(text)
    before = json.loads(EXISTING)
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }
    assert data["hooks"]["PostToolUse"] == before["hooks"]["PostToolUse"]
    assert data["hooks"]["Stop"] == before["hooks"]["Stop"] + [
        {"hooks": [{"type": "command", "command": "wikimem hook", "timeout": 30}]}
    ]
    assert data["hooks"]["SessionEnd"] == [
        {"hooks": [{"type": "command", "command": "wikimem hook", "timeout": 60}]}
    ]
    assert data["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": "wikimem start --runner claude", "timeout": 10}]}
    ]
    assert '\n    "model": "opus"' in text  # the file's own indentation
    assert "grüß dich" in text and text.endswith("}\n")


def test_claude_second_install_changes_nothing(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(EXISTING, encoding="utf-8")
    install_claude(settings)
    first = settings.read_bytes()

    assert install_claude(settings) == {}
    assert settings.read_bytes() == first


def test_claude_creates_a_missing_or_empty_file(tmp_path: Path) -> None:
    missing = tmp_path / "new" / "settings.json"
    empty = tmp_path / "empty.json"
    empty.write_text("\n")

    assert install_claude(missing, ["/opt/my tools/wikimem"])
    assert install_claude(empty)

    assert json.loads(missing.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"] == (
        "'/opt/my tools/wikimem' hook"
    )
    assert set(json.loads(empty.read_text())["hooks"]) == {
        "Stop",
        "SessionEnd",
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
        "PostToolUseFailure",
        "StopFailure",
    }


@pytest.mark.parametrize(
    "text",
    ['{"hooks": {"Stop": [}', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {"command": "x"}}}'],
)
def test_claude_refuses_a_file_it_cannot_edit_safely(tmp_path: Path, text: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(text)

    with pytest.raises(ConfigError, match="settings.json"):
        install_claude(settings)

    assert settings.read_text() == text


CODEX = """# Codex settings
model = "gpt-5.5"
approval_policy = "on-request"

[mcp_servers.docs]
command = "uvx"
args = ["docs-mcp"]
"""


def test_codex_adds_a_top_level_notify(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX)

    assert install_codex(config) == {"notify": '["wikimem", "hook"]'}

    text = config.read_text()
    assert text == 'notify = ["wikimem", "hook"]\n\n' + CODEX
    data = tomllib.loads(text)
    assert data["notify"] == ["wikimem", "hook"]
    assert data["mcp_servers"]["docs"] == {"command": "uvx", "args": ["docs-mcp"]}


def test_codex_second_install_changes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CODEX)
    install_codex(config)
    first = config.read_bytes()

    assert install_codex(config) == {}
    assert config.read_bytes() == first


def test_codex_creates_a_missing_file_and_keeps_crlf(tmp_path: Path) -> None:
    missing = tmp_path / "a" / "config.toml"
    crlf = tmp_path / "crlf.toml"
    crlf.write_bytes(b'model = "o4"\r\n')

    assert install_codex(missing)
    assert install_codex(crlf)

    assert missing.read_text() == 'notify = ["wikimem", "hook"]\n'
    assert crlf.read_bytes() == b'notify = ["wikimem", "hook"]\r\n\r\nmodel = "o4"\r\n'


def test_codex_never_clobbers_another_notify(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('notify = ["notify-send", "Codex"]\n')

    with pytest.raises(ConfigError, match="already sets notify"):
        install_codex(config)

    assert config.read_text() == 'notify = ["notify-send", "Codex"]\n'


def test_codex_refuses_invalid_toml(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("model = \n")

    with pytest.raises(ConfigError, match="not valid TOML"):
        install_codex(config)

    assert config.read_text() == "model = \n"


def test_claude_uninstall_gives_back_the_settings_as_they_were(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(EXISTING, encoding="utf-8")
    install_claude(settings, ["/home/ada/.local/bin/wikimem"])

    assert uninstall_claude(settings) == [
        "Stop",
        "SessionEnd",
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
        "PostToolUseFailure",
        "StopFailure",
    ]

    assert settings.read_text(encoding="utf-8") == EXISTING  # byte for byte: no re-indent
    assert uninstall_claude(settings) == []


def test_claude_uninstall_removes_a_file_install_created(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    install_claude(settings, ["/venv/bin/wikimem"])

    uninstall_claude(settings)

    assert not settings.exists()


def test_a_new_install_replaces_an_older_wikimem_handler(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(EXISTING, encoding="utf-8")
    install_claude(settings)  # an older install: bare `wikimem hook`, found on PATH

    written = install_claude(settings, ["/home/ada/.local/bin/wikimem"])

    assert written["Stop"] == "/home/ada/.local/bin/wikimem hook"
    stop = json.loads(settings.read_text())["hooks"]["Stop"]
    assert [h["command"] for group in stop for h in group["hooks"]] == [
        "say done",
        "/home/ada/.local/bin/wikimem hook",
    ]


def test_codex_hooks_json_and_uninstall(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    hooks = tmp_path / "hooks.json"
    config.write_text(CODEX)
    hooks.write_text('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}\n')
    before = hooks.read_text()

    written = install_codex(config, hooks, ["/venv/bin/wikimem"], (0, 129, 2))

    assert written == {
        "notify": '["/venv/bin/wikimem", "hook"]',
        "features.codex_hooks": "true",
        "SessionStart": "/venv/bin/wikimem start --runner codex",
        "PreCompact": "/venv/bin/wikimem hook",
        "PostCompact": "/venv/bin/wikimem hook",
        "UserPromptSubmit": "/venv/bin/wikimem deliver --runner codex",
        "PostToolUse": "/venv/bin/wikimem deliver --runner codex",
    }
    assert tomllib.loads(config.read_text())["features"] == {"codex_hooks": True}
    assert json.loads(hooks.read_text())["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 10
    assert uninstall_codex(config, hooks) == [
        "notify",
        "features.codex_hooks",
        "SessionStart",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
        "PostToolUse",
    ]
    assert config.read_text() == CODEX
    assert hooks.read_text() == before


def test_codex_uninstall_leaves_another_notify_alone(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('notify = ["notify-send", "Codex"]\n')

    assert uninstall_codex(config, tmp_path / "hooks.json") == []
    assert config.read_text() == 'notify = ["notify-send", "Codex"]\n'


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("wikimem hook", True),
        ("'/home/ada/my venv/bin/wikimem' hook", True),
        ("/usr/bin/python3 -m wikimem start --runner codex", True),
        ("C:\\tools\\wikimem.exe hook", True),
        ("say done", False),
        ("wikimem-notes hook", False),
        ("echo wikimem", False),
    ],
)
def test_which_handlers_are_wikimem_s(command: str, ours: bool) -> None:
    assert is_wikimem(command) is ours


def test_the_entry_point_is_an_absolute_path(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "wikimem"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    python = tmp_path / "bin" / "python"

    assert entry_point(str(script), str(python)) == [str(script)]
    assert entry_point("/some/where/pytest", str(python)) == [str(script)]
    assert entry_point("-c", str(tmp_path / "other" / "python")) == [
        str(tmp_path / "other" / "python"),
        "-m",
        "wikimem",
    ]


def test_a_venv_inside_the_workspace_is_likely_to_move(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    (workspace / ".venv" / "bin").mkdir(parents=True)

    reason = moving_reason([str(workspace / ".venv" / "bin" / "wikimem")], workspace)

    assert reason is not None and "inside this workspace" in reason
    assert moving_reason(["wikimem"], workspace) is None


def test_a_features_table_of_the_person_gets_the_line_and_loses_it_exactly(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    hooks = tmp_path / "hooks.json"
    mine = (
        'model = "gpt-5.5"\n\n[features]\nweb_search = true\n\n[mcp_servers.docs]\n'
        'command = "uvx"\n'
    )
    config.write_text(mine)

    install_codex(config, hooks, ["/venv/bin/wikimem"], (0, 128, 0))

    assert tomllib.loads(config.read_text())["features"] == {
        "web_search": True,
        "codex_hooks": True,
    }
    uninstall_codex(config, hooks)
    assert config.read_text() == mine and not hooks.exists()


@pytest.mark.parametrize("setting", ["codex_hooks = false", "hooks = false", "hooks = true"])
def test_a_hooks_feature_the_person_set_is_left_alone(tmp_path: Path, setting: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f"[features]\n{setting}\n")

    written = install_codex(config, tmp_path / "hooks.json", ["/venv/bin/wikimem"], (0, 100, 0))

    assert "features.codex_hooks" not in written
    assert config.read_text().endswith(f"[features]\n{setting}\n")
    assert "features.codex_hooks" not in uninstall_codex(config, tmp_path / "hooks.json")


@pytest.mark.parametrize(
    "text",
    [
        '{\n\t"hooks": {\n\t\t"Stop": [{"hooks": []}]\n\t},\n\t"x": [1, 2]\n}',
        '{"a": {"b": [ ]}, "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", '
        '"command": "say"}]}]}}',
        '{\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {"type": "command",'
        ' "command": "say"}\n        ]\n      }\n    ]\n  }\n}\n',
    ],
)
def test_install_then_uninstall_gives_back_every_byte(tmp_path: Path, text: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(text)

    install_claude(settings, ["/venv/bin/wikimem"])
    assert len(hook_commands_of(settings, "Stop")) >= 1
    uninstall_claude(settings)

    assert settings.read_text() == text


def hook_commands_of(settings: Path, event: str) -> list[str]:
    data = json.loads(settings.read_text())
    return [h["command"] for group in data["hooks"][event] for h in group["hooks"]]


@pytest.mark.parametrize("version", [(0, 130, 0), (0, 135, 1), (1, 0, 0), None])
def test_a_codex_that_runs_hooks_by_default_or_is_unknown_gets_no_feature_line(
    tmp_path: Path, version: tuple[int, int, int] | None
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CODEX)

    written = install_codex(config, tmp_path / "hooks.json", ["/venv/bin/wikimem"], version)

    assert "features.codex_hooks" not in written and "features" not in tomllib.loads(
        config.read_text()
    )


def test_the_line_an_earlier_install_wrote_goes_once_codex_runs_hooks_by_default(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    earlier = (
        "codex_hooks = true  # added by wikimem: Codex before mid-2026 runs hooks.json only with"
        " it\n"
    )
    config.write_text(CODEX + "\n[features]\n" + earlier)

    written = install_codex(config, tmp_path / "hooks.json", ["/venv/bin/wikimem"], (0, 131, 0))

    assert written["features.codex_hooks"] == "removed"
    assert "codex_hooks" not in config.read_text()
    uninstall_codex(config, tmp_path / "hooks.json")
    assert config.read_text() == CODEX
