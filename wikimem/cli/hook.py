"""`wikimem hook`: what agent runners call when a run ends. It fails open and returns fast.

It never imports click, openai or git: it parses its few flags by hand and hands them to
intake/hook.py, which decides what happens to the run (the warm listener, the SessionEnd
hand-off, the run accepted in-process, a pass started or waited for). Whatever happens it exits
0 (except --from-command, which exits with the command's status), saying on stderr what went
wrong: memory must never break the agent that calls it.
"""

from __future__ import annotations

import sys

from wikimem.intake.hook import HookArgs, run

TYPE_CHECKING = False  # the hook's fast path does not import typing or collections (~5 ms)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from wikimem.config import Places, Settings
    from wikimem.intake.passlog import Mark

USAGE = (
    "usage: wikimem hook [FILE|-|JSON] [--wait] [--github] [-C DIR] [--from-command -- CMD ARGS...]"
)


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


def fast_hook(args: Sequence[str]) -> int:
    """`wikimem hook ARGS` as main() calls it, before click is imported."""
    try:
        parsed = parse_args(args)
    except ValueError as exc:
        print(f"wikimem hook: {exc}\n{USAGE}", file=sys.stderr)
        return 0
    return hook(parsed)


def hook(parsed: HookArgs) -> int:
    """Run the hook, failing open: the exit status, whatever goes wrong."""
    try:
        return run(parsed, _index_in_foreground)
    except KeyboardInterrupt:
        print("wikimem hook: interrupted", file=sys.stderr)
    except Exception as exc:  # fail open: say what went wrong, never break the agent
        print(f"wikimem hook: {exc}", file=sys.stderr)
    return 0


def _index_in_foreground(
    places: Places, settings: Settings, job_id: str, quiet: bool, sent_before: bool, log_mark: Mark
) -> None:
    # only --wait and a handed-off hook index here: the pass imports openai and git
    from wikimem.foreground import index_until_done

    index_until_done(places, settings, job_id, _stderr, quiet, sent_before, log_mark)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)
