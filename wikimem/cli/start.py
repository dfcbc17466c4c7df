"""`wikimem start`: what a runner's SessionStart hook runs. It prints the memory's bounded
context on stdout, which Claude Code and Codex add to the agent's context.

Like `wikimem hook` it fails open: whatever goes wrong, it exits 0, prints nothing on stdout
and one line on stderr (which runners keep out of the agent's context), so a broken memory
never shows the agent an error. Nothing is printed when memory is off or paused, or when the
workspace has no wiki yet.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from wikimem import config
from wikimem.cli.context import Ctx, cli, pass_ctx, workspace_option

# Claude Code cuts hook output near 10,000 characters; Codex moves output past 2,500 tokens to
# a file. The budget is held under both, whatever the settings say.
RUNNER_CAPS = {"claude": 9500, "codex": 7500}


@cli.command()
@click.option(
    "--runner",
    type=click.Choice(sorted(RUNNER_CAPS)),
    help="The runner whose hook calls this: its output cap bounds the budget.",
)
@click.option(
    "--source",
    metavar="SOURCE",
    help="How the session started (startup, resume, clear, compact); default: the payload's "
    "`source`. A resumed session gets hook.resume_budget, any other hook.start_budget.",
)
@click.option("--budget", type=click.IntRange(min=0), metavar="CHARS", help="Override the budget.")
@click.option("--query", metavar="TEXT", help="Add the entries relevant to TEXT to the hints.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the context and what was left out as JSON."
)
@workspace_option
@pass_ctx
def start(
    ctx: Ctx,
    runner: str | None,
    source: str | None,
    budget: int | None,
    query: str | None,
    as_json: bool,
) -> None:
    """Print the context a session starts with (a runner's SessionStart hook): PROFILE.md's
    summary, then the entries the branch, the newest run's task or --query point to, leaving
    out any whose citations `wikimem verify` finds broken. Reads the hook's JSON on stdin."""
    try:
        text = _context(ctx, _payload(), runner, source, budget, query, as_json)
    except Exception as exc:  # fail open: the agent must never see an error from memory
        click.echo(f"wikimem start: {exc}", err=True)
        return
    click.echo(text, nl=False)


def _context(
    ctx: Ctx,
    payload: dict[str, Any],
    runner: str | None,
    source: str | None,
    budget: int | None,
    query: str | None,
    as_json: bool,
) -> str:
    from wikimem.recall.start import budget_for, hints, start_context

    places = ctx.places
    if config.memory_disabled() or places.paused_flag.exists() or not places.wiki.is_dir():
        return ""
    hook = ctx.settings.hook
    if budget is None:
        chosen = source or payload.get("source")
        budget = budget_for(chosen, hook.start_budget, hook.resume_budget)
    if runner:
        budget = min(budget, RUNNER_CAPS[runner])
    if budget <= 0:
        return ""
    words = " ".join(p for p in (query or "", hints(payload, places.workspace, places.queue)) if p)
    built = start_context(
        places.wiki, places.workspace, places.state / "search.sqlite", words, budget
    )
    if not as_json:
        return built.text
    data = {
        "text": built.text,
        "chars": len(built.text),
        "budget": budget,
        "query": built.query,
        "entries": [e.source for e in built.entries],
        "stale": list(built.stale),
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _payload() -> dict[str, Any]:
    """The hook's JSON on stdin; nothing when a person runs the command in a terminal."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return {}
    try:
        value = json.loads(stream.read() or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
