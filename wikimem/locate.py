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
    """--workspace, else WIKIMEM_WORKSPACE, else the project found up from here (see
    `project_dir`), else the current folder (where `wikimem init` makes a wiki)."""
    found = project_dir(explicit, env, cwd)
    return found if found is not None else os.path.realpath(cwd or os.getcwd())


def project_dir(
    explicit: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> str | None:
    """The workspace a command or run belongs to; None when the folder is in no project.

    Inside a `.clarvis` folder (the wiki, its state), the folder holding it: the wiki's own
    `.git` never makes the wiki a workspace. Else the nearest folder up holding `.clarvis/` or
    `.git`. The global folder (`$WIKIMEM_HOME`, `~/.clarvis`) is never a workspace's, and HOME
    itself is no project: the walk stops there."""
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
    home = os.path.realpath(env.get("HOME") or os.path.expanduser("~"))
    global_folder = _global_folder(env, home)
    parts = start.split(os.sep)
    if CLARVIS in parts:
        holder = os.sep.join(parts[: parts.index(CLARVIS)]) or os.sep
        return None if os.path.join(holder, CLARVIS) == global_folder else holder
    folder = start
    while folder != home:
        clarvis = os.path.join(folder, CLARVIS)
        if (os.path.isdir(clarvis) and clarvis != global_folder) or os.path.exists(
            os.path.join(folder, ".git")
        ):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _global_folder(env: Mapping[str, str], home: str) -> str:
    raw = env.get("WIKIMEM_HOME")
    if raw:
        if raw == "~" or raw.startswith("~/"):
            raw = home + raw[1:]
        return os.path.realpath(os.path.expanduser(raw))
    return os.path.join(home, CLARVIS)


def state_dir(workspace: str) -> str:
    return os.path.join(workspace, CLARVIS, "state")


def memory_disabled(env: Mapping[str, str] | None = None) -> bool:
    """WIKIMEM_MEMORY=off in a run's environment turns hook and context into no-ops."""
    env = os.environ if env is None else env
    return env.get("WIKIMEM_MEMORY", "").strip().lower() in {"off", "0", "false", "no"}
