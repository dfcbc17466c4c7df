"""The click group and what every command shares: the workspace, its settings, --json."""

from __future__ import annotations

from typing import Any

import click

from wikimem import __version__, config
from wikimem.errors import NotFound


class Ctx:
    """What the commands of one invocation share (a plain class: `show` and `--version` do
    not import dataclasses)."""

    __slots__ = ("workspace", "pager", "_places", "_settings")

    def __init__(self, workspace: str | None = None, pager: bool = True) -> None:
        self.workspace = workspace
        self.pager = pager
        self._places: config.Places | None = None
        self._settings: config.Settings | None = None

    def __repr__(self) -> str:
        return f"Ctx(workspace={self.workspace!r}, pager={self.pager!r})"

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

    def require(self) -> None:
        """NotFound (exit 1) unless the current folder is in a workspace."""
        self.found  # noqa: B018  (the property raises)

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
    import json  # only --json output needs it

    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True, default=str))


def warn(message: str) -> None:
    click.echo(message, err=True)


def _height() -> int:
    """The terminal's height, as `shutil.get_terminal_size` reads it (LINES, else the tty),
    without importing shutil (and the three compression modules it loads) for a pipe."""
    import os

    try:
        if int(os.environ["LINES"]) > 0:
            return int(os.environ["LINES"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size().lines
    except OSError:
        return 24


def echo_paged(lines: list[str]) -> None:
    """Long output through a pager when a person reads it on a terminal, as git and gh do
    (PAGER, else less; `--no-pager` or a pipe prints it straight)."""
    import os
    import sys

    ctx = click.get_current_context().find_object(Ctx)
    if (ctx is None or ctx.pager) and sys.stdout.isatty() and len(lines) >= _height():
        os.environ.setdefault("LESS", "FRX")  # git's defaults: quit if one screen, keep colour
        click.echo_via_pager("\n".join(lines) + "\n")
        return
    if lines:  # one write: echoing line by line took seconds on a page of 200,000 headings
        click.echo("\n".join(lines))


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# Which module defines each command, and where its help lists it. The group imports a command's
# module only when that command runs, so `wikimem --version` or `show` does not pay for the
# indexer and the model client (tests/test_layers.py checks this table against the modules).
COMMANDS: dict[str, tuple[str, str]] = {
    # daily
    "show": ("wiki", "daily"),
    "search": ("recall", "daily"),
    "status": ("pipeline", "daily"),
    "log": ("wiki", "daily"),
    "timeline": ("memory", "daily"),
    "context": ("recall", "daily"),
    "verify": ("recall", "daily"),
    "config": ("pipeline", "daily"),
    "trust": ("trusting", "daily"),
    "queue": ("pipeline", "daily"),
    "review": ("review", "daily"),
    "serve": ("serve", "daily"),
    # wiki care
    "init": ("wiki", "care"),
    "lint": ("wiki", "care"),
    "index": ("pipeline", "care"),
    "compact": ("memory", "care"),
    "forget": ("recall", "care"),
    "restore": ("recall", "care"),
    "trash": ("recall", "care"),
    "purge": ("recall", "care"),
    "undo": ("recall", "care"),
    "sync": ("integrations", "care"),
    "export": ("recall", "care"),
    "import": ("recall", "care"),
    "pause": ("recall", "care"),
    "resume": ("recall", "care"),
    "demo": ("pipeline", "care"),
    "eval": ("evaluate", "care"),
    # integration
    "install": ("integrations", "integration"),
    "uninstall": ("integrations", "integration"),
    "hook": ("pipeline", "integration"),
    "mcp": ("integrations", "integration"),
    # plumbing: what runners and scripts call
    "start": ("integrations", "plumbing"),
    "deliver": ("integrations", "plumbing"),
    "enqueue": ("pipeline", "plumbing"),
    "listen": ("listen", "plumbing"),
    "schema": ("pipeline", "plumbing"),
    "completion": ("completion", "integration"),
}
# What may run outside a workspace: what makes one, what needs none, and the hook (which
# records nothing there). `config` checks itself: `config --global` needs no workspace.
ANYWHERE = frozenset(
    {"init", "demo", "hook", "config", "install", "uninstall", "eval", "schema", "completion"}
)
SECTIONS = {
    "daily": "Daily commands",
    "care": "Wiki care",
    "integration": "Agent runners",
    "plumbing": "Plumbing",
}


class LazyGroup(click.Group):
    """A group whose commands are imported when they are used, listed in sections in help."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import importlib

            importlib.import_module(f"wikimem.cli.{COMMANDS[cmd_name][0]}")
            for command in self.commands.values():
                settle(command)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f" Did you mean `{close[0]}`?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        if name not in ANYWHERE and not {"-h", "--help"} & set(args):
            state = ctx.ensure_object(Ctx)
            state.workspace = given_workspace(args[1:]) or state.workspace  # `CMD -C DIR`
            state.require()  # NotFound (exit 1) outside a workspace
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        limit = formatter.width - 6 - max(len(name) for name in self.list_commands(ctx))
        for section, title in SECTIONS.items():
            rows = []
            for name in self.list_commands(ctx):
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                if COMMANDS.get(name, ("", "plumbing"))[1] == section:
                    rows.append((name, command.get_short_help_str(limit)))
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def given_workspace(args: list[str]) -> str | None:
    """The `-C DIR` a command's own options name (they are parsed after this check)."""
    for n, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("-C", "--workspace") and n + 1 < len(args):
            return args[n + 1]
        if arg.startswith("--workspace="):
            return arg.split("=", 1)[1]
    return None


def settle(command: click.Command) -> None:
    """Every command gets the settings itself, so its help reads the same however it is reached."""
    for key, value in CONTEXT.items():
        command.context_settings.setdefault(key, value)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            settle(sub)


@click.group(cls=LazyGroup, context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(__version__, prog_name="wikimem")
@workspace_option
@click.option("--no-color", is_flag=True, help="No colour (also when NO_COLOR is set).")
@click.option("--no-pager", is_flag=True, help="Print long output straight, without a pager.")
@click.pass_context
def cli(click_ctx: click.Context, no_color: bool, no_pager: bool) -> None:
    """Durable, human-readable project memory for AI coding agents.

    After each agent run, `wikimem hook` queues the run; an indexing pass turns what it taught
    into edits of a Markdown wiki in .clarvis/memory/, one git commit per change.
    """
    import os

    if no_color or os.environ.get("NO_COLOR"):  # https://no-color.org: any non-empty value
        click_ctx.color = False
    click_ctx.ensure_object(Ctx).pager = not no_pager
    if click_ctx.invoked_subcommand is None:
        # bare `wikimem` is a request for help, as with git and gh: exit 0
        click.echo(click_ctx.get_help())
