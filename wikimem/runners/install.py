"""Installing the hooks into agent runners' settings, and removing them: Claude Code's JSON,
Codex's `notify` in config.toml and its `hooks.json`, Gemini CLI's settings.json.

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
from wikimem.runners import jsontext

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# event: (subcommand, timeout in seconds). Stop only queues the run; SessionEnd must raise
# Claude Code's 1.5 s default budget, and runs as the session leaves, so a long budget costs
# nobody a wait: 200 sessions ending at once need 24 s of CPU for their hooks (118 ms each), and
# took p99 32 s on a loaded 2-core machine; 10 s lost runs. SessionStart prints the context and
# never waits on a model. PreCompact and PostCompact queue the turns so far that no Stop
# recorded (interrupted ones): the session's cursor makes each turn one run whichever fire.
# StopFailure ends a turn an API error stopped.
CLAUDE_HOOKS = {
    "Stop": ("hook", 30),
    "SessionEnd": ("hook", 60),
    "SessionStart": ("start --runner claude", 10),
    "PreCompact": ("hook", 30),
    "PostCompact": ("hook", 30),
    "UserPromptSubmit": ("deliver --runner claude", 10),
    "PostToolUseFailure": ("deliver --runner claude", 10),
    # Claude Code fires StopFailure instead of Stop when a turn ends on an API error: the turn
    # is recorded then, `failed` with the error, not later by the next hook without a status.
    "StopFailure": ("hook", 30),
}
CODEX_HOOKS = {
    "SessionStart": ("start --runner codex", 10),
    "PreCompact": ("hook", 30),
    "PostCompact": ("hook", 30),
    "UserPromptSubmit": ("deliver --runner codex", 10),
    "PostToolUse": ("deliver --runner codex", 10),
}
# Gemini CLI's hooks take the same event -> group -> handler layout as Claude Code's, with
# the timeout in milliseconds. AfterAgent fires once per turn and only queues it; PreCompress
# and SessionEnd (which Gemini CLI does not wait for: the hook hands off at once) queue the
# turns no AfterAgent reported, through the session's cursor.
GEMINI_HOOKS = {
    "AfterAgent": ("hook", 30_000),
    "PreCompress": ("hook", 30_000),
    "SessionEnd": ("hook", 60_000),
    "SessionStart": ("start --runner gemini", 10_000),
    "BeforeAgent": ("deliver --runner gemini", 10_000),
    "AfterTool": ("deliver --runner gemini", 10_000),
}
# The in-loop hooks answer only for shell commands: the runner need not start wikimem for an
# edit or a read. (Claude Code's PostToolUseFailure, Codex's PostToolUse, both naming it Bash;
# Gemini CLI's AfterTool, naming it run_shell_command.)
MATCHERS = {"PostToolUseFailure": "Bash", "PostToolUse": "Bash", "AfterTool": "run_shell_command"}
WIKIMEM = re.compile(
    r"""(?:^|[\s/\\'"])(?:wikimem(?:\.exe)?['"]?|-m\s+wikimem)\s+(?:hook|start|deliver)\b"""
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
    """Remove wikimem's hooks; return the events that had one. A `.claude/` folder the
    removal leaves empty goes too (install made it)."""
    removed = remove_hooks(settings_path)
    folder = settings_path.parent
    if removed and folder.name == ".claude" and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return removed


def install_gemini(settings_path: Path, entry: Sequence[str] = ("wikimem",)) -> dict[str, str]:
    """Add the AfterAgent, PreCompress, SessionEnd, SessionStart and in-loop (BeforeAgent,
    AfterTool) hooks to a Gemini CLI settings.json;
    return the commands written, by event (empty when all were there)."""
    wanted = {e: (command_line(entry, sub), t) for e, (sub, t) in GEMINI_HOOKS.items()}
    return edit_hooks(settings_path, wanted)


def uninstall_gemini(settings_path: Path) -> list[str]:
    """Remove wikimem's hooks from a Gemini CLI settings.json, and a `.gemini/` left empty."""
    removed = remove_hooks(settings_path)
    folder = settings_path.parent
    if removed and folder.name == ".gemini" and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return removed


# Cursor's hooks.json: {"version": 1, "hooks": {event: [{"command", "timeout" (seconds)}]}},
# no groups. The gathering events only add to their turn's scratch file; stop, preCompact and
# sessionEnd queue the turns; sessionStart gives the context (its `additional_context`).
CURSOR_HOOKS = {
    "sessionStart": ("start --runner cursor", 10),
    "beforeSubmitPrompt": ("hook", 10),
    "afterShellExecution": ("hook", 10),
    "afterFileEdit": ("hook", 10),
    "afterAgentResponse": ("hook", 10),
    "stop": ("hook", 30),
    "preCompact": ("hook", 30),
    "sessionEnd": ("hook", 30),
}
# ~/.cursor/hooks.json runs its hooks in ~/.cursor/: they go to the project Cursor names first
IN_CURSOR_PROJECT = 'cd "${CURSOR_PROJECT_DIR:-.}" && '


def install_cursor(
    path: Path, entry: Sequence[str] = ("wikimem",), user: bool = False
) -> dict[str, str]:
    """Add wikimem's handlers to a Cursor hooks.json (made with `"version": 1` when new);
    return the commands written, by event (empty when all were there)."""
    prefix = IN_CURSOR_PROJECT if user else ""
    wanted = {e: (prefix + command_line(entry, s), t) for e, (s, t) in CURSOR_HOOKS.items()}
    return edit_flat_hooks(path, wanted, {"version": 1})


def uninstall_cursor(path: Path) -> list[str]:
    """Remove wikimem's handlers from a Cursor hooks.json, and a `.cursor/` left empty."""
    removed = remove_flat_hooks(path)
    folder = path.parent
    if removed and folder.name == ".cursor" and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return removed


def edit_flat_hooks(
    path: Path, wanted: dict[str, tuple[str, int]], new_file: dict[str, Any]
) -> dict[str, str]:
    """Make each event of a hooks file whose events list handlers directly (no groups: Cursor)
    run exactly one wikimem handler, the one wanted; every other byte stays. A new file starts
    as `new_file`."""
    text = read_text(path) if path.exists() else ""
    settings = _load_json(text, path)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{path}: "hooks" is not an object; fix it and run again')
    written: dict[str, str] = {}
    edited = text if text.strip() else json.dumps(new_file)
    for event, (command, timeout) in wanted.items():
        handlers = hooks.get(event, [])
        if not isinstance(handlers, list):
            raise ConfigError(f'{path}: "hooks.{event}" is not a list; fix it and run again')
        mine = [h.get("command") for h in handlers if isinstance(h, dict)]
        if [c for c in mine if is_wikimem(c)] == [command]:
            continue
        edited, _ = _drop_flat(edited, event)
        handler = {"command": command, "timeout": timeout}
        edited = _append_hook(edited, event, handler)
        written[event] = command
    if written:
        if not text.strip():
            edited = json.dumps(json.loads(edited), indent=2) + "\n"  # a new file, laid out
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, edited)
    return written


def remove_flat_hooks(path: Path, key: str = "command") -> list[str]:
    """Remove wikimem's handlers (`key` holds their command: Cursor's "command", Copilot's
    "bash") from a flat hooks file, and the events and "hooks" they leave empty; the file goes
    when nothing but its "version" is left (install made it)."""
    if not path.exists():
        return []
    text = read_text(path)
    hooks = _load_json(text, path).get("hooks")
    if not isinstance(hooks, dict):
        return []
    removed = []
    for event in list(hooks):
        text, dropped = _drop_flat(text, event, key)
        if dropped:
            removed.append(event)
    if not removed:
        return []
    if set(json.loads(text)) <= {"version"}:
        path.unlink()
    else:
        atomic_write_text(path, text)
    return removed


def _drop_flat(text: str, event: str, key: str = "command") -> tuple[str, bool]:
    """The text without wikimem's handlers of `event` (`key` holds their command), nor the
    event and "hooks" they leave empty; and whether there was one."""
    dropped = False
    while True:
        root = jsontext.parse(text)
        table = root.get("hooks")
        handlers = table.get(event) if table is not None else None
        if table is None or handlers is None or handlers.kind != "array":
            return text, dropped
        hit = None
        for i, node in enumerate(handlers.values):
            handler = json.loads(text[node.start : node.end])
            if isinstance(handler, dict) and is_wikimem(handler.get(key)):
                hit = i
                break
        if hit is None:
            if dropped and not handlers.values:
                text = jsontext.remove(text, table, table.keys.index(event))
                root = jsontext.parse(text)
                if not root.values[root.keys.index("hooks")].values:
                    text = jsontext.remove(text, root, root.keys.index("hooks"))
            return text, dropped
        dropped = True
        text = jsontext.remove(text, handlers, hit)


def install_opencode(
    path: Path,
    entry: Sequence[str] = ("wikimem",),
    context: Path | None = None,
    config: Path | None = None,
) -> list[str]:
    """Write wikimem's OpenCode plugin at `path` (a `plugins/` folder OpenCode loads) and, with
    `context`, list that file in the `instructions` of the OpenCode `config` (the plugin keeps
    it filled with the memory's context); what was written (empty: all there). A plugin file
    that is not wikimem's is left alone (ConfigError)."""
    from wikimem.runners.opencode import MARKER, plugin_text

    written = []
    wanted = plugin_text(list(entry), str(context) if context else None)
    current = read_text(path) if path.exists() else None
    if current is not None and current != wanted and not current.startswith(MARKER):
        raise ConfigError(f"{path} exists and is not wikimem's plugin; it was left alone")
    if context is not None and config is not None and _add_instruction(config, str(context)):
        written.append(str(config))
    if current != wanted:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, wanted)
        written.insert(0, str(path))
    return written


def uninstall_opencode(path: Path, context: Path | None = None, config: Path | None = None) -> bool:
    """Remove wikimem's OpenCode plugin, its context file and `instructions` entry, and the
    `plugins/` and `.opencode/` folders that leaves empty; whether there was a plugin."""
    from wikimem.runners.opencode import MARKER

    if not path.exists() or not read_text(path).startswith(MARKER):
        return False
    if context is not None and config is not None:
        _drop_instruction(config, str(context))
    if context is not None:
        context.unlink(missing_ok=True)
    path.unlink()
    for folder in (path.parent, path.parent.parent):
        if (
            folder.name in ("plugins", ".opencode")
            and folder.is_dir()
            and not any(folder.iterdir())
        ):
            folder.rmdir()
    return True


def _add_instruction(config: Path, file: str) -> bool:
    """List `file` in an OpenCode config's `instructions` (a new config holds only that)."""
    text = read_text(config) if config.exists() else ""
    current = _load_json(text, config).get("instructions", [])
    if not isinstance(current, list):
        raise ConfigError(f'{config}: "instructions" is not a list; fix it and run again')
    if file in current:
        return False
    edited = text if text.strip() else "{}"
    root = jsontext.parse(edited)
    table = root.get("instructions")
    if table is None:
        edited = jsontext.append(edited, root, [file], "instructions")
    else:
        edited = jsontext.append(edited, table, file)
    if not text.strip():
        edited = json.dumps(json.loads(edited), indent=2) + "\n"  # a new file, laid out
    config.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(config, edited)
    return True


def _drop_instruction(config: Path, file: str) -> None:
    """Remove what `_add_instruction` added, byte for byte, and the file if that empties it."""
    if not config.exists():
        return
    text = read_text(config)
    current = _load_json(text, config).get("instructions")
    if not isinstance(current, list) or file not in current:
        return
    root = jsontext.parse(text)
    table = root.get("instructions")
    assert table is not None
    text = jsontext.remove(text, table, current.index(file))
    if not json.loads(text)["instructions"]:
        root = jsontext.parse(text)
        text = jsontext.remove(text, root, root.keys.index("instructions"))
    if json.loads(text) == {}:
        config.unlink()
    else:
        atomic_write_text(config, text)


EXCLUDE_NOTE = "# added by wikimem install: personal hook settings, with an absolute path\n"


def keep_out_of_git(workspace: Path, file: Path) -> Path | None:
    """List `file` in the repository's own exclude file (.git/info/exclude, never the shared
    .gitignore) unless git already ignores or tracks it; the exclude file, when written."""
    info = _git_exclude(workspace, file)
    if info is None:
        return None
    exclude, relative, top = info
    text = read_text(exclude) if exclude.exists() else ""
    if _git(top, "check-ignore", "-q", "--no-index", relative) == 0:
        return None  # ignored already (a .gitignore, the global excludes, this file)
    if _git(top, "ls-files", "--error-unmatch", relative) == 0:
        return None  # tracked: excluding it would change nothing
    gap = "" if not text or text.endswith("\n") else "\n"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(exclude, text + gap + EXCLUDE_NOTE + f"/{relative}\n")
    return exclude


def tracked_in_git(workspace: Path, file: Path) -> bool:
    """Whether git tracks `file` (then an absolute path written into it would be committed)."""
    info = _git_exclude(workspace, file)
    return info is not None and _git(info[2], "ls-files", "--error-unmatch", info[1]) == 0


def drop_git_exclusion(workspace: Path, file: Path) -> bool:
    """Remove the lines `keep_out_of_git` added, exactly."""
    info = _git_exclude(workspace, file)
    if info is None or not info[0].exists():
        return False
    exclude, relative, _ = info
    text = read_text(exclude)
    lines = EXCLUDE_NOTE + f"/{relative}\n"
    if lines not in text:
        return False
    atomic_write_text(exclude, text.replace(lines, "", 1))
    return True


def _git_exclude(workspace: Path, file: Path) -> tuple[Path, str, Path] | None:
    """The repository's exclude file and `file` relative to the work tree; None outside git."""
    import subprocess  # install only, never a hook

    try:
        top, exclude = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "--git-path", "info/exclude"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.splitlines()[:2]
        relative = file.resolve().relative_to(Path(top).resolve()).as_posix()
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    path = Path(exclude)
    return (path if path.is_absolute() else workspace / path), relative, Path(top)


def _git(workspace: Path, *args: str) -> int:
    import subprocess  # install only, never a hook

    try:
        return subprocess.run(
            ["git", *args], cwd=workspace, capture_output=True, timeout=20
        ).returncode
    except (OSError, subprocess.SubprocessError):
        return 2


# Codex runs hooks.json by default from 0.130 (May 2026: the `hooks` feature became stable and
# on by default, and `[features] codex_hooks` a deprecated alias that warns at every start);
# before that only with `[features] codex_hooks = true`.
HOOKS_BY_DEFAULT = (0, 130, 0)
VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def codex_version(program: str = "codex") -> tuple[int, int, int] | None:
    """The installed Codex's version from `codex --version` (`codex-cli 0.130.0`), or None when
    there is no Codex on PATH or it does not say."""
    import shutil
    import subprocess

    found = shutil.which(program)
    if found is None:
        return None
    try:
        done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    match = VERSION.search(done.stdout or "")
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def install_codex(
    config_path: Path,
    hooks_path: Path | None = None,
    entry: Sequence[str] = ("wikimem",),
    version: tuple[int, int, int] | None = None,
) -> dict[str, str]:
    """Set Codex's `notify` program to `entry hook` and, when `hooks_path` is given, add the
    SessionStart hook there; return what was written, by setting (empty: nothing to do). The
    hooks feature line is written only for a Codex known to be older than HOOKS_BY_DEFAULT;
    for a newer one the line an earlier install wrote is taken out (it only warns there)."""
    written: dict[str, str] = {}
    notify = [*entry, "hook"]
    if _set_notify(config_path, notify):
        written["notify"] = json.dumps(notify)
    if hooks_path is not None and version is not None and version < HOOKS_BY_DEFAULT:
        if _set_hooks_feature(config_path):
            written["features.codex_hooks"] = "true"
    elif hooks_path is not None and version is not None and _drop_hooks_feature(config_path):
        written["features.codex_hooks"] = "removed"
    if hooks_path is not None:
        wanted = {e: (command_line(entry, sub), t) for e, (sub, t) in CODEX_HOOKS.items()}
        written.update(edit_hooks(hooks_path, wanted))
    return written


def uninstall_codex(config_path: Path, hooks_path: Path | None = None) -> list[str]:
    """Remove wikimem's `notify` line and hooks; return what was removed."""
    removed = ["features.codex_hooks"] if _drop_hooks_feature(config_path) else []
    removed[:0] = ["notify"] if _drop_notify(config_path) else []
    if hooks_path is not None:
        removed.extend(remove_hooks(hooks_path))
    return removed


def edit_hooks(path: Path, wanted: dict[str, tuple[str, int]]) -> dict[str, str]:
    """Make each event of a Claude-style hooks file run exactly one wikimem handler, the one
    wanted; other handlers, and every byte of the file they are in, stay as they are."""
    text = read_text(path) if path.exists() else ""
    settings = _load_json(text, path)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{path}: "hooks" is not an object; fix it and run again')
    written: dict[str, str] = {}
    edited = text if text.strip() else "{}"
    for event, (command, timeout) in wanted.items():
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f'{path}: "hooks.{event}" is not a list; fix it and run again')
        if [h.get("command") for h in _handlers(groups) if is_wikimem(h.get("command"))] == [
            command
        ]:
            continue
        edited, _ = _drop_wikimem(edited, event)
        group: dict[str, Any] = {
            "hooks": [{"type": "command", "command": command, "timeout": timeout}]
        }
        if event in MATCHERS:
            group = {"matcher": MATCHERS[event], **group}
        edited = _append_hook(edited, event, group)
        written[event] = command
    if written:
        if not text.strip():
            edited = edited.rstrip("\n") + "\n"  # a new file
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, edited)
    return written


def remove_hooks(path: Path) -> list[str]:
    """Remove wikimem's handlers from a hooks file, and what that leaves empty; every other
    byte stays (an install then an uninstall gives the file back as it was, unless an event
    or the "hooks" table was there and empty before: those go too)."""
    if not path.exists():
        return []
    text = read_text(path)
    settings = _load_json(text, path)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    removed = []
    for event in list(hooks):
        text, dropped = _drop_wikimem(text, event)
        if dropped:
            removed.append(event)
    if not removed:
        return []
    if json.loads(text) == {}:
        path.unlink()  # the file held nothing but wikimem's hooks: it was install's
    else:
        atomic_write_text(path, text)
    return removed


def _drop_wikimem(text: str, event: str) -> tuple[str, bool]:
    """The text without wikimem's handlers of `event`, nor the group, event and "hooks"
    they leave empty; and whether there was one."""
    dropped = False
    while True:
        root = jsontext.parse(text)
        table = root.get("hooks")
        groups = table.get(event) if table is not None else None
        if table is None or groups is None or groups.kind != "array":
            return text, dropped
        hit = None
        for i, node in enumerate(groups.values):
            group = json.loads(text[node.start : node.end])
            if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
                continue
            handlers = node.get("hooks")
            mine = [
                j
                for j, h in enumerate(group["hooks"])
                if isinstance(h, dict) and is_wikimem(h.get("command"))
            ]
            if mine and handlers is not None:
                hit = (i, handlers, mine[0], len(mine) == len(group["hooks"]))
                break
        if hit is None:
            if dropped and not groups.values:
                text = jsontext.remove(text, table, table.keys.index(event))
                root = jsontext.parse(text)
                if not root.values[root.keys.index("hooks")].values:
                    text = jsontext.remove(text, root, root.keys.index("hooks"))
            return text, dropped
        i, handlers, j, whole = hit
        dropped = True
        text = jsontext.remove(text, groups, i) if whole else jsontext.remove(text, handlers, j)


FEATURE_LINE = (
    "codex_hooks = true  # added by wikimem: Codex before 0.130 runs hooks.json only with it\n"
)
EARLIER_LINES = (  # what earlier installs wrote, taken out as theirs
    "codex_hooks = true  # added by wikimem: Codex before mid-2026 runs hooks.json only with it\n",
)
FEATURES_HEADER = re.compile(r"^\[features\][ \t]*(?:#.*)?\r?\n", re.M)


def _set_hooks_feature(config_path: Path) -> bool:
    """Turn on `[features] codex_hooks`, which Codex before 0.130 needs to run hooks.json at
    all (later ones run hooks by default and warn about it as an alias). A feature setting the
    person made, on or off, is theirs: left alone."""
    text = read_text(config_path) if config_path.exists() else ""
    features = _toml(text, config_path).get("features", {})
    if not isinstance(features, dict) or "codex_hooks" in features or "hooks" in features:
        return False
    newline = "\r\n" if "\r\n" in text else "\n"
    line = FEATURE_LINE.replace("\n", newline)
    header = FEATURES_HEADER.search(text)
    if header:
        updated = text[: header.end()] + line + text[header.end() :]
    else:
        gap = "" if not text or text.endswith("\n") else newline
        updated = text + gap + (newline if text.strip() else "") + "[features]" + newline + line
    if _toml(updated, config_path).get("features", {}).get("codex_hooks") is not True:
        raise ConfigError(  # pragma: no cover - a guard
            f"could not set codex_hooks in {config_path}; add [features] codex_hooks = true"
        )
    config_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(config_path, updated)
    return True


def _drop_hooks_feature(config_path: Path) -> bool:
    """Remove the line `_set_hooks_feature` wrote, and the [features] table if it made it."""
    if not config_path.exists():
        return False
    text = read_text(config_path)
    for newline, ours in ((n, o) for o in (FEATURE_LINE, *EARLIER_LINES) for n in ("\r\n", "\n")):
        line = ours.replace("\n", newline)
        block = newline + "[features]" + newline + line
        if text.endswith(block):  # a table install appended: the blank line before it too
            updated = text[: -len(block)]
            updated = updated if text.strip() != block.strip() else ""
            break
        if text == "[features]" + newline + line:
            updated = ""
            break
        if line in text:
            updated = text.replace(line, "", 1)
            break
    else:
        return False
    if updated.strip():
        atomic_write_text(config_path, updated)
    else:
        config_path.unlink()
    return True


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


def _handlers(groups: list[Any]) -> list[dict[str, Any]]:
    return [
        h
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for h in group["hooks"]
        if isinstance(h, dict)
    ]


# GitHub Copilot (Copilot CLI and the coding agent) reads every `.github/hooks/*.json`, and
# Copilot CLI also `$COPILOT_HOME/hooks/*.json`: wikimem's handlers go in a file of its own,
# `{"version": 1, "hooks": {event: [handler]}}`, each handler `{"type": "command", "bash": ...}`
# (no groups, the timeout in seconds). agentStop queues the turn it ends; userPromptSubmitted,
# preCompact, sessionEnd and a resumed sessionStart the turns no agentStop reported (the coding
# agent documents none), through the session's cursor.
COPILOT_HOOKS = {
    "agentStop": ("hook", 30),
    "userPromptSubmitted": ("hook", 30),
    "preCompact": ("hook", 30),
    "sessionEnd": ("hook", 60),
    "sessionStart": ("hook", 30),
}


def install_copilot(path: Path, entry: Sequence[str] = ("wikimem",)) -> dict[str, str]:
    """Make each Copilot event of the hooks file run exactly one wikimem handler; return the
    commands written, by event (empty when all were there). Other bytes stay as they are."""
    text = read_text(path) if path.exists() else ""
    settings = _load_json(text, path)
    if not isinstance(settings.get("hooks", {}), dict):
        raise ConfigError(f'{path}: "hooks" is not an object; fix it and run again')
    edited = text if text.strip() else '{\n  "version": 1\n}'
    written: dict[str, str] = {}
    for event, (sub, timeout) in COPILOT_HOOKS.items():
        command = command_line(entry, sub)
        handler: dict[str, Any] = {"type": "command", "bash": command}
        if len(entry) == 1 and not re.search(r"[/\\\s'\"]", entry[0]):
            handler["powershell"] = command  # a bare name on PATH runs in PowerShell too
        handler["timeoutSec"] = timeout
        handlers = json.loads(edited).get("hooks", {}).get(event, [])
        if not isinstance(handlers, list):
            raise ConfigError(f'{path}: "hooks.{event}" is not a list; fix it and run again')
        mine = [h for h in handlers if isinstance(h, dict) and is_wikimem(h.get("bash"))]
        if mine == [handler]:
            continue
        edited, _ = _drop_flat(edited, event, "bash")
        edited = _append_hook(edited, event, handler)
        written[event] = command
    if written:
        if not text.strip():
            edited = edited.rstrip("\n") + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, edited)
    return written


def uninstall_copilot(path: Path) -> list[str]:
    """Remove wikimem's handlers from a Copilot hooks file, and what that leaves empty: the
    file when only `version` is left (install made it), then a `hooks/` and `.github/` folder
    left empty."""
    removed = remove_flat_hooks(path, "bash")
    if removed and not path.exists():
        for folder in (path.parent, path.parent.parent):
            empty = folder.is_dir() and not any(folder.iterdir())
            if folder.name in ("hooks", ".github") and empty:
                folder.rmdir()
    return removed


def _append_hook(text: str, event: str, item: dict[str, Any]) -> str:
    """`text` with `item` added last to `hooks.<event>`, creating the event and "hooks" when
    missing; every other byte stays (Claude Code, Codex, Gemini, Cursor and Copilot files)."""
    root = jsontext.parse(text)
    table = root.get("hooks")
    if table is None:
        return jsontext.append(text, root, {event: [item]}, "hooks")
    handlers = table.get(event)
    if handlers is None:
        return jsontext.append(text, table, [item], event)
    return jsontext.append(text, handlers, item)
