"""The command line with every command attached: the command modules add themselves to the
group in cli/context.py, which imports each only when one of its commands runs. Importing this
module loads them all (the docs and tests want the whole tree)."""

from __future__ import annotations

import importlib

from wikimem.cli.context import COMMANDS, CONTEXT, cli, settle

# the command modules attach their commands to the group on import
COMMAND_MODULES = tuple(
    importlib.import_module(f"wikimem.cli.{name}")
    for name in sorted({module for module, _ in COMMANDS.values()})
)
__all__ = ["CONTEXT", "cli"]

settle(cli)
