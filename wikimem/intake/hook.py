"""What a hook does with a run: the decisions between the listener, the SessionEnd hand-off,
accepting the run in-process, waiting for its pass, and starting a pass and a listener.

This is the hook's fast path: agent runners wait for it. It imports nothing at the top beyond
what the interpreter has built in, and each further import sits where the path needs it (a run
handed to the warm listener costs one round trip and no intake, settings or redaction imports;
tests/test_listener.py holds the import budget). It never imports click, openai or git: indexing
in the foreground is the caller's `index` function. Whatever fails is raised to the caller,
which fails open.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the hook's fast path does not import typing or collections (~5 ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from wikimem.config import Places, Settings

    IndexJob = Callable[[Places, Settings, str, bool, bool, tuple[int, int]], object]


class HookArgs:
    """What a hook was asked to do (a plain class: importing dataclasses costs the hook ~10 ms)."""

    def __init__(self) -> None:
        self.source: str | None = None
        self.wait = False
        self.github = False
        self.quiet = False
        self.handoff = False  # internal: handed a payload to finish in the background
        self.workspace: str | None = None
        self.task: str | None = None
        self.command: list[str] = []


def read_input(source: str | None) -> tuple[bytes, str]:
    """The run's bytes and where they came from: an inline JSON argument, a file, or stdin."""
    if source and source.lstrip().startswith("{"):
        return source.encode("utf-8", "surrogateescape"), "argument"  # Codex `notify` form
    if source and source != "-":
        with open(source, "rb") as handle:
            return handle.read(), source
    if sys.stdin is None or sys.stdin.isatty():
        raise ValueError("no run record: pass a FILE or pipe JSON on stdin")
    return sys.stdin.buffer.read(), "stdin"


def run(args: HookArgs, index: IndexJob) -> int:
    """Take one run as `args` say; the exit status (0, or the command's with --from-command).
    `index(places, settings, job_id, quiet, sent_before, log_mark)` indexes a job in the
    foreground (--wait, hand-off); `log_mark` is where the pass log ended before the job was
    queued, so its outcome is found there when a background pass took it first."""
    from wikimem import locate  # plain os.path: cheaper than the settings

    status = 0
    record = None
    if args.command:
        from wikimem.runners.command import run_and_record  # only with --from-command

        status, record = run_and_record(args.command, args.task)
    if locate.memory_disabled():
        return status
    # Codex starts `notify` in no particular folder: its JSON argument says where the turn ran
    workspace = locate.project_dir(args.workspace, cwd=payload_cwd(args.source))
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
    data, source = (b"", "command") if record is not None else read_input(args.source)
    answered = False
    session_end = record is None and not args.github and is_session_end(data)
    if record is None and not (args.wait or args.handoff):
        from wikimem.intake.listener import send  # the client half imports nothing else

        reply = send(
            os.path.join(state, locate.SOCKET),
            workspace,
            data,
            source,
            github=args.github,
            early=session_end,
        )
        if reply is not None and "retry" not in reply:
            tell(
                reply.get("error"), reply.get("redactions") or (), reply.get("warning"), args.quiet
            )
            if not reply.get("error"):
                confirm(reply.get("run"), bool(reply.get("duplicate")), reply.get("skipped"), args)
            return status
        answered = reply is not None  # one is there but refused or was slow: no second one
    # Past here the hook does the work itself: the settings, the intake and its spawns.
    from wikimem import config
    from wikimem.intake.accept import accept
    from wikimem.intake.background import spawn, spawn_listener, spawn_pass

    places = config.places(workspace)
    if session_end and not (args.wait or args.handoff):
        # SessionEnd gives hooks ~1.5 s: reading the transcript and redacting happen in a
        # detached process that gets the payload through a pipe.
        spawn(
            ["hook", "--handoff", "--quiet", "-C", workspace, "-"], str(places.background_log), data
        )
        confirm(None, False, None, args)
        return status
    settings = config.load(places)
    log_mark = (0, 0)
    if args.wait or args.handoff:
        from wikimem.intake.passlog import mark

        log_mark = mark(places.pass_log)
    accepted = accept(places, config.environ(), data, source, args.github, record, settings)
    tell(None, accepted.redactions, accepted.warning, args.quiet)
    if not accepted.job:
        if not (args.wait or args.handoff):
            confirm(None, False, accepted.skipped or "not a run to remember", args)
        return status
    if args.wait or args.handoff:  # a handed-off hook is already in the background
        index(places, settings, accepted.job, args.quiet, accepted.duplicate, log_mark)
        return status
    spawn_pass(workspace, str(places.background_log))
    linger = settings.hook.linger
    if linger and not answered:  # the next hooks go through it (a second one steps aside)
        spawn_listener(workspace, str(places.background_log), linger)
    confirm(accepted.run_id, accepted.duplicate, None, args)
    return status


def confirm(run_id: str | None, duplicate: bool, skipped: str | None, args: HookArgs) -> None:
    """One line for a person who ran the hook at a terminal. A runner's hook (stderr a pipe
    or a file) stays silent: runners show a hook's stderr as if something went wrong."""
    try:
        person = not args.quiet and sys.stderr is not None and sys.stderr.isatty()
    except (ValueError, OSError):  # stderr closed
        person = False
    if not person:
        return
    if skipped:
        line = f"nothing queued: {skipped}"
    elif run_id is None:
        line = "reading the session in the background, then indexing it"
    elif duplicate:
        line = f"run {run_id} was queued before; nothing new to index"
    else:
        line = f"queued run {run_id}; indexing in the background"
    print(f"wikimem: {line}", file=sys.stderr)


def payload_cwd(source: str | None) -> str | None:
    """The `cwd` of a JSON argument (Codex `notify`'s form), None for anything else."""
    if not (source and source.lstrip().startswith("{") and "cwd" in source):
        return None
    import json  # only for an inline payload that names a cwd

    try:
        payload = json.loads(source)
    except ValueError:
        return None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) and os.path.isdir(cwd) else None


def tell(error: str | None, redactions: Collection[str], warning: str | None, quiet: bool) -> None:
    """What a hook tells the person: an error, the secrets removed, a failing-passes warning."""
    if error:
        print(f"wikimem hook: {error}", file=sys.stderr)
    if not quiet and redactions:
        print(
            f"wikimem: removed {len(redactions)} secret kind(s) before queueing: "
            f"{', '.join(redactions)}",
            file=sys.stderr,
        )
    if warning:
        print(warning, file=sys.stderr)


def is_session_end(data: bytes) -> bool:
    """A SessionEnd payload, Claude Code's or Gemini CLI's (cheap check: the full parse
    happens later)."""
    if b"SessionEnd" not in data:
        return False
    import json  # only for payloads that name SessionEnd: json costs a hook ~5 ms

    try:
        payload = json.loads(data)
    except ValueError:
        return False
    return isinstance(payload, dict) and payload.get("hook_event_name") == "SessionEnd"
