"""The click group and what every command shares: the workspace and its settings."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, TextIO

import click

from wikimem import __version__, config


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
    def settings(self) -> config.Settings:
        if self._settings is None:
            self._settings = config.load(self.places)
        return self._settings


pass_ctx = click.make_pass_decorator(Ctx, ensure=True)


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


# What may reach a terminal: text, newlines, tabs and colour (SGR) codes. Every other control
# character goes (an escape sequence from task text can set the clipboard or hide lines), and so
# do bidirectional overrides; bytes that were not UTF-8 print as U+FFFD.
_TERMINAL_UNSAFE = re.compile(
    "(\x1b\\[[0-9;]*m)|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
    "|[\ud800-\udfff]"
)


def visible(text: str) -> str:
    """`text` safe to print to a terminal (see `_TERMINAL_UNSAFE`)."""
    return _TERMINAL_UNSAFE.sub(_keep_colour, text)


def _keep_colour(m: re.Match[str]) -> str:
    if m.group(1):
        return m.group(1)
    return "\ufffd" if "\ud800" <= m.group() <= "\udfff" else ""


class VisibleStream:
    """A text stream that passes only `visible` text to the one it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError("text only")  # click probes for binary streams this way
        self._stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


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


def register() -> None:
    from wikimem.cli import evaluate, integrations, listen, pipeline, recall, wiki  # noqa: F401  (commands attach)

    # Every command gets the settings itself, so its help reads the same however it is reached.
    def settle(command: click.Command) -> None:
        for key, value in CONTEXT.items():
            command.context_settings.setdefault(key, value)
        if isinstance(command, click.Group):
            for sub in command.commands.values():
                settle(sub)

    settle(cli)


register()
