"""Installing the hook: Claude Code settings.json and Codex config.toml, idempotent and careful."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wikimem.errors import ConfigError
from wikimem.runners.install import install_claude, install_codex

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

    assert install_claude(settings) is True

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
        {"hooks": [{"type": "command", "command": "wikimem hook", "timeout": 10}]}
    ]
    assert '\n    "model": "opus"' in text  # the file's own indentation
    assert "grüß dich" in text and text.endswith("}\n")


def test_claude_second_install_changes_nothing(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(EXISTING, encoding="utf-8")
    install_claude(settings)
    first = settings.read_bytes()

    assert install_claude(settings) is False
    assert settings.read_bytes() == first


def test_claude_creates_a_missing_or_empty_file(tmp_path: Path) -> None:
    missing = tmp_path / "new" / "settings.json"
    empty = tmp_path / "empty.json"
    empty.write_text("\n")

    assert install_claude(missing, "wikimem hook -q") is True
    assert install_claude(empty) is True

    assert json.loads(missing.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"] == (
        "wikimem hook -q"
    )
    assert set(json.loads(empty.read_text())["hooks"]) == {"Stop", "SessionEnd"}


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

    assert install_codex(config) is True

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

    assert install_codex(config) is False
    assert config.read_bytes() == first


def test_codex_creates_a_missing_file_and_keeps_crlf(tmp_path: Path) -> None:
    missing = tmp_path / "a" / "config.toml"
    crlf = tmp_path / "crlf.toml"
    crlf.write_bytes(b'model = "o4"\r\n')

    assert install_codex(missing) is True
    assert install_codex(crlf) is True

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
