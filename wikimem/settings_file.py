"""Writing one setting into a config.toml (workspace or global), atomically.

A workspace's config.toml can hold an API key: it is kept out of the workspace repository's
status (info/exclude) like everything else wikimem creates there, so `git add -A` skips it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from wikimem import trust
from wikimem.config import SETTINGS, Places, coerce, load, read_toml, unknown_setting
from wikimem.errors import ConfigError, UsageError
from wikimem.fsio import atomic_write_text
from wikimem.wiki.history import WikiRepo


def set_value(places: Places, key: str, raw: str | None, is_global: bool) -> Path:
    """Set (or with raw=None remove) `key`; the value is checked before anything is written."""
    if key not in SETTINGS:
        raise UsageError(unknown_setting(key))
    path = places.global_config if is_global else places.workspace_config
    data: dict[str, Any] = read_toml(path)
    table_name, name = key.split(".", 1)
    table = data.setdefault(table_name, {})
    if raw is None:
        table.pop(name, None)
        if not table:
            data.pop(table_name)
    else:
        value = coerce(key, raw, "config set")
        if value is None:
            raise UsageError(f"{key}: empty value; use `wikimem config unset {key}`")
        if key == "memory.provider":
            check_provider(str(value))
        table[name] = list(value) if isinstance(value, tuple) else value
    # The person is writing the file through wikimem: it stays trusted if all of it was
    # theirs before (or it is new), and stays untrusted otherwise.
    store = trust.store_path(places.global_dir)
    was_trusted = not is_global and (
        not path.exists() or trust.distrust_reason(path, store) is None
    )
    atomic_write_text(path, tomli_w.dumps(data))
    if not is_global:
        trust.retrust_after_write(path, store, was_trusted)
        exclude_config(places)
    return path


def exclude_config(places: Places) -> None:
    """Add the workspace's config.toml to its repository's info/exclude (no repository: no-op)."""
    try:
        mode = load(places).wiki.commit_into
    except ConfigError:
        # Another value is broken, and the file must stay out of git all the same. The mode
        # only decides whether the wiki folder is excluded too, which every pass settles again.
        mode = "wiki"
    WikiRepo(places.wiki, places.workspace, mode).exclude([places.workspace_config])


def check_provider(name: str) -> None:
    """Refuse a provider no one provides before it is written: once set, every read would fail."""
    from importlib.metadata import entry_points

    from wikimem.providers.provider import ENTRY_POINTS, MCP, WIKI

    name = name.strip().lower()
    plugins = sorted(ep.name for ep in entry_points(group=ENTRY_POINTS))
    if name not in {WIKI, MCP, *plugins}:
        known = ", ".join([WIKI, MCP, *plugins])
        raise UsageError(f"memory.provider: no provider {name!r} (known: {known})")
