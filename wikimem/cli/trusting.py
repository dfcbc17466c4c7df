"""`wikimem trust`: let a workspace's config.toml run programs and choose endpoints (see
wikimem/trust.py)."""

from __future__ import annotations

from pathlib import Path

import click

from wikimem import trust
from wikimem.cli.context import Ctx, cli, emit_json, json_option, pass_ctx, workspace_option
from wikimem.errors import UsageError


@cli.command("trust")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option(
    "--list",
    "listed",
    is_flag=True,
    help="List the trusted files: trusted, changed, unsafe (others could write it) or missing.",
)
@click.option("--remove", is_flag=True, help="Stop trusting the file.")
@json_option
@workspace_option
@pass_ctx
def trust_cmd(ctx: Ctx, file: str | None, listed: bool, remove: bool, as_json: bool) -> None:
    """Trust the workspace's .clarvis/config.toml (or FILE) as it is now: its settings that run
    a program or send data elsewhere (memory.provider, memory.command, model.base_url,
    model.api_key, wiki.push, wiki.remote) apply from then on, until the file changes. Read it
    first. The record is kept in trusted.json in the wikimem home, outside the workspace."""
    store = trust.store_path(ctx.places.global_dir)
    if listed:
        if file or remove:
            raise UsageError("--list takes no FILE and no --remove")
        rows = trust.listing(store)
        if as_json:
            emit_json([{"path": p, "sha256": sha, "state": state} for p, sha, state in rows])
            return
        if not rows:
            click.echo("no trusted files")
        for name, sha, state in rows:
            click.echo(f"{state:8} {sha[:12]}  {name}")
        return
    path = Path(file).absolute() if file else ctx.found.workspace_config
    if remove:
        done = trust.untrust(path, store)
        if as_json:
            emit_json({"path": str(path), "removed": done})
            return
        click.echo(f"no longer trusted: {path}" if done else f"{path} was not trusted")
        return
    sha = trust.trust(path, store)
    if as_json:
        emit_json({"path": str(path), "sha256": sha})
        return
    click.echo(f"trusted {path} (sha256 {sha[:12]}); a change to it needs `wikimem trust` again")
