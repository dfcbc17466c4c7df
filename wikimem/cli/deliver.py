"""`wikimem deliver`: what a runner's prompt (UserPromptSubmit, BeforeAgent) and failed-command
hooks run. It reads
the hook's JSON on stdin and prints, as `hookSpecificOutput.additionalContext`, the entries
the prompt or the failure points to (`recall/delivery.py`), or nothing.

It runs inside the agent's loop, so like `wikimem start` it takes a fast path without click,
openai or git (`cli.main` sends it here), and fails open: whatever goes wrong it exits 0,
prints nothing on stdout and one line on stderr. Nothing is printed when memory is off or
paused, when another provider owns the memory, or when the workspace has no wiki.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

USAGE = "usage: wikimem deliver [--runner claude|codex|gemini] [--budget CHARS] [-C DIR]"
RUNNERS = frozenset({"claude", "codex", "gemini"})


def parse_args(args: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    items = list(args)
    while items:
        arg = items.pop(0)
        name, _, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name not in ("--runner", "--budget", "-C", "--workspace"):
            raise ValueError(f"unexpected argument {arg!r}\n{USAGE}")
        if not value:
            if not items:
                raise ValueError(f"{name} needs a value\n{USAGE}")
            value = items.pop(0)
        options["--workspace" if name == "-C" else name] = value
    if options.get("--runner", "claude") not in RUNNERS:
        raise ValueError(f"--runner must be one of {', '.join(sorted(RUNNERS))}")
    return options


def fast_deliver(args: Sequence[str]) -> int:
    """Parse the flags by hand, print the answer; always 0."""
    try:
        text = deliver(parse_args(args))
    except Exception as exc:  # fail open: the agent must never see an error from memory
        print(f"wikimem deliver: {exc}", file=sys.stderr)
        return 0
    sys.stdout.write(text)
    return 0


def deliver(options: dict[str, str]) -> str:
    from wikimem.cli.start import read_payload
    from wikimem.recall.events import read_event

    event = read_event(read_payload())
    if event.kind == "other":
        return ""  # the common case, decided before the settings module is imported (~40 ms)
    from wikimem import config

    if config.memory_disabled():
        return ""
    places = config.places(options.get("--workspace"))
    if places.paused_flag.exists() or not places.wiki.is_dir():
        return ""
    settings = config.load(places)
    if (settings.memory.provider or "wiki").strip().lower() != "wiki":
        return ""
    budget = int(options["--budget"]) if "--budget" in options else settings.recall.budget
    from wikimem.recall.delivery import answer

    if event.kind == "prompt":  # the workspace's state: its branch, the session's recent paths
        from wikimem.recall.events import current_branch, recent_paths

        event.branch = current_branch(places.workspace)
        if event.transcript:
            event.paths = recent_paths(event.transcript, places.workspace)
    runner = options.get("--runner", "claude")
    text, _ = answer(event, places.state / "search.sqlite", places.state, budget, runner)
    return text
