"""`wikimem start`: what a runner's SessionStart hook runs. It prints the memory's bounded
context on stdout, which Claude Code and Codex add to the agent's context; for Gemini CLI, which
reads a hook's stdout as JSON only, it is `hookSpecificOutput.additionalContext`.

Like `wikimem hook` it takes a fast path without click (`cli.main` sends it here): a session
waits for it. It fails open: whatever goes wrong, it exits 0, prints nothing on stdout and one
line on stderr (which runners keep out of the agent's context), so a broken memory never shows
the agent an error. Nothing is printed when memory is off or paused, or when the workspace has
no wiki yet. When `memory.provider` names another store, the context is that provider's
(loaded only then: the wiki's start stays as quick as it was). The click command in
`cli/integrations.py` gives it its help and documentation.
"""

from __future__ import annotations

import json
import sys

TYPE_CHECKING = False  # the hook's fast path does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from wikimem.config import Places, Settings

USAGE = (
    "usage: wikimem start [--runner claude|codex|gemini|cursor|opencode] [--source SOURCE] "
    "[--budget CHARS] [--query TEXT] [--json] [-C DIR]"
)
# Claude Code cuts hook output near 10,000 characters; Codex moves output past 2,500 tokens to
# a file. The budget is held under both, whatever the settings say. Gemini CLI states no cap:
# Claude Code's is kept.
RUNNER_CAPS = {"claude": 9500, "codex": 7500, "gemini": 9500, "cursor": 9500, "opencode": 9500}
OPTIONS = {"--runner", "--source", "--budget", "--query", "-C", "--workspace"}
REFRESH = "--refresh-standing"  # what a start spawns, detached, when the standing is behind


def fast_start(args: Sequence[str]) -> int:
    """Parse the flags by hand, print the context; always 0."""
    try:
        if list(args[:1]) == [REFRESH]:
            return refresh_standing(args[1:])
        options, as_json = parse_args(args)
        text = context(options, read_payload(), as_json)
        if text and not as_json and options.get("--runner") == "gemini":
            text = gemini_output(text)
        elif text and not as_json and options.get("--runner") == "cursor":
            text = json.dumps({"additional_context": text}, ensure_ascii=False) + "\n"
    except Exception as exc:  # fail open: the agent must never see an error from memory
        print(f"wikimem start: {exc}", file=sys.stderr)
        return 0
    sys.stdout.write(text)
    return 0


def gemini_output(text: str) -> str:
    """The context as the JSON Gemini CLI's SessionStart hook takes (plain text on stdout is
    not allowed there)."""
    wrapped = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return json.dumps(wrapped, ensure_ascii=False) + "\n"


def parse_args(args: Sequence[str]) -> tuple[dict[str, str], bool]:
    options: dict[str, str] = {}
    as_json = False
    items = list(args)
    while items:
        arg = items.pop(0)
        name, _, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg == "--json":
            as_json = True
        elif name in OPTIONS:
            if not value:
                if not items:
                    raise ValueError(f"{name} needs a value\n{USAGE}")
                value = items.pop(0)
            options["--workspace" if name == "-C" else name] = value
        else:
            raise ValueError(f"unexpected argument {arg!r}\n{USAGE}")
    if options.get("--runner", "claude") not in RUNNER_CAPS:
        raise ValueError(f"--runner must be one of {', '.join(sorted(RUNNER_CAPS))}")
    return options, as_json


def context(options: dict[str, str], payload: dict[str, Any], as_json: bool) -> str:
    from wikimem import config

    if config.memory_disabled():
        return ""
    places = config.places(options.get("--workspace"))
    if places.paused_flag.exists():
        return ""
    if payload.get("source") == "resume" and payload.get("transcript_path"):
        record_left_turns(places, payload)
    if payload.get("hook_event_name") in ("SessionStart", "sessionStart"):  # Cursor's camelCase
        pick_up_crashed(places, payload)
    settings = config.load(places)
    # providers.provider_name, spelled out: importing the providers package costs a start
    provider = (settings.memory.provider or "wiki").strip().lower()
    if provider == "wiki" and not places.wiki.is_dir():
        return ""
    from wikimem.recall.start import budget_for, hints, start_context

    if "--budget" in options:
        budget = max(0, int(options["--budget"]))
    else:
        hook = settings.hook
        source = options.get("--source") or payload.get("source")
        budget = budget_for(source, hook.start_budget, hook.resume_budget)
    if options.get("--runner"):
        budget = min(budget, RUNNER_CAPS[options["--runner"]])
    if budget <= 0:
        return ""
    hinted = hints(payload, places.workspace, places.queue)
    words = " ".join(p for p in (options.get("--query", ""), hinted) if p)
    if provider != "wiki":
        return elsewhere(places, settings, words, budget, as_json)
    built = start_context(
        places.wiki, places.workspace, places.state / "search.sqlite", words, budget, places.state
    )
    refs = [e.source for e in built.entries if e.entry]
    if refs and isinstance(payload.get("session_id"), str) and payload["session_id"]:
        # logged as the in-loop hooks log theirs: a prompt's delivery then skips what the
        # start gave, and compaction counts what the start teaches as delivered
        from wikimem.recall import injections

        event = str(payload.get("hook_event_name") or "SessionStart")
        injections.record(
            places.state, payload["session_id"], event, options.get("--runner", ""), refs
        )
    if built.refresh:
        spawn_refresh(places)
    if not as_json:
        return built.text
    data = {
        "text": built.text,
        "chars": len(built.text),
        "budget": budget,
        "query": built.query,
        "entries": [e.source for e in built.entries],
        "marks": {e.source: e.mark for e in built.entries if e.mark},
        "stale": list(built.stale),
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def spawn_refresh(places: Places) -> None:
    """Bring the standing up to date for the next start, detached: it reads the wiki's
    history, which this start cannot wait for. One at a time per workspace."""
    from wikimem.intake import background
    from wikimem.recall.standing import LOCK

    args = [REFRESH, "-C", str(places.workspace)]
    background._spawn_one(["start", *args], str(places.background_log), LOCK, None)


def refresh_standing(args: Sequence[str]) -> int:
    """`wikimem start --refresh-standing [-C DIR]`: what `spawn_refresh` runs."""
    from wikimem import config
    from wikimem.errors import LockBusy
    from wikimem.fsio import workspace_lock
    from wikimem.recall import standing

    workspace = args[1] if len(args) == 2 and args[0] in ("-C", "--workspace") else None
    places = config.places(workspace)
    settings = config.load(places)
    try:
        with workspace_lock(places.state / standing.LOCK, busy="a refresh is running"):
            standing.refresh(places, settings)
    except LockBusy:
        pass  # the one running brings it up to date
    return 0


def record_left_turns(places: Places, payload: dict[str, Any]) -> None:
    """A resumed session may hold turns no hook recorded (it crashed, or its last turn was
    interrupted and no SessionEnd came): hand the payload to a detached `wikimem hook`, which
    records them through the session's cursor. The start does not wait for it."""
    from wikimem.intake.background import spawn

    args = ["hook", "--handoff", "--quiet", "-C", str(places.workspace), "-"]
    data = json.dumps(payload).encode("utf-8", "surrogateescape")
    spawn(args, str(places.background_log), data)


def pick_up_crashed(places: Places, payload: dict[str, Any]) -> None:
    """Other sessions of this workspace that stopped with turns no hook recorded (crashed: no
    SessionEnd came) and have been still since: each goes to a detached `wikimem hook` as if
    resumed, which records those turns through its cursor (wikimem.runners.cursor says when a
    session counts as stopped). A few stats at most here; the reading is the hook's. The
    session starting gets its cursor now, so that it is found the same way should it crash in
    its first turn."""
    from wikimem.runners import session_of
    from wikimem.runners.cursor import begin, left_behind

    current = session_of(payload)
    for left in left_behind(places.state, current):
        record_left_turns(places, left)
    if places.found:  # a folder of no project gets no state, as the hook records nothing there
        begin(places.state, current, payload)  # its own first turn, should it crash


def elsewhere(places: Places, settings: Settings, words: str, budget: int, as_json: bool) -> str:
    """The start's context from the memory provider that owns the memory (not the wiki),
    within the same budget; its failure fails open like any other."""
    from wikimem.providers import load

    provider = load(places, settings)
    text = provider.context(words, budget)[:budget]
    if not as_json:
        return text
    data = {"text": text, "chars": len(text), "budget": budget, "query": words}
    data["provider"] = provider.name
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def read_payload() -> dict[str, Any]:
    """The hook's JSON on stdin; nothing when a person runs the command in a terminal."""
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return {}
        value = json.loads(stream.read() or "{}")
    except (OSError, ValueError):  # no stdin to read, or not JSON: a start without hints
        return {}
    return value if isinstance(value, dict) else {}
