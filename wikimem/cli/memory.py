"""Commands about memory over time: timeline, compact."""

from __future__ import annotations

import click

from wikimem.cli.context import (
    Ctx,
    cli,
    echo_paged,
    emit_json,
    json_option,
    limit_option,
    pass_ctx,
    warn,
    workspace_option,
)
from wikimem.errors import NotFound
from wikimem.lifecycle.compact import compact as run
from wikimem.providers import wiki_only
from wikimem.recall.timeline import timeline as build


@cli.command()
@click.argument("query", nargs=-1)
@limit_option(20, "events")
@json_option
@workspace_option
@pass_ctx
def timeline(ctx: Ctx, query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Dated history of the memory, newest first: which run changed which entries, when, and
    what episodic entries say happened. QUERY may hold a time expression ("last week",
    "april", "2026-04", "3 months ago", "2026-04-03", "since 2026-04-01",
    "2026-04-01..2026-04-15") and words every event shown must contain."""
    wiki_only(ctx.settings, "wikimem timeline")
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
    lines = []
    for event in found.events:
        runs = f"  run {', '.join(event.runs)}" if event.runs else ""
        commit = f"  {event.commit}" if event.commit else ""
        lines.append(f"{event.date[:10]}{commit}  {event.subject}{runs}")
        for change in event.changes:
            lines.append(f"    {change.action:<8} {change.ref}  {change.title}")
            if change.text:
                lines.append(f"             {change.text}")
    echo_paged(lines)


@cli.command()
@click.option("--topic", metavar="TOPIC", help="Compact one topic instead of the whole wiki.")
@click.option("--dry-run", is_flag=True, help="Show the plan as a diff; change nothing.")
@click.option(
    "--approve",
    is_flag=True,
    help="Apply a plan that would be held for review (mass removal, a person's entries).",
)
@click.option("--no-model", is_flag=True, help="Use the rules only, even with a model set.")
@json_option
@workspace_option
@pass_ctx
def compact(
    ctx: Ctx, topic: str | None, dry_run: bool, approve: bool, no_model: bool, as_json: bool
) -> None:
    """Consolidate the memory in one commit: retire expired entries, exact or near
    duplicates, and entries no agent was given or used for memory.unused_days (rules), and
    with a model merge overlapping entries and update contradicted
    ones (one model call per topic). Retired entries go to the trash (`wikimem restore`).
    A plan that removes a large share, or changes entries a person wrote, is held: it is
    shown and applied only with --approve."""
    wiki_only(ctx.settings, "wikimem compact")
    if not ctx.places.wiki.is_dir():
        raise NotFound(f"no wiki in {ctx.places.workspace}: run `wikimem init` first")
    done = run(
        ctx.places,
        ctx.settings,
        topic=topic,
        use_model=not no_model,
        dry_run=dry_run,
        approve=approve,
    )
    if as_json:
        emit_json(
            {
                "retired": list(done.retired),
                "updated": list(done.updated),
                "reasons": {f"{e.leaf}#{e.entry}": e.reason for e in done.plan.edits},
                "held": done.held,
                "commit": done.commit,
                "model_calls": done.model_calls,
                "notes": list(done.notes),
                "waiting": dict(done.waiting),
                "waiting_held": done.waiting_held,
                "diff": done.diff,
            }
        )
        return
    if dry_run:
        click.echo(done.diff, nl=False)
    for edit in done.plan.edits:
        click.echo(f"{edit.action:<7} {edit.leaf}#{edit.entry}  {edit.reason}")
    for ref, reason in done.waiting:
        click.echo(f"held    {ref}  {reason}")
    for note in done.notes:
        warn(f"wikimem: {note}")
    if done.waiting:
        warn(
            f"wikimem: {len(done.waiting)} unused entries wait for review ({done.waiting_held}); "
            "`wikimem compact --approve` retires them too"
        )
    if not done.plan.edits and not done.waiting:
        click.echo("nothing to compact")
    elif done.commit:
        click.echo(
            f"compacted in commit {done.commit[:7]}: {len(done.retired)} retired to the trash, "
            f"{len(done.updated)} updated"
        )
    elif done.waiting and not dry_run:
        raise click.exceptions.Exit(1)  # nothing changed: what there was waits for a person
    elif done.held and not dry_run:
        warn(f"wikimem: compaction held for review ({done.held}); nothing changed")
        warn("wikimem: read it with `wikimem compact --dry-run`, apply it with --approve")
        raise click.exceptions.Exit(1)
    elif dry_run:
        held = f"; it would be held for review ({done.held})" if done.held else ""
        click.echo(f"dry run: nothing changed{held}")
