"""The click group and what every command shares: the workspace, its settings, --json."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import click

from wikimem import __version__, config
from wikimem.errors import NotFound


@dataclass
class Ctx:
    workspace: str | None = None
    _places: config.Places | None = field(default=None, repr=False)
    _settings: config.Settings | None = field(default=None, repr=False)

    @property
    def places(self) -> config.Places:
        if self._places is None:
            self._places = config.places(self.workspace)
        return self._places

    @property
    def found(self) -> config.Places:
        """The places of the workspace found from here; NotFound (exit 1) when the current
        folder is in no project: a read command or `pause` must not act on a loose folder."""
        if not self.places.found:
            raise NotFound(
                f"{self.places.workspace} is in no workspace (no .clarvis/ or .git up from "
                "here): run `wikimem init` to make one, or pass -C DIR"
            )
        return self.places

    @property
    def settings(self) -> config.Settings:
        if self._settings is None:
            self._settings = config.load(self.places)
        return self._settings


pass_ctx = click.make_pass_decorator(Ctx, ensure=True)


# --json on every read command (tests/test_readme.py checks they all have it)
json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


def limit_option(default: int, what: str) -> Any:
    """-n/--limit N, at least 1: how many `what` a listing shows."""
    return click.option(
        "-n",
        "--limit",
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        help=f"How many {what}.",
    )


def workspace_option(func: Any) -> Any:
    """-C/--workspace on every command, as well as on the group."""

    def store(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value:
            ctx.ensure_object(Ctx).workspace = value

    return click.option(
        "-C",
        "--workspace",
        metavar="DIR",
        expose_value=False,
        callback=store,
        is_eager=True,
        help="Workspace folder (default: WIKIMEM_WORKSPACE, else the nearest "
        "folder up holding .clarvis/ or .git).",
    )(func)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True, default=str))


def warn(message: str) -> None:
    click.echo(message, err=True)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, prog_name="wikimem")
@workspace_option
def cli() -> None:
    """Durable, human-readable project memory for AI coding agents.

    After each agent run, `wikimem hook` queues the run; an indexing pass turns what it taught
    into edits of a Markdown wiki in .clarvis/memory/, one git commit per change.
    """
