"""Writing one setting into a config.toml (workspace or global), atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from .config import SETTINGS, Places, coerce, read_toml
from .errors import UsageError
from .fsio import atomic_write_text


def set_value(places: Places, key: str, raw: str | None, is_global: bool) -> Path:
    """Set (or with raw=None remove) `key`; the value is checked before anything is written."""
    if key not in SETTINGS:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
    path = places.global_config if is_global else places.workspace_config
    data: dict[str, Any] = read_toml(path)
    table_name, name = key.split(".", 1)
    table = data.setdefault(table_name, {})
    if raw is None:
        table.pop(name, None)
        if not table:
            data.pop(table_name)
    else:
        value = coerce(key, raw, "value")
        if value is None:
            raise UsageError(f"{key}: empty value; use `wikimem config unset {key}`")
        table[name] = list(value) if isinstance(value, tuple) else value
    atomic_write_text(path, tomli_w.dumps(data))
    return path
