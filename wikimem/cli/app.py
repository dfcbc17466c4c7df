"""The command line with every command attached: the command modules add themselves to the
group in cli/context.py, which imports each only when one of its commands runs. Importing this
module loads them all (the docs and tests want the whole tree)."""

from __future__ import annotations

from wikimem.cli import (
    completion,
    evaluate,
    integrations,
    listen,
    memory,
    pipeline,
    recall,
    review,
    serve,
    trusting,
    wiki,
)
from wikimem.cli.context import CONTEXT, cli, settle

# the command modules attach their commands to the group on import
COMMAND_MODULES = (
    completion,
    evaluate,
    integrations,
    listen,
    memory,
    pipeline,
    recall,
    review,
    serve,
    trusting,
    wiki,
)
__all__ = ["CONTEXT", "cli"]

settle(cli)
