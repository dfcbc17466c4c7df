"""Commands on the wiki itself: init, show, lint, log."""

from __future__ import annotations

import sys

import click

from wikimem.cli.completion import wiki_paths
from wikimem.cli.context import (
    Ctx,
    cli,
    echo_paged,
    emit_json,
    json_option,
    limit_option,
    pass_ctx,
    workspace_option,
)
from wikimem.errors import NotFound, UsageError
from wikimem.wiki.lookup import Shown, resolve
from wikimem.wiki.pages import Wiki

# The indexer, the providers and git are imported inside the commands that need them: `show`
# is the command a person runs most, and should start as fast as click itself.


@cli.command()
@workspace_option
@pass_ctx
def init(ctx: Ctx) -> None:
    """Create the wiki (.clarvis/memory/ with PROFILE.md, its git repository) and a commented
    sample workspace policy. Running it again changes nothing."""
    from wikimem.wiki.workspace import init as do_init

    made = do_init(ctx.places, ctx.settings)
    if not made:
        click.echo(f"wikimem: already set up in {ctx.places.wiki}")
    for item in made:
        click.echo(f"created {item}")


def _read_at(ctx: Ctx):  # type: ignore[no-untyped-def]
    def read(rev: str, file: str) -> str:
        from wikimem.wiki.workspace import open_repo

        return open_repo(ctx.places, ctx.settings).show(rev, file)

    return read


def _pretty(text: str) -> str:
    """Light terminal styling: headings bold, frontmatter dimmed."""
    out = []
    in_front = text.startswith("---")
    for number, line in enumerate(text.splitlines()):
        if in_front:
            out.append(click.style(line, dim=True))
            if number and line.strip() == "---":
                in_front = False
        elif line.startswith("#"):
            out.append(click.style(line, bold=True))
        elif line.strip().startswith("<!-- wikimem"):
            out.append(click.style(line, dim=True))
        else:
            out.append(line)
    return "\n".join(out)


def _show_why(ctx: Ctx, shown: Shown, as_json: bool) -> None:
    from wikimem.recall.provenance import origins
    from wikimem.recall.uses import counts

    if shown.kind not in ("leaf", "entry"):
        raise UsageError("--why tells where entries came from: name a leaf or an entry")
    leaf = shown.ref.split("#", 1)[0].split("@", 1)[0]
    ids = [shown.entry.id] if shown.entry else [e.id for e in shown.page.entries]
    found = origins(ctx.places, ctx.settings, [f"{leaf}#{i}" for i in ids]) if ids else {}
    places = ctx.places
    use = {u.ref: u for u in counts(places.state, places.queue, places.state / "search.sqlite")}
    if as_json:
        rows = []
        for ref, item in found.items():
            got = use.get(ref)
            row = {**item.as_dict(), "delivered": got.delivered if got else 0}
            rows.append({**row, "used": got.used if got else 0})
        emit_json(rows)
        return
    click.echo(shown.text.encode("utf-8", "surrogateescape").decode("utf-8", "replace").rstrip())
    click.echo("")
    for ref, item in found.items():
        got = use.get(ref)
        delivered = (
            f"; delivered to agents {got.delivered} time(s), used after in {got.used}"
            if got
            else ""
        )
        click.echo(f"{ref}: {item.line()}{delivered}")


def _show_elsewhere(ctx: Ctx, ref: str | None, why: bool, as_json: bool) -> None:
    """`show` when another provider owns the memory: what it reads for REF, or its context."""
    from wikimem.providers import ProviderError, load, wiki_only
    from wikimem.recall.context import DEFAULT_BUDGET

    if why:
        wiki_only(ctx.settings, "wikimem show --why")
    provider = load(ctx.places, ctx.settings)
    if ref and ref.strip():
        text = provider.read(ref)
    elif provider.capabilities().context:
        text = provider.context("", DEFAULT_BUDGET)
    else:
        raise ProviderError(
            f"memory provider {provider.name!r} gives no overview: name what to show "
            "(`wikimem search` gives refs)"
        )
    if as_json:
        emit_json({"ref": ref or "", "provider": provider.name, "text": text})
        return
    click.echo(text.removesuffix("\n"))


@cli.command()
@click.argument(
    "wiki_path", required=False, metavar="[WIKI_PATH[#ENTRY][@COMMIT]]", shell_complete=wiki_paths
)
@click.option("--raw", is_flag=True, help="Print the file (or entry) exactly as stored.")
@click.option(
    "--why", is_flag=True, help="Also say where each entry came from (source, runs, strength)."
)
@json_option
@workspace_option
@pass_ctx
def show(ctx: Ctx, wiki_path: str | None, raw: bool, why: bool, as_json: bool) -> None:
    """Show PROFILE.md, a topic's TOPIC.md, a leaf's MEMORY.md, or one entry.

    Examples: `wikimem show`, `wikimem show build`, `wikimem show build/bun`,
    `wikimem show build/bun#lockfile-drift`, `wikimem show build/bun#lockfile-drift@abc1234`.
    When memory.provider names another store, REF is what its search gives, and with no
    REF the command prints that provider's overview (its context).
    """
    from wikimem.config import WIKI_PROVIDER, provider_name

    if provider_name(ctx.settings) != WIKI_PROVIDER:
        _show_elsewhere(ctx, wiki_path, why, as_json)
        return
    wiki = Wiki(ctx.places.wiki)
    if not wiki.root.is_dir():
        raise NotFound(f"no wiki in {ctx.places.workspace}: run `wikimem init` first")
    shown = resolve(wiki, wiki_path, _read_at(ctx))
    if why:
        _show_why(ctx, shown, as_json)
        return
    if as_json:
        page = shown.page
        emit_json(
            {
                "ref": shown.ref,
                "file": shown.file,
                "kind": shown.kind,
                "rev": shown.rev,
                "meta": dict(page.meta),
                "text": shown.text,
                "entries": [
                    {"id": e.id, "title": e.title, "meta": dict(e.meta), "body": e.body}
                    for e in ((shown.entry,) if shown.entry else page.entries)
                ],
            }
        )
        return
    if raw:
        # --raw is the file as is, byte for byte: bytes that are not UTF-8 go out as they came in
        sys.stdout.flush()
        sys.stdout.buffer.write(shown.text.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
        return
    text = shown.text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    echo_paged((text.removesuffix("\n") if not sys.stdout.isatty() else _pretty(text)).split("\n"))


@cli.command()
@click.option("--fix", is_flag=True, help="Recompile stale generated blocks, then lint.")
@click.option(
    "--strict",
    is_flag=True,
    help="Fail on warnings too (memory past its expiry or review date), not only on errors.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Machine-readable output: rule, file, line, message."
)
@workspace_option
@pass_ctx
def lint(ctx: Ctx, fix: bool, strict: bool, as_json: bool) -> None:
    """Check the wiki: broken relative links, pages without frontmatter, leaves without a
    summary, stale generated blocks, names that are not slugs, memory due for review or expired,
    a conflict `wikimem sync` left for a person to settle (both versions kept, marked), pages it
    cannot read (symlinks among them), which it reports and goes on.

    Prints `file:line: message [rule]` and exits 1 when an error is found. Rules that depend
    on the date (expired, review-due) are warnings: they exit 0 unless --strict, so a commit
    that passes today does not fail tomorrow. A project with no wiki yet has nothing to lint
    (exit 0), so a teammate without one can run the pre-commit hook. 2 for a usage error.
    """
    from wikimem.indexing.indexer import recompile
    from wikimem.providers import wiki_only
    from wikimem.wiki.lint import lint as run_lint

    wiki_only(ctx.settings, "wikimem lint")
    wiki = Wiki(ctx.places.wiki)
    if not wiki.root.exists() and not fix:
        click.echo(f"wikimem: no wiki in {ctx.places.workspace} yet: nothing to lint", err=True)
        if as_json:
            emit_json([])
        return
    if fix:
        recompile(ctx.places, ctx.settings)
    problems = run_lint(wiki, ctx.settings.wiki.profile_max, overrides=ctx.places.templates)
    prefix = ctx.places.wiki.relative_to(ctx.places.workspace).as_posix() + "/"
    if as_json:
        emit_json([problem.as_dict(prefix) for problem in problems])
    if not as_json:  # a long report through the pager on a terminal, as `show` is
        echo_paged([line for problem in problems for line in problem.format(prefix).split("\n")])
    if any(problem.level == "error" or strict for problem in problems):
        raise click.exceptions.Exit(1)


@cli.command()
@click.argument(
    "wiki_path", required=False, metavar="[WIKI_PATH[#ENTRY]]", shell_complete=wiki_paths
)
@limit_option(20, "commits")
@json_option
@workspace_option
@pass_ctx
def log(ctx: Ctx, wiki_path: str | None, limit: int, as_json: bool) -> None:
    """History of the wiki, of one page, or the versions of one entry: date, subject, run."""
    from wikimem.providers import wiki_only
    from wikimem.recall.versions import history_of

    wiki_only(ctx.settings, "wikimem log")
    rows = history_of(ctx.found, ctx.settings, wiki_path, limit)
    if as_json:
        emit_json([row.as_dict() for row in rows])
        return
    if not rows:
        click.echo("no history yet")
    echo_paged([row.line() for row in rows])
