"""Commands that connect wikimem to agent runners and other machines: install, mcp, sync."""

from __future__ import annotations

from pathlib import Path

import click

from wikimem import config
from wikimem.cli.context import Ctx, cli, emit_json, pass_ctx, workspace_option


@cli.group()
def install() -> None:
    """Install the wikimem hook into an agent runner's settings (idempotent)."""


@install.command("claude")
@click.option(
    "--settings",
    "settings_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The settings.json to edit (overrides --project/--user).",
)
@click.option(
    "--project",
    "scope",
    flag_value="project",
    default=True,
    help="The workspace's .claude/settings.json, shared with the project (default).",
)
@click.option(
    "--user", "scope", flag_value="user", help="~/.claude/settings.json, for all your projects."
)
@workspace_option
@pass_ctx
def install_claude(ctx: Ctx, settings_path: Path | None, scope: str) -> None:
    """Run `wikimem hook` when Claude Code stops (Stop and SessionEnd hooks)."""
    from wikimem.runners.install import install_claude as do_install

    if settings_path is None:
        base = ctx.places.workspace if scope == "project" else Path.home()
        settings_path = base / ".claude" / "settings.json"
    settings_path.parent.mkdir(parents=True, exist_ok=True)
    if do_install(settings_path):
        click.echo(f"installed the wikimem hook (Stop, SessionEnd) in {settings_path}")
    else:
        click.echo(f"already installed in {settings_path}")


@install.command("codex")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The config.toml to edit (default: $CODEX_HOME/config.toml, else ~/.codex/config.toml).",
)
@workspace_option
def install_codex(config_path: Path | None) -> None:
    """Run `wikimem hook` after every Codex turn (its `notify` program)."""
    from wikimem.runners.install import install_codex as do_install

    if config_path is None:
        home = config.environ().get("CODEX_HOME")
        folder = Path(home).expanduser() if home else Path.home() / ".codex"
        config_path = folder / "config.toml"
    config_path.parent.mkdir(parents=True, exist_ok=True)
    if do_install(config_path):
        click.echo(f"installed the wikimem hook (notify) in {config_path}")
    else:
        click.echo(f"already installed in {config_path}")


@cli.command()
@click.option(
    "--allow-write",
    is_flag=True,
    help="Also offer memory_remember, which queues a memory like any run "
    "(policy and validation apply). Without it the server is read-only.",
)
@click.option(
    "--agent-id",
    metavar="ID",
    help="Instance id recorded for memories this server queues (default: "
    "WIKIMEM_AGENT_ID, else the client's name and version).",
)
@workspace_option
@pass_ctx
def mcp(ctx: Ctx, allow_write: bool, agent_id: str | None) -> None:
    """Serve this workspace's memory to MCP clients over stdio: memory_search, memory_show,
    memory_context (read-only), and memory_remember with --allow-write."""
    from wikimem.recall.mcp_server import serve

    agent = agent_id or config.environ().get("WIKIMEM_AGENT_ID") or None
    serve(ctx.places, ctx.settings, allow_write=allow_write, agent_id=agent)


@cli.command()
@click.option(
    "--remote",
    "url",
    metavar="URL",
    help="Set the wiki's remote (setting wiki.remote, default origin) to URL first.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@workspace_option
@pass_ctx
def sync(ctx: Ctx, url: str | None, as_json: bool) -> None:
    """Share the wiki through its git remote: fetch, rebuild wikimem's commits on top of the
    remote's (leaves merged entry by entry, TOPIC.md and PROFILE.md regenerated), push.

    The history stays linear. With `wiki.push = true` every pass does this after committing.
    """
    from wikimem.lifecycle.sync import sync as do_sync

    done = do_sync(ctx.places, ctx.settings, url=url)
    if as_json:
        emit_json(
            {
                "remote": done.remote,
                "branch": done.branch,
                "head": done.head,
                "pushed": done.pushed,
                "received": done.received,
                "attempts": done.attempts,
                "merged": list(done.merged),
            }
        )
    else:
        click.echo(done.line())
