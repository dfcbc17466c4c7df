"""Where a workspace is, and whether memory is on for a run: plain `os.path`, no settings.

The hook's fast path uses this before it knows whether it will do any real work, so it must not
import pathlib, dataclasses or the settings; `config` builds its `Places` on the same rule.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # on the hook's fast path: typing and collections cost it milliseconds
if TYPE_CHECKING:
    from collections.abc import Mapping

CLARVIS = ".clarvis"
PAUSED = "paused"  # a flag file in the state folder: `wikimem pause`
SOCKET = "intake.sock"  # where a warm intake listener takes runs (intake/listener.py)


def workspace_dir(
    explicit: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> str:
    """--workspace, else WIKIMEM_WORKSPACE, else nearest folder up with .clarvis/ or .git."""
    env = os.environ if env is None else env
    for given, what in (
        (explicit, "workspace"),
        (env.get("WIKIMEM_WORKSPACE"), "WIKIMEM_WORKSPACE="),
    ):
        if given:
            path = os.path.expanduser(os.fspath(given))
            if not os.path.isdir(path):
                # a wrong -C is how the command was called (2); a wrong variable is a setting (1)
                from wikimem.errors import ConfigError, UsageError  # the hook's fast path

                wrong = UsageError if what == "workspace" else ConfigError
                raise wrong(f"{what}{'' if what.endswith('=') else ' '}{path} is not a folder")
            return os.path.realpath(path)
    start = os.path.realpath(cwd or os.getcwd())
    folder = start
    while True:
        if os.path.isdir(os.path.join(folder, CLARVIS)) or os.path.exists(
            os.path.join(folder, ".git")
        ):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def state_dir(workspace: str) -> str:
    return os.path.join(workspace, CLARVIS, "state")


def memory_disabled(env: Mapping[str, str] | None = None) -> bool:
    """WIKIMEM_MEMORY=off in a run's environment turns hook and context into no-ops."""
    env = os.environ if env is None else env
    return env.get("WIKIMEM_MEMORY", "").strip().lower() in {"off", "0", "false", "no"}
