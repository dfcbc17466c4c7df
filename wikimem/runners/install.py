"""Installing the hooks into agent runners' settings, and removing them: Claude Code's JSON,
Codex's `notify` in config.toml and its `hooks.json`.

Runners start hooks from their own environment, where a venv's `wikimem` is not on PATH, so
the command written is the absolute path of the entry point that runs the install (`entry_point`),
unless the person names another. A handler is wikimem's when its command runs `wikimem hook` or
`wikimem start` (`is_wikimem`): installing replaces wikimem's handlers of an event with the one
wanted, uninstalling removes them and the groups, events and keys it leaves empty.

Invariant: installing is idempotent and conservative. A second install changes nothing and
reports so; every other setting survives; a file that cannot be read as JSON or TOML, or a
setting wikimem would have to overwrite, is left untouched and reported as a ConfigError.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wikimem.errors import ConfigError
from wikimem.fsio import atomic_write_text, read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# event: (subcommand, timeout in seconds). Stop only queues the run; SessionEnd must raise
# Claude Code's 1.5 s default budget, and runs as the session leaves, so a long budget costs
# nobody a wait: 200 sessions ending at once need 24 s of CPU for their hooks (118 ms each), and
# took p99 32 s on a loaded 2-core machine; 10 s lost runs. SessionStart prints the context and
# never waits on a model.
CLAUDE_HOOKS = {
    "Stop": ("hook", 30),
    "SessionEnd": ("hook", 60),
    "SessionStart": ("start --runner claude", 10),
}
CODEX_HOOKS = {"SessionStart": ("start --runner codex", 10)}
INDENT = re.compile(r"^([ \t]+)\S", re.M)
WIKIMEM = re.compile(
    r"""(?:^|[\s/\\'"])(?:wikimem(?:\.exe)?['"]?|-m\s+wikimem)\s+(?:hook|start)\b"""
)
NOTIFY_LINE = re.compile(r"^notify\s*=.*(?:\r?\n)?", re.M)


def entry_point(argv0: str | None = None, executable: str | None = None) -> list[str]:
    """The command that runs this wikimem from any shell: its script's absolute path, else
    this interpreter with `-m wikimem`."""
    script = Path(argv0 if argv0 is not None else sys.argv[0])
    if script.name in ("wikimem", "wikimem.exe") and script.is_file():
        return [str(script.absolute())]  # not resolved: ~/.local/bin/wikimem outlives upgrades
    python = Path(executable or sys.executable)
    for name in ("wikimem", "wikimem.exe"):
        if (python.parent / name).is_file():
            return [str(python.parent / name)]
    return [str(python), "-m", "wikimem"]


def moving_reason(entry: Sequence[str], workspace: Path) -> str | None:
    """Why the installed command may stop working later (a project-local or temporary
    environment), or None."""
    path = Path(entry[0])
    if not path.is_absolute():
        return None
    for folder, what in (
        (workspace, "inside this workspace"),
        (Path(tempfile.gettempdir()), "in a temporary folder"),
    ):
        try:
            if path.resolve().is_relative_to(folder.resolve()):
                return f"{path} is {what}"
        except OSError:
            continue
    return None


def is_wikimem(command: Any) -> bool:
    """Whether a handler's command runs `wikimem hook` or `wikimem start`, by any path."""
    return isinstance(command, str) and bool(WIKIMEM.search(command))


def command_line(entry: Sequence[str], subcommand: str) -> str:
    return shlex.join([*entry, *subcommand.split()])


def install_claude(settings_path: Path, entry: Sequence[str] = ("wikimem",)) -> dict[str, str]:
    """Add Stop, SessionEnd and SessionStart hooks; return the commands written, by event
    (empty when everything was already installed)."""
    wanted = {e: (command_line(entry, sub), t) for e, (sub, t) in CLAUDE_HOOKS.items()}
    return edit_hooks(settings_path, wanted)


def uninstall_claude(settings_path: Path) -> list[str]:
    """Remove wikimem's hooks; return the events that had one."""
    return remove_hooks(settings_path)


def install_codex(
    config_path: Path, hooks_path: Path | None = None, entry: Sequence[str] = ("wikimem",)
) -> dict[str, str]:
    """Set Codex's `notify` program to `entry hook` and, when `hooks_path` is given, add the
    SessionStart hook there; return what was written, by setting (empty: nothing to do)."""
    written: dict[str, str] = {}
    notify = [*entry, "hook"]
    if _set_notify(config_path, notify):
        written["notify"] = json.dumps(notify)
    if hooks_path is not None:
        wanted = {e: (command_line(entry, sub), t) for e, (sub, t) in CODEX_HOOKS.items()}
        written.update(edit_hooks(hooks_path, wanted))
    return written


def uninstall_codex(config_path: Path, hooks_path: Path | None = None) -> list[str]:
    """Remove wikimem's `notify` line and hooks; return what was removed."""
    removed = ["notify"] if _drop_notify(config_path) else []
    if hooks_path is not None:
        removed.extend(remove_hooks(hooks_path))
    return removed


def edit_hooks(path: Path, wanted: dict[str, tuple[str, int]]) -> dict[str, str]:
    """Make each event of a Claude-style hooks file run exactly one wikimem handler, the one
    wanted; other handlers stay as they are."""
    text = read_text(path) if path.exists() else ""
    settings = _load_json(text, path)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{path}: "hooks" is not an object; fix it and run again')
    written: dict[str, str] = {}
    for event, (command, timeout) in wanted.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f'{path}: "hooks.{event}" is not a list; fix it and run again')
        if [h.get("command") for h in _handlers(groups) if is_wikimem(h.get("command"))] == [
            command
        ]:
            continue
        hooks[event] = _without_wikimem(groups) + [
            {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
        ]
        written[event] = command
    if written:
        _write_json(path, settings, text)
    return written


def remove_hooks(path: Path) -> list[str]:
    """Remove wikimem's handlers from a hooks file, and what that leaves empty."""
    if not path.exists():
        return []
    text = read_text(path)
    settings = _load_json(text, path)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    removed = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list) or not any(
            is_wikimem(h.get("command")) for h in _handlers(groups)
        ):
            continue
        removed.append(event)
        kept = _without_wikimem(groups)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not removed:
        return []
    if not hooks:
        del settings["hooks"]
    if settings:
        _write_json(path, settings, text)
    else:
        path.unlink()  # the file held nothing but wikimem's hooks: it was install's
    return removed


def _set_notify(config_path: Path, wanted: list[str]) -> bool:
    text = read_text(config_path) if config_path.exists() else ""
    current = _toml(text, config_path).get("notify")
    if current == wanted:
        return False
    newline = "\r\n" if "\r\n" in text else "\n"
    line = f"notify = {json.dumps(wanted)}{newline}"
    if current is not None and not _is_wikimem_notify(current):
        raise ConfigError(
            f"{config_path} already sets notify = {json.dumps(current)}; Codex runs only one "
            f"notify program, so wikimem left it alone. Remove that line to use "
            f"{json.dumps(wanted)}, or have your program also call `{shlex.join(wanted)}` "
            "with the same JSON argument"
        )
    if current is not None:  # an earlier wikimem's line: replace it where it stands
        updated = NOTIFY_LINE.sub(lambda _: line, text, count=1)
    else:  # top-level keys must come before the first [table], so the line goes first
        updated = line + (newline + text if text.strip() else "")
    if _toml(updated, config_path).get("notify") != wanted:  # pragma: no cover - a guard
        raise ConfigError(f"could not set notify in {config_path}; add it by hand: {line}")
    config_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(config_path, updated)
    return True


def _drop_notify(config_path: Path) -> bool:
    if not config_path.exists():
        return False
    text = read_text(config_path)
    if not _is_wikimem_notify(_toml(text, config_path).get("notify")):
        return False
    match = NOTIFY_LINE.search(text)
    if match is None:  # pragma: no cover - the key parsed, so the line is there
        return False
    before, rest = text[: match.start()], text[match.end() :]
    if not before:  # install put the line first, then a blank line before the rest
        rest = rest.removeprefix("\r\n") if rest.startswith("\r\n") else rest.removeprefix("\n")
    updated = before + rest
    if updated.strip():
        atomic_write_text(config_path, updated)
    else:
        config_path.unlink()
    return True


def _is_wikimem_notify(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(part, str) for part in value)
        and is_wikimem(shlex.join(value))
    )


def _toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid TOML ({exc}); fix it and run again; the file was left unchanged"
        ) from exc


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


def _write_json(path: Path, settings: dict[str, Any], text: str) -> None:
    indent = INDENT.search(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(
        path,
        json.dumps(settings, indent=indent.group(1) if indent else 2, ensure_ascii=False) + "\n",
    )


def _handlers(groups: list[Any]) -> list[dict[str, Any]]:
    return [
        h
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for h in group["hooks"]
        if isinstance(h, dict)
    ]


def _without_wikimem(groups: list[Any]) -> list[Any]:
    """The groups without wikimem's handlers; a group left with none goes too."""
    kept = []
    for group in groups:
        if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
            kept.append(group)
            continue
        handlers = [
            h for h in group["hooks"] if not (isinstance(h, dict) and is_wikimem(h.get("command")))
        ]
        if handlers:
            kept.append({**group, "hooks": handlers} if handlers != group["hooks"] else group)
    return kept
