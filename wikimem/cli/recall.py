"""Commands that get memory back out and manage its life: context, search, forget, trash,
restore, purge, undo, verify, export, import, pause, resume."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from wikimem import config
from wikimem.cli.completion import wiki_paths
from wikimem.cli.context import (
    Ctx,
    cli,
    emit_json,
    json_option,
    limit_option,
    pass_ctx,
    warn,
    workspace_option,
)
from wikimem.errors import NotFound, WikimemError
from wikimem.fsio import atomic_write_text
from wikimem.lifecycle.transfer import export_lines, import_lines
from wikimem.lifecycle.trash import forget as do_forget
from wikimem.lifecycle.trash import listing
from wikimem.lifecycle.trash import purge as do_purge
from wikimem.lifecycle.trash import restore as do_restore
from wikimem.lifecycle.undo import undo as do_undo
from wikimem.pause import pause as do_pause
from wikimem.pause import resume as do_resume
from wikimem.providers import load, wiki_only
from wikimem.providers.provider import WIKI, provider_name
from wikimem.recall.context import build_context, render_json
from wikimem.recall.provenance import origins
from wikimem.recall.search import SearchIndex
from wikimem.recall.timeline import time_slice
from wikimem.recall.verify import touched
from wikimem.recall.verify import verify as do_verify
from wikimem.wiki.history import changed_since
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import open_repo


def _require_wiki(ctx: Ctx) -> None:
    """A read command needs a workspace with a wiki: exit 1 with one line otherwise."""
    places = ctx.found
    if not places.wiki.is_dir():
        raise NotFound(f"no wiki in {places.workspace}: run `wikimem init` first")


def _index_file(ctx: Ctx) -> Path:
    return ctx.places.state / "search.sqlite"


@cli.command()
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=4000,
    show_default=True,
    metavar="CHARS",
    help="Never print more than this many characters of memory "
    '(with --format json, the text inside the JSON; "chars" says how many).',
)
@click.option("--query", metavar="TEXT", help="Add the entries most relevant to TEXT.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
    help="Output format.",
)
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@workspace_option
@pass_ctx
def context(ctx: Ctx, budget: int, query: str | None, fmt: str, as_json: bool) -> None:
    """What a runner injects at the start of a run: PROFILE.md's summary of the topics, then
    with --query the most relevant entries, cut on entry boundaries within the budget.

    The same wiki and query always give the same bytes. Prints nothing when memory is off for
    this run (WIKIMEM_MEMORY=off) or paused in this workspace (`wikimem pause`).
    """
    if config.memory_disabled() or ctx.places.paused_flag.exists():
        return
    if _elsewhere(ctx):  # memory.provider: another store owns the memory
        provider = load(ctx.places, ctx.settings)
        text = provider.context(query or "", budget)
        if as_json or fmt == "json":
            text = json.dumps({"text": text, "chars": len(text), "provider": provider.name}) + "\n"
        click.echo(text, nl=False)
        return
    if query and query.strip() and ctx.places.wiki.is_dir():
        query, first = time_slice(ctx.places, ctx.settings, query)
        with SearchIndex(ctx.places.wiki, _index_file(ctx)) as index:
            built = build_context(
                ctx.places.wiki,
                index,
                budget=budget,
                query=query,
                first=first,
                state=ctx.places.state,
            )
    else:
        built = build_context(ctx.places.wiki, None, budget=budget, query=None)
    text = render_json(built, budget) if as_json or fmt == "json" else built.text
    click.echo(text, nl=False)


@cli.command()
@click.argument("query", nargs=-1, required=True)
@limit_option(10, "hits")
@click.option(
    "--why",
    is_flag=True,
    help="Explain each score (which words matched where) and where each entry came from.",
)
@json_option
@workspace_option
@pass_ctx
def search(ctx: Ctx, query: tuple[str, ...], limit: int, why: bool, as_json: bool) -> None:
    """Search titles, summaries and entry bodies. Each hit gives its wiki path, entry, a
    snippet and a citation PATH#ENTRY@COMMIT that `wikimem show` resolves to that version.
    Expired memory is marked [expired], memory due for review [review]. A time expression
    in the query ("april", "last week") puts what changed in that time first."""
    if _elsewhere(ctx):  # memory.provider: another store owns the memory
        if why:
            wiki_only(ctx.settings, "wikimem search --why")
        found = load(ctx.places, ctx.settings).search(" ".join(query), limit)
        if as_json:
            emit_json([{"ref": f.ref, "title": f.title, "snippet": f.snippet} for f in found])
        elif not found:
            warn("wikimem: no memory matches")
        for item in [] if as_json else found:
            click.echo(f"{click.style(item.ref, bold=True)}  {item.title}")
            click.echo(f"    {' '.join(item.snippet.split())}")
        return
    if not ctx.places.wiki.is_dir():
        raise NotFound(f"no wiki in {ctx.places.workspace}: run `wikimem init` first")
    words, first = time_slice(ctx.places, ctx.settings, " ".join(query))
    with SearchIndex(ctx.places.wiki, _index_file(ctx)) as index:
        hits = index.search(words, limit * 3 if first else limit)
    if first:
        hits = sorted(hits, key=lambda h: h.citation(None) not in first)[:limit]
    head = open_repo(ctx.places, ctx.settings).log(limit=1)
    short = head[0].short if head else None
    came = _origins(ctx, hits) if why else {}
    if as_json:
        emit_json(
            [
                {
                    "path": h.path,
                    "entry": h.entry,
                    "title": h.title,
                    "snippet": h.snippet,
                    "score": h.score,
                    "type": h.type,
                    "expired": h.expired,
                    "due": h.due,
                    "citation": h.citation(short),
                    "why": h.why,
                    **(
                        {"origin": came[h.citation(None)].as_dict()}
                        if h.citation(None) in came
                        else {}
                    ),
                }
                for h in hits
            ]
        )
        return
    if not hits:
        warn("wikimem: no memory matches")
        return
    for hit in hits:
        marks = "".join(
            f" [{m}]" for m, on in (("expired", hit.expired), ("review", hit.due)) if on
        )
        where = f"{hit.path}#{hit.entry}" if hit.entry else hit.path
        click.echo(f"{click.style(where, bold=True)}  {hit.title}{marks}")
        click.echo(f"    {hit.snippet}")
        click.echo(f"    cite: {hit.citation(short)}")
        if why:
            click.echo(f"    why:  score {hit.score:.3f}; {hit.why}")
            if hit.citation(None) in came:
                click.echo(f"    from: {came[hit.citation(None)].line()}")


def _elsewhere(ctx: Ctx) -> bool:
    return provider_name(ctx.settings) != WIKI


def _origins(ctx: Ctx, hits: list[Any]) -> dict[str, Any]:
    """Where each entry hit came from (`--why`)."""
    return origins(ctx.places, ctx.settings, [h.citation(None) for h in hits if h.entry])


@cli.command()
@click.argument("ref", metavar="WIKI_PATH[#ENTRY]", shell_complete=wiki_paths)
@workspace_option
@pass_ctx
def forget(ctx: Ctx, ref: str) -> None:
    """Move a leaf, or one entry, to the trash (.trash/ inside the wiki), out of search,
    context, topics and the profile. One commit; `wikimem restore` brings it back."""
    wiki_only(ctx.settings, "wikimem forget")
    moved = do_forget(ctx.places, ctx.settings, ref)
    count = f"{len(moved.entries)} entr{'y' if len(moved.entries) == 1 else 'ies'}"
    click.echo(
        f"forgot {moved.ref} ({count}) in commit {(moved.commit or '')[:7]}; "
        f"`wikimem restore {moved.ref}` brings it back"
    )


@cli.command("trash")
@json_option
@workspace_option
@pass_ctx
def trash_list(ctx: Ctx, as_json: bool) -> None:
    """List what has been forgotten and can still be restored."""
    wiki_only(ctx.settings, "wikimem trash")
    items = listing(Wiki(ctx.places.wiki))
    if as_json:
        emit_json(
            [{"ref": t.ref, "path": t.path, "entry": t.entry, "title": t.title} for t in items]
        )
        return
    if not items:
        click.echo("the trash is empty")
    for item in items:
        click.echo(f"{item.ref}  {item.title}")


@cli.command()
@click.argument("ref", metavar="WIKI_PATH[#ENTRY]", shell_complete=wiki_paths)
@workspace_option
@pass_ctx
def restore(ctx: Ctx, ref: str) -> None:
    """Bring a forgotten leaf, or one forgotten entry, back from the trash (one commit)."""
    wiki_only(ctx.settings, "wikimem restore")
    moved = do_restore(ctx.places, ctx.settings, ref)
    click.echo(
        f"restored {moved.ref} ({', '.join(moved.entries) or 'page'}) in commit "
        f"{(moved.commit or '')[:7]}"
    )


@cli.command()
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@workspace_option
@pass_ctx
def purge(ctx: Ctx, yes: bool) -> None:
    """Empty the trash for good (one commit). Git history still holds the text: the command
    that would rewrite history is printed, for the owner to run if they must."""
    wiki_only(ctx.settings, "wikimem purge")
    items = listing(Wiki(ctx.places.wiki))
    if not items:
        click.echo("the trash is empty")
        return
    if not yes and not click.confirm(
        f"Delete {len(items)} forgotten item(s) from the trash for good?"
    ):
        warn("wikimem: nothing purged")  # an answer, not an interruption: exit 1, not 130
        raise click.exceptions.Exit(1)
    done = do_purge(ctx.places, ctx.settings)
    click.echo(
        f"purged {len(done.items)} item(s) from the trash in commit {(done.commit or '')[:7]}"
    )
    click.echo(
        "Git history still holds their text: in the commits that forgot them and in "
        "earlier versions of the pages they came from."
    )
    if done.rewrite:
        click.echo(
            "To remove the trash from history too (this rewrites every commit id; "
            "everyone with a clone must re-clone, and earlier versions of the pages "
            "keep the text unless you also use --replace-text), the owner can run:"
        )
        click.echo(f"  {done.rewrite}")


@cli.command()
@click.argument("commit")
@workspace_option
@pass_ctx
def undo(ctx: Ctx, commit: str) -> None:
    """Undo one commit of the wiki with a new commit, entry by entry; refuses when later
    commits changed the same entries. Topics and the profile are recompiled."""
    wiki_only(ctx.settings, "wikimem undo")
    done = do_undo(ctx.places, ctx.settings, commit)
    if done.commit is None:
        click.echo(f"nothing to undo: the wiki already looks as before {done.target}")
        return
    click.echo(f"undid {done.target} ({done.subject}) in commit {done.commit[:7]}")
    for ref in done.entries:
        click.echo(f"  {ref}")


@cli.command()
@click.option(
    "--since",
    metavar="BASE",
    help="Also list the entries citing a path that `git diff BASE...HEAD` in the project "
    "touched (exit 3 when there are some and nothing is broken): a pull request's review list.",
)
@json_option
@workspace_option
@pass_ctx
def verify(ctx: Ctx, since: str | None, as_json: bool) -> None:
    """Check what memory cites against the workspace: files, `path:line` and `path::test`
    references, test files and ids given to pytest, jest, vitest, go test, cargo, make targets,
    npm/pnpm/yarn/bun scripts (through `uv run`, `poetry run`, `npx`, `VAR=value`). Prints
    `wikipath#entry: message` and exits 1 when memory no longer matches the code. No model:
    usable in CI."""
    wiki_only(ctx.settings, "wikimem verify")
    _require_wiki(ctx)
    wiki = Wiki(ctx.places.wiki)
    findings = do_verify(wiki, ctx.places.workspace)
    changed = (
        touched(wiki, ctx.places.workspace, changed_since(ctx.places.workspace, since), since)
        if since
        else []
    )
    if as_json:
        emit_json(
            [{"ref": f.ref, "message": f.message} for f in findings]
            + [{"ref": f.ref, "message": f.message, "touched": True} for f in changed]
        )
    else:
        for finding in findings + changed:
            click.echo(finding.line())
    if findings:
        raise click.exceptions.Exit(1)
    if changed:
        raise click.exceptions.Exit(3)


@cli.command("export")
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    metavar="FILE",
    help="Write to FILE (in an existing folder) instead of stdout.",
)
@workspace_option
@pass_ctx
def export_(ctx: Ctx, output: str | None) -> None:
    """Write the wiki as JSON lines, one entry a line (schema, path, entry, title, type, body,
    provenance), for `wikimem import`."""
    wiki_only(ctx.settings, "wikimem export")
    _require_wiki(ctx)
    if output:
        _check_output(output)
    lines = [
        json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n"
        for item in export_lines(ctx.places, ctx.settings)
    ]
    if output:
        try:
            atomic_write_text(Path(output), "".join(lines))
        except OSError as exc:
            raise WikimemError(f"cannot write {output}: {exc.strerror or exc}") from exc
        warn(f"wikimem: exported {len(lines)} entries to {output}")
        return
    click.echo("".join(lines), nl=False)


def _check_output(output: str) -> None:
    """Refuse, before any work, an output that is a folder or lies in no folder (a typo in a
    folder name must not make folders)."""
    target = Path(output)
    if target.is_dir():
        raise WikimemError(f"cannot write {output}: it is a folder; name a file in it")
    folder = target.absolute().parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise WikimemError(f"cannot write {output}: the folder {folder} {what}")


@cli.command("import")
@click.argument("source", metavar="FILE|-")
@json_option
@workspace_option
@pass_ctx
def import_(ctx: Ctx, source: str, as_json: bool) -> None:
    """Merge JSON lines from `wikimem export` into the wiki (one commit): new entries are
    added, changed ones updated, identical ones skipped; text is redacted on the way in."""
    wiki_only(ctx.settings, "wikimem import")
    if source == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise WikimemError(f"cannot read {source}: {exc}") from exc
    done = import_lines(
        ctx.places, ctx.settings, text.splitlines(), "stdin" if source == "-" else source
    )
    if as_json:
        emit_json(
            {
                "added": done.added,
                "updated": done.updated,
                "unchanged": done.unchanged,
                "redacted": done.redacted,
                "rejected": done.rejected,
                "commit": done.commit,
            }
        )
        return
    click.echo(
        f"added {done.added}, updated {done.updated}, unchanged {done.unchanged}, "
        f"rejected {len(done.rejected)}, secrets redacted {done.redacted}"
        + (f"; commit {done.commit[:7]}" if done.commit else "")
    )
    for line in done.rejected:
        warn(f"wikimem: rejected {line}")


@cli.command()
@workspace_option
@pass_ctx
def pause(ctx: Ctx) -> None:
    """Pause memory here: hooks and `wikimem enqueue` queue nothing and `wikimem context`
    prints nothing, until `wikimem resume`. Settings are left alone."""
    changed = do_pause(ctx.found)  # never a `.clarvis/` made in a loose folder
    click.echo("memory paused" if changed else "memory was already paused")


@cli.command()
@workspace_option
@pass_ctx
def resume(ctx: Ctx) -> None:
    """Resume memory after `wikimem pause`."""
    changed = do_resume(ctx.places)
    click.echo("memory resumed" if changed else "memory was not paused")
