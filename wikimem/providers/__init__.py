"""Where memory goes: the provider interface, and the one the settings choose.

`memory.provider` names it: `wiki` (the default, the Markdown wiki in git), `mcp` (an external
MCP memory server started from `memory.command`, see `providers.mcp`), or the name of a plugin
registered under the `wikimem.providers` entry point group. A plugin's entry point is a callable
taking (places, settings) and returning an object with the `Provider` methods.

Invariants: the effective provider owns storage and says what it can do (`Capabilities`); a
provider that cannot write never receives a write (the indexer keeps such plans for review);
a plan reaching `apply` has been validated like any plan bound for the wiki. Every read path
(search, context, show, start, the MCP server's tools, the pass's prompt) asks the effective
provider; a command that works on the wiki's files or history refuses under another
(`wiki_only`). A provider other than the wiki comes wrapped in `Checked`: held to its
capabilities, its failures one line.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from wikimem.config import Places, Settings
from wikimem.errors import ConfigError
from wikimem.providers.mcp import McpProvider
from wikimem.providers.provider import (
    ENTRY_POINTS,
    MCP,
    WIKI,
    Capabilities,
    Checked,
    Found,
    Provider,
    ProviderError,
    provider_name,
    wiki_only,
)
from wikimem.providers.wiki import WikiProvider

__all__ = [
    "Capabilities",
    "Found",
    "Provider",
    "ProviderError",
    "load",
    "provider_name",
    "wiki_only",
]


def load(places: Places, settings: Settings) -> Provider:
    """The provider `memory.provider` names; ConfigError when it cannot be found or built."""
    name = provider_name(settings)
    if name == WIKI:
        return WikiProvider(places, settings)
    if name == MCP:
        return Checked(McpProvider.from_settings(settings), enforces=True)
    found = [ep for ep in entry_points(group=ENTRY_POINTS) if ep.name == name]
    if not found:
        raise ConfigError(
            f"memory.provider = {name!r}: no such provider (built in: wiki, mcp; "
            f"plugins register under the {ENTRY_POINTS!r} entry point group)"
        )
    try:
        made = found[0].load()(places, settings)
    except Exception as exc:  # a plugin's failure is reported, not a traceback
        raise ConfigError(f"memory provider {name!r} failed to start: {exc}") from exc
    if not isinstance(made, Provider):
        raise ConfigError(f"memory provider {name!r} lacks the provider methods")
    return Checked(made)
