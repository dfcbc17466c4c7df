"""Commands about memory over time: timeline."""

from __future__ import annotations

import click

from wikimem.cli.app import Ctx, cli, emit_json, pass_ctx, warn, workspace_option
from wikimem.errors import NotFound


@cli.command()
@click.argument("query", nargs=-1)
@click.option(
    "-n",
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="How many events.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@workspace_option
@pass_ctx
def timeline(ctx: Ctx, query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Dated history of the memory, newest first: which run changed which entries, when, and
    what episodic entries say happened. QUERY may hold a time expression ("last week",
    "april", "2026-04", "3 months ago", "2026-04-03", "since 2026-04-01",
    "2026-04-01..2026-04-15") and words every event shown must contain."""
    from wikimem.recall.timeline import timeline as build

    if not ctx.places.wiki.is_dir():
        raise NotFound(f"no wiki in {ctx.places.workspace}: run `wikimem init` first")
    found = build(ctx.places, ctx.settings, " ".join(query), limit)
    if as_json:
        emit_json(
            {
                "window": None
                if found.window is None
                else {
                    "start": found.window.start.isoformat(),
                    "end": found.window.end.isoformat(),
                    "said": found.window.said,
                },
                "words": list(found.words),
                "events": [event.as_dict() for event in found.events],
            }
        )
        return
    if found.window is not None:
        click.echo(f"{found.window.said}: {found.window.label()}")
    if not found.events:
        warn("wikimem: nothing in the memory's history matches")
        return
    for event in found.events:
        runs = f"  run {', '.join(event.runs)}" if event.runs else ""
        commit = f"  {event.commit}" if event.commit else ""
        click.echo(f"{event.date[:10]}{commit}  {event.subject}{runs}")
        for change in event.changes:
            click.echo(f"    {change.action:<8} {change.ref}  {change.title}")
            if change.text:
                click.echo(f"             {change.text}")
