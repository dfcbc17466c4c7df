"""`wikimem review`: the inbox of plans that wait for a person (see indexing/review.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from wikimem.cli.context import (
    Ctx,
    cli,
    echo_paged,
    emit_json,
    json_option,
    pass_ctx,
    workspace_option,
)
from wikimem.errors import UsageError

if TYPE_CHECKING:
    from wikimem.lifecycle.compact import Compaction


@cli.group(invoke_without_command=True)
@json_option
@workspace_option
@click.pass_context
def review(click_ctx: click.Context, as_json: bool) -> None:
    """What waits for a person: list it, `show` a change as a diff, then `approve`, `edit`
    or `drop` it. `review.mode` says what waits: off, risky (the default) or all."""
    from wikimem.indexing import review as inbox

    if click_ctx.invoked_subcommand is not None:
        return
    from wikimem.lifecycle.compact import held_compaction

    ctx = click_ctx.ensure_object(Ctx)
    items = inbox.waiting(ctx.found)
    compaction = held_compaction(ctx.found)
    if as_json:
        extra = [{"compaction": compaction}] if compaction else []
        emit_json([item.as_dict() for item in items] + extra)
        return
    if not items and not compaction:
        click.echo(f"nothing waits for review (review.mode = {ctx.settings.review.mode})")
    lines = [item.line() for item in items]
    if compaction:
        lines.append(
            f"compaction  {compaction['edits']} edit(s)  {compaction.get('reason', '')}  "
            "(see it: wikimem review show compaction; apply it: wikimem review approve compaction)"
        )
    echo_paged(lines)


@review.command("show")
@click.argument("job")
@json_option
@workspace_option
@pass_ctx
def review_show(ctx: Ctx, job: str, as_json: bool) -> None:
    """Show one waiting change (job id or its prefix, or `compaction` for a scheduled
    compaction that waits) as a diff, with its run, why it waits, and each edit's reason and
    sources."""
    from wikimem.indexing import review as inbox
    from wikimem.wiki.pages import Wiki

    if job == COMPACTION:
        reason, done = _waiting_compaction(ctx)
        if as_json:
            emit_json({"compaction": reason, "diff": done.diff})
            return
        lines = [f"waits   {reason}", ""]
        lines += [f"{e.action:<7} {e.leaf}#{e.entry}  {e.reason}" for e in done.plan.edits]
        echo_paged([*lines, "", *done.diff.rstrip("\n").split("\n")])
        return
    item = inbox.find(ctx.found, job)
    if as_json:
        emit_json(item.as_dict())
        return
    echo_paged(inbox.diff(Wiki(ctx.places.wiki), item).rstrip("\n").split("\n"))


@review.command("approve")
@click.argument("job")
@workspace_option
@pass_ctx
def review_approve(ctx: Ctx, job: str) -> None:
    """Apply a waiting change (or `compaction`): one commit, naming the run it came from."""
    from wikimem.indexing import review as inbox
    from wikimem.indexing.indexer import approve

    if job == COMPACTION:
        from wikimem.lifecycle.compact import compact

        _waiting_compaction(ctx)
        done = compact(ctx.places, ctx.settings, approve=True)
        sha = done.commit
        click.echo(
            f"approved the compaction{f' in commit {sha[:7]}' if sha else ' (nothing changed)'}"
        )
        return
    item = inbox.find(ctx.found, job)
    sha = approve(ctx.places, ctx.settings, item.job.id)
    click.echo(f"approved {item.job.id}{f' in commit {sha[:7]}' if sha else ' (nothing changed)'}")


@review.command("edit")
@click.argument("job")
@workspace_option
@pass_ctx
def review_edit(ctx: Ctx, job: str) -> None:
    """Edit a waiting plan in $EDITOR (JSON); approve it afterwards. It is validated like any
    plan when it is applied."""
    from wikimem.indexing import review as inbox

    item = inbox.find(ctx.found, job)
    text = json.dumps(item.job.held_plan or {"edits": []}, indent=2, ensure_ascii=False)
    edited = click.edit(text + "\n", extension=".json")
    if edited is None or edited.strip() == text.strip():
        click.echo("no change to the plan")
        return
    try:
        plan = json.loads(edited)
    except ValueError as exc:
        raise UsageError(f"the edited plan is not JSON: {exc}") from exc
    inbox.replace_plan(ctx.places, item, plan)
    click.echo(f"plan of {item.job.id} edited; `wikimem review approve {item.job.id}` applies it")


@review.command("drop")
@click.argument("job")
@workspace_option
@pass_ctx
def review_drop(ctx: Ctx, job: str) -> None:
    """Drop a waiting change and remember its lessons, so the same lesson from a later run is
    set aside instead of waiting again."""
    from wikimem.fsio import workspace_lock
    from wikimem.indexing import review as inbox
    from wikimem.intake.queue import Queue

    item = inbox.find(ctx.found, job)
    with workspace_lock(ctx.places.lock, wait=True, timeout=60):
        Queue(ctx.places.queue).drop(item.job.id)
    remembered = inbox.remember_dropped(ctx.places, item.edits)
    click.echo(f"dropped {item.job.id}; {remembered} lesson(s) will not be held again")


COMPACTION = "compaction"  # the name a waiting scheduled compaction goes by in the inbox


def _waiting_compaction(ctx: Ctx) -> tuple[str, Compaction]:
    """Why the scheduled compaction waits, and its plan proposed again as a dry run (what a
    person asking would apply); NotFound if none waits."""
    from wikimem.errors import NotFound
    from wikimem.lifecycle.compact import compact, held_compaction

    held = held_compaction(ctx.found)
    if held is None:
        raise NotFound("no compaction waits for review (see `wikimem review`)")
    return str(held.get("reason", "")), compact(ctx.places, ctx.settings, dry_run=True)
