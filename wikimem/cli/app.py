"""The command line with every command attached: the command modules add themselves to the
group in cli/context.py; this module imports them all and gives each the same help settings."""

from __future__ import annotations

import click

from wikimem.cli import evaluate, integrations, listen, memory, pipeline, recall, wiki
from wikimem.cli.context import CONTEXT, cli

# the command modules attach their commands to the group on import
COMMAND_MODULES = (evaluate, integrations, listen, memory, pipeline, recall, wiki)
__all__ = ["cli"]


def settle(command: click.Command) -> None:
    """Every command gets the settings itself, so its help reads the same however it is reached."""
    for key, value in CONTEXT.items():
        command.context_settings.setdefault(key, value)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            settle(sub)


settle(cli)
