"""`wikimem hook`: what agent runners call when a run ends. It fails open and returns fast.

It never imports click, openai or git: it parses its few flags by hand, enqueues the run, and
starts an indexing pass in a detached process (or runs it in the foreground with --wait).
Whatever happens it exits 0 (except --from-command, which exits with the command's status),
saying on stderr what went wrong: memory must never break the agent that calls it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

USAGE = ("usage: wikimem hook [FILE|-|JSON] [--wait] [--github] [-C DIR] "
         "[--from-command -- CMD ARGS...]")


@dataclass
class HookArgs:
    source: str | None = None
    wait: bool = False
    github: bool = False
    quiet: bool = False
    handoff: bool = False  # internal: this process was handed a payload to finish in the background
    workspace: str | None = None
    task: str | None = None
    command: list[str] = field(default_factory=list)


def parse_args(args: Sequence[str]) -> HookArgs:
    parsed = HookArgs()
    items = list(args)
    from_command = False
    while items:
        arg = items.pop(0)
        if arg == "--from-command":
            from_command = True  # options may still follow; the command starts after `--`
        elif arg == "--" or (from_command and not arg.startswith("-")):
            parsed.command, items = (items if arg == "--" else [arg, *items]), []
        elif arg == "--wait":
            parsed.wait = True
        elif arg == "--github":
            parsed.github = True
        elif arg in ("-q", "--quiet"):
            parsed.quiet = True
        elif arg == "--handoff":
            parsed.handoff = True
        elif arg in ("-C", "--workspace", "--task"):
            if not items:
                raise ValueError(f"{arg} needs a value")
            value = items.pop(0)
            if arg == "--task":
                parsed.task = value
            else:
                parsed.workspace = value
        elif arg.startswith("--workspace="):
            parsed.workspace = arg.split("=", 1)[1]
        elif arg.startswith("-") and arg != "-":
            raise ValueError(f"unknown option {arg}")
        elif parsed.source is None:
            parsed.source = arg
        else:
            raise ValueError(f"unexpected argument {arg!r}")
    if from_command and not parsed.command:
        raise ValueError("--from-command needs a command after --")
    if parsed.command and not from_command:
        raise ValueError("a command after -- needs --from-command")
    return parsed


def read_input(source: str | None) -> tuple[bytes, str]:
    if source and source.lstrip().startswith("{"):
        return source.encode("utf-8", "surrogateescape"), "argument"  # Codex `notify` form
    if source and source != "-":
        with open(source, "rb") as handle:
            return handle.read(), source
    if sys.stdin is None or sys.stdin.isatty():
        raise ValueError("no run record: pass a FILE or pipe JSON on stdin")
    return sys.stdin.buffer.read(), "stdin"


def spawn_pass(workspace: str, log_path: str) -> None:
    """Start `wikimem index` detached, so the runner's next task never waits for it."""
    spawn([sys.executable, "-m", "wikimem", "index", "--quiet", "-C", workspace], log_path)


def spawn(argv: list[str], log_path: str, payload: bytes | None = None) -> None:
    """Start a detached wikimem (own session, so a runner tearing down its process group does
    not kill it), optionally handing it `payload` on its stdin through a pipe (never a file:
    the payload is not yet redacted)."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    read_end, write_end = os.pipe() if payload is not None else (-1, -1)
    stdin = [(os.POSIX_SPAWN_DUP2, read_end, 0), (os.POSIX_SPAWN_CLOSE, write_end)] \
        if payload is not None else [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    try:
        if not hasattr(os, "posix_spawn"):
            raise NotImplementedError
        try:  # no fork of this process and no `subprocess` import: the hook stays fast
            os.posix_spawn(sys.executable, argv, os.environ, setsid=True, file_actions=[
                *stdin, (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                 0o644)])
        except (NotImplementedError, TypeError, OSError):
            _popen(argv, log_path, read_end if payload is not None else None)
        if payload is not None:
            os.close(read_end)
            read_end = -1
            with open(write_end, "wb", closefd=True) as pipe:
                write_end = -1
                pipe.write(payload)
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)


def _popen(argv: list[str], log_path: str, stdin_fd: int | None) -> None:
    """The portable fallback where posix_spawn cannot start a new session."""
    import subprocess

    with open(log_path, "ab") as log:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin_fd is None else stdin_fd,
                         stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                         close_fds=True)


def fast_hook(args: Sequence[str]) -> int:
    status = 0
    try:
        parsed = parse_args(args)
    except ValueError as exc:
        print(f"wikimem hook: {exc}\n{USAGE}", file=sys.stderr)
        return 0
    try:
        status = _hook(parsed)
    except KeyboardInterrupt:
        print("wikimem hook: interrupted", file=sys.stderr)
    except Exception as exc:  # fail open: say what went wrong, never break the agent
        print(f"wikimem hook: {exc}", file=sys.stderr)
    return status


def _hook(parsed: HookArgs) -> int:
    from .. import config

    env = config.environ()
    status = 0
    record = None
    if parsed.command:
        from ..hooks.command import run_and_record

        status, record = run_and_record(parsed.command, parsed.task)
    if config.memory_disabled(env):
        return status
    places = config.places(parsed.workspace, env)
    if places.paused_flag.exists():
        return status
    if record is None:
        data, source = read_input(parsed.source)
        if not (parsed.wait or parsed.handoff or parsed.github) and _session_end(data):
            # SessionEnd gives hooks ~1.5 s: reading the transcript and redacting happen in a
            # detached process that gets the payload through a pipe.
            spawn([sys.executable, "-m", "wikimem", "hook", "--handoff", "--quiet", "-C",
                   str(places.workspace), "-"], str(places.state / "background.log"), data)
            return status
        record = _record(data, source, parsed.github, env)
        if record is None:
            return status
    from ..intake import enqueue

    settings = config.load(places, env)
    done = enqueue(places, settings, record)
    if not parsed.quiet and done.redactions:
        print(f"wikimem: removed {len(done.redactions)} secret kind(s) before queueing: "
              f"{', '.join(done.redactions)}", file=sys.stderr)
    _warn_failures(places)
    if parsed.wait or parsed.handoff:  # a handed-off hook is already in the background
        from .pipeline import index_until_done

        index_until_done(places, settings, done.job_id, quiet=parsed.quiet)
    else:
        spawn_pass(str(places.workspace), str(places.state / "background.log"))
    return status


def _session_end(data: bytes) -> bool:
    """A Claude Code SessionEnd payload (cheap check: the full parse happens later)."""
    if b"SessionEnd" not in data:
        return False
    try:
        payload = json.loads(data)
    except ValueError:
        return False
    return isinstance(payload, dict) and payload.get("hook_event_name") == "SessionEnd"


def _record(data: bytes, source: str, github: bool, env: object) -> dict | None:
    from ..errors import RecordError
    from ..intake import decode

    if github:
        from ..hooks.github import record_from_output  # it adds the GITHUB_* provenance
        from ..redact import to_text

        return record_from_output(to_text(data), env)  # type: ignore[arg-type]
    payload = decode(data, source)
    from ..hooks import record_from_payload

    try:
        return record_from_payload(payload, env)  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise RecordError(f"{source}: unreadable hook payload ({exc})") from exc


def _warn_failures(places: object) -> None:
    from ..passlog import failure_warning

    warning = failure_warning(places.pass_log)  # type: ignore[attr-defined]
    if warning:
        print(warning, file=sys.stderr)
