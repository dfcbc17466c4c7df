"""The in-loop events a runner's hook sends while the agent works, read into one shape: a prompt
the person submitted, or a shell command that failed.

Claude Code sends `UserPromptSubmit` (`prompt`), `PostToolUseFailure` for a Bash call that failed
(`error`, whose first line is `Exit code N`) and `PostToolUse` for one that succeeded; Codex sends
`UserPromptSubmit` and `PostToolUse` for every Bash call, whatever its exit code, with the
command's output in `tool_response` (text, or an object holding the output and exit code).
Gemini CLI sends `BeforeAgent` (`prompt`) and `AfterTool` for every `run_shell_command` call, its
`tool_response` holding `llmContent` (whose `Exit Code: N` line tells a failure) and `error` when
the call failed.

Invariant: reading never raises on a payload's shape: anything that is not a prompt or a failed
shell command is an event of kind "other", which gets no answer.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False  # on the hook's fast path: no typing import
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SHELL_TOOLS = frozenset(
    {"Bash", "shell", "exec_command", "local_shell", "container.exec", "run_shell_command"}
)
PROMPT_EVENTS = ("UserPromptSubmit", "BeforeAgent")
TOOL_EVENTS = ("PostToolUse", "PostToolUseFailure", "AfterTool")
ERROR_CHARS = 4000  # of the error's end (where the telling lines are) read per failure
EXIT_LINE = re.compile(
    r"^(?:Exit code:?|Process exited with code|exit_code:?|exit status:?)\s*(-?\d+)",
    re.I | re.M,
)


class Event:
    """What one hook call is about. `kind` is "prompt", "failure" or "other"."""

    __slots__ = (
        *("kind", "name", "session", "cwd", "prompt", "command", "error"),
        *("transcript", "branch", "paths"),
    )

    def __init__(
        self,
        kind: str,
        name: str,
        session: str = "",
        cwd: str = "",
        prompt: str = "",
        command: str = "",
        error: str = "",
    ) -> None:
        self.kind, self.name, self.session, self.cwd = kind, name, session, cwd
        self.prompt, self.command, self.error = prompt, command, error
        self.transcript = ""
        self.branch = ""  # the workspace's state, for a prompt: the branch checked out
        self.paths: list[str] = []  # and the paths the session's recent tool calls named

    def __repr__(self) -> str:
        return f"Event({self.kind!r}, {self.name!r}, command={self.command!r})"


def read_event(payload: dict[str, Any]) -> Event:
    """The event a hook payload describes (Claude Code or Codex, which name it the same way, or
    Gemini CLI)."""
    name = text_of(payload.get("hook_event_name"))
    session = text_of(payload.get("session_id"))
    cwd = text_of(payload.get("cwd"))
    if name in PROMPT_EVENTS:
        prompt = text_of(payload.get("prompt"))
        kind = "prompt" if prompt.strip() else "other"
        event = Event(kind, name, session, cwd, prompt=prompt)
        event.transcript = text_of(payload.get("transcript_path"))
        return event
    if name not in TOOL_EVENTS:
        return Event("other", name, session, cwd)
    if text_of(payload.get("tool_name")) not in SHELL_TOOLS:
        return Event("other", name, session, cwd)
    command = command_of(payload.get("tool_input"))
    if name == "PostToolUseFailure":
        if payload.get("is_interrupt") is True:
            return Event("other", name, session, cwd, command=command)
        error = text_of(payload.get("error"))
    else:
        failed, error = outcome(payload.get("tool_response"))
        if not failed:
            return Event("other", name, session, cwd, command=command)
    return Event("failure", name, session, cwd, command=command, error=error[-ERROR_CHARS:])


def command_of(tool_input: Any) -> str:
    """The shell command of a tool call: a string, or an argv list (`["bash", "-lc", "..."]`)."""
    if not isinstance(tool_input, dict):
        return text_of(tool_input)
    value = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(value, list):
        words = [str(v) for v in value]
        if len(words) >= 3 and words[-2] in ("-c", "-lc"):
            return words[-1]  # the shell wrapper Codex puts around the command
        return " ".join(words)
    return text_of(value)


def outcome(response: Any) -> tuple[bool, str]:
    """Whether a PostToolUse response says the command failed, and its output. Claude Code's
    object (stdout, stderr, interrupted) only comes for a success; Codex's text or object
    carries the exit code; Gemini CLI's (llmContent, returnDisplay, error) names it in a line."""
    if isinstance(response, str):
        match = EXIT_LINE.search(response)
        return (match is not None and int(match.group(1)) != 0), response
    if not isinstance(response, dict):
        return False, ""
    output = "\n".join(
        text_of(response.get(k))
        for k in (
            "output",
            "aggregated_output",
            "stdout",
            "stderr",
            "formatted_output",
            "llmContent",
        )
        if text_of(response.get(k))
    )
    for key in ("exit_code", "exitCode", "returncode", "status_code"):
        code = response.get(key)
        if isinstance(code, int) and not isinstance(code, bool):
            return code != 0, output
    if response.get("success") is False or response.get("error"):  # Gemini CLI: `error`
        return True, output or text_of(response.get("error"))
    match = EXIT_LINE.search(output)
    return (match is not None and int(match.group(1)) != 0), output


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


TRANSCRIPT_TAIL = 64 * 1024  # of the transcript's end read for the session's recent paths
PATH_KEYS = ("file_path", "path", "notebook_path")
COMMAND_KEYS = ("command", "cmd")
# A path in a command: two parts or more, the last holding a letter (not `with_span/2-3`).
PATHISH = re.compile(r"(?<![\w@:/.-])((?:[\w.-]+/)+[\w.-]*[A-Za-z][\w.-]*)/?(?![\w/])")
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)


def current_branch(workspace: Path) -> str:
    """The branch checked out in `workspace`, from its HEAD file without git ("" if none)."""
    dot_git = workspace / ".git"
    try:
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            pointer = dot_git.read_text(encoding="utf-8").strip()
            if not pointer.startswith("gitdir:"):
                return ""
            dot_git = (workspace / pointer.removeprefix("gitdir:").strip()).resolve()
        head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else ""


def recent_paths(transcript: str, workspace: Path) -> list[str]:
    """The paths the session's recent tool calls named, oldest first, relative to `workspace`
    where they are inside it: from the transcript's last TRANSCRIPT_TAIL bytes (Claude Code's
    tool_use inputs, Codex's function and custom tool calls). Never raises: no transcript, no
    paths."""
    import json

    try:
        with open(transcript, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TRANSCRIPT_TAIL))
            tail = handle.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return []
    root = str(workspace).rstrip("/") + "/"
    found: list[str] = []
    for line in tail.splitlines()[1 if size > TRANSCRIPT_TAIL else 0 :]:
        if '"' not in line:
            continue
        try:
            found += paths_in(json.loads(line))
        except (ValueError, RecursionError):
            continue
    kept = [p.removeprefix(root) for p in found if p]
    return list(dict.fromkeys(reversed(kept)))[::-1]


def paths_in(record: Any) -> list[str]:
    """The paths one transcript line's tool calls name."""
    found: list[str] = []
    calls: list[Any] = []
    message = record.get("message") if isinstance(record, dict) else None
    if isinstance(message, dict) and isinstance(message.get("content"), list):
        calls += [c.get("input") for c in message["content"] if isinstance(c, dict)]
    body = record.get("payload") if isinstance(record, dict) else None
    if isinstance(body, dict):
        arguments = body.get("arguments")
        if isinstance(arguments, str) and arguments.startswith("{"):
            calls.append(json.loads(arguments))  # a ValueError skips the line
        if isinstance(body.get("input"), str):  # apply_patch
            found += [p.strip() for p in PATCH_FILE.findall(body["input"])]
    for call in calls:
        if not isinstance(call, dict):
            continue
        found += [call[k] for k in PATH_KEYS if isinstance(call.get(k), str)]
        for key in COMMAND_KEYS:
            command = call.get(key)
            if isinstance(command, list):
                command = " ".join(str(c) for c in command)
            if isinstance(command, str):
                found += PATHISH.findall(command)
    return found
