"""Installing the hook into agent runners' settings: Claude Code's JSON, Codex's TOML.

Invariant: installing is idempotent and conservative. A second install changes nothing and
reports so; every other setting survives; a file that cannot be read as JSON or TOML, or a
setting wikimem would have to overwrite, is left untouched and reported as a ConfigError.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wikimem.errors import ConfigError
from wikimem.fsio import atomic_write_text, read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# Stop only queues the run; SessionEnd must raise Claude Code's 1.5 s default budget.
CLAUDE_EVENTS = (("Stop", 30), ("SessionEnd", 10))
INDENT = re.compile(r"^([ \t]+)\S", re.M)


def install_claude(settings_path: Path, command: str = "wikimem hook") -> bool:
    """Add Stop and SessionEnd hooks running `command`; return whether the file changed."""
    text = read_text(settings_path) if settings_path.exists() else ""
    settings = _load_json(text, settings_path)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{settings_path}: "hooks" is not an object; fix it and run again')
    changed = False
    for event, timeout in CLAUDE_EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(
                f'{settings_path}: "hooks.{event}" is not a list; fix it and run again'
            )
        if not _runs(groups, command):
            groups.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
            changed = True
    if changed:
        indent = INDENT.search(text)
        atomic_write_text(
            settings_path,
            json.dumps(settings, indent=indent.group(1) if indent else 2, ensure_ascii=False)
            + "\n",
        )
    return changed


def install_codex(config_path: Path, command: Sequence[str] = ("wikimem", "hook")) -> bool:
    """Set Codex's `notify` program to `command`; return whether the file changed."""
    text = read_text(config_path) if config_path.exists() else ""
    try:
        current = tomllib.loads(text).get("notify")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{config_path} is not valid TOML ({exc}); fix it and run again; "
            "the file was left unchanged"
        ) from exc
    wanted = list(command)
    if current == wanted:
        return False
    if current is not None:
        raise ConfigError(
            f"{config_path} already sets notify = {json.dumps(current)}; Codex runs only one "
            f"notify program, so wikimem left it alone. Remove that line to use "
            f"{json.dumps(wanted)}, or have your program also call `{' '.join(wanted)}` "
            "with the same JSON argument"
        )
    newline = "\r\n" if "\r\n" in text else "\n"
    # Top-level keys must come before the first [table], so the line goes first.
    line = f"notify = {json.dumps(wanted)}{newline}"
    updated = line + (newline + text if text.strip() else "")
    if tomllib.loads(updated).get("notify") != wanted:  # pragma: no cover - a guard
        raise ConfigError(f"could not add notify to {config_path}; add it by hand: {line}")
    atomic_write_text(config_path, updated)
    return True


def _load_json(text: str, path: Path) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix it and run again; the file was left unchanged"
        ) from exc
    if not isinstance(value, dict):
        raise ConfigError(f"{path} does not hold a JSON object; the file was left unchanged")
    return value


def _runs(groups: list[Any], command: str) -> bool:
    """Whether some handler of these matcher groups already runs `command`."""
    handlers = [
        h
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for h in group["hooks"]
    ]
    return any(isinstance(h, dict) and h.get("command") == command for h in handlers)
