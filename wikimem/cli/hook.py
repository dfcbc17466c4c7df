"""`wikimem hook`: what agent runners call when a run ends. It fails open and returns fast.

It never imports click, openai or git: it parses its few flags by hand and hands the run to the
workspace's warm listener when one runs (intake/listener.py; the hook then imports nothing beyond
what the interpreter has built in). Otherwise it enqueues the run itself, starts an indexing pass in
a detached process (or runs it in the foreground with --wait) and a listener for the next hooks.
Whatever happens it exits 0 (except --from-command, which exits with the command's status),
saying on stderr what went wrong: memory must never break the agent that calls it.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the hook's fast path does not import typing or collections
if TYPE_CHECKING:
    from collections.abc import Sequence

USAGE = (
    "usage: wikimem hook [FILE|-|JSON] [--wait] [--github] [-C DIR] [--from-command -- CMD ARGS...]"
)


class HookArgs:
    """The hook's flags (a plain class: importing dataclasses costs the hook ~10 ms)."""

    def __init__(self) -> None:
        self.source: str | None = None
        self.wait = False
        self.github = False
        self.quiet = False
        self.handoff = False  # internal: handed a payload to finish in the background
        self.workspace: str | None = None
        self.task: str | None = None
        self.command: list[str] = []


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
    from wikimem import locate

    status = 0
    record = None
    if parsed.command:
        from wikimem.runners.command import run_and_record

        status, record = run_and_record(parsed.command, parsed.task)
    if locate.memory_disabled():
        return status
    workspace = locate.project_dir(parsed.workspace)
    if workspace is None:
        # A folder of no project (or HOME): recording here would make a wiki in every folder
        # an agent visits. `wikimem init` is how a wiki is made.
        sys.stderr.write(
            "wikimem: not in a project (no .git or .clarvis/ up from here); "
            "nothing recorded (`wikimem init` makes a wiki here)\n"
        )
        return status
    state = locate.state_dir(workspace)
    if os.path.exists(os.path.join(state, locate.PAUSED)):
        return status
    data, source = (b"", "command") if record is not None else read_input(parsed.source)
    answered = False
    session_end = record is None and not parsed.github and _session_end(data)
    if record is None and not (parsed.wait or parsed.handoff):
        from wikimem.intake.listener import send

        reply = send(
            os.path.join(state, locate.SOCKET),
            workspace,
            data,
            source,
            github=parsed.github,
            early=session_end,
        )
        if reply is not None and "retry" not in reply:
            _say(reply, parsed.quiet)
            return status
        answered = reply is not None  # one is there but refused or was slow: no second one
    from wikimem import config
    from wikimem.intake.background import spawn, spawn_listener, spawn_pass

    places = config.places(workspace)
    if session_end and not (parsed.wait or parsed.handoff):
        # SessionEnd gives hooks ~1.5 s: reading the transcript and redacting happen in a
        # detached process that gets the payload through a pipe.
        spawn(
            ["hook", "--handoff", "--quiet", "-C", workspace, "-"], str(places.background_log), data
        )
        return status
    from wikimem.intake.accept import accept

    settings = config.load(places)
    reply = accept(places, config.environ(), data, source, parsed.github, record, settings)
    _say(reply, parsed.quiet)
    if not reply.get("job"):
        return status
    if parsed.wait or parsed.handoff:  # a handed-off hook is already in the background
        from wikimem.cli.pipeline import index_until_done

        index_until_done(places, settings, reply["job"], quiet=parsed.quiet)
        return status
    spawn_pass(workspace, str(places.background_log))
    linger = settings.hook.linger
    if linger and not answered:  # the next hooks go through it (a second one steps aside)
        spawn_listener(workspace, str(places.background_log), linger)
    return status


def _say(reply: dict, quiet: bool) -> None:
    """What a hook tells the person: an error, the secrets removed, a failing-passes warning."""
    if reply.get("error"):
        print(f"wikimem hook: {reply['error']}", file=sys.stderr)
    if not quiet and reply.get("redactions"):
        print(
            f"wikimem: removed {len(reply['redactions'])} secret kind(s) before queueing: "
            f"{', '.join(reply['redactions'])}",
            file=sys.stderr,
        )
    if reply.get("warning"):
        print(reply["warning"], file=sys.stderr)


def _session_end(data: bytes) -> bool:
    """A Claude Code SessionEnd payload (cheap check: the full parse happens later)."""
    if b"SessionEnd" not in data:
        return False
    import json

    try:
        payload = json.loads(data)
    except ValueError:
        return False
    return isinstance(payload, dict) and payload.get("hook_event_name") == "SessionEnd"
