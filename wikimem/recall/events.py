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

import re

TYPE_CHECKING = False  # on the hook's fast path: no typing import
if TYPE_CHECKING:
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

    __slots__ = ("kind", "name", "session", "cwd", "prompt", "command", "error")

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
        return Event(kind, name, session, cwd, prompt=prompt)
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
