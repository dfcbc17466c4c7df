"""A small MCP memory server for the provider tests, built with the official `mcp` SDK.

It keeps a knowledge graph in a JSON file, with the tool names and shapes of the reference
memory server (read_graph, search_nodes, open_nodes, create_entities, delete_entities); with
--read-only it offers only the three read tools.

    python tests/mcp_memory_server.py STORE.json [--read-only]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

try:  # mcp >= 2
    from mcp.server import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef,attr-defined]


def main() -> None:
    store = Path(sys.argv[1])
    read_only = "--read-only" in sys.argv[2:]
    server = Server("test-memory")

    def load() -> dict[str, Any]:
        if store.is_file():
            return json.loads(store.read_text(encoding="utf-8"))
        return {"entities": []}

    def save(graph: dict[str, Any]) -> None:
        store.write_text(json.dumps(graph, indent=1, sort_keys=True), encoding="utf-8")

    @server.tool()
    def read_graph() -> dict[str, Any]:
        """The whole knowledge graph."""
        return load()

    @server.tool()
    def search_nodes(query: str) -> dict[str, Any]:
        """Entities whose name, type or observations hold every word of the query."""
        words = query.lower().split()
        found = [e for e in load()["entities"] if all(w in json.dumps(e).lower() for w in words)]
        return {"entities": found}

    @server.tool()
    def open_nodes(names: list[str]) -> dict[str, Any]:
        """The entities with these names."""
        return {"entities": [e for e in load()["entities"] if e["name"] in names]}

    if not read_only:

        @server.tool()
        def create_entities(entities: list[dict[str, Any]]) -> dict[str, Any]:
            """Add entities (name, entityType, observations); a known name is skipped."""
            graph = load()
            known = {e["name"] for e in graph["entities"]}
            made = [e for e in entities if e["name"] not in known]
            graph["entities"] += made
            save(graph)
            return {"entities": made}

        @server.tool()
        def delete_entities(entityNames: list[str]) -> str:  # noqa: N803  (the wire name)
            """Remove the entities with these names."""
            graph = load()
            graph["entities"] = [e for e in graph["entities"] if e["name"] not in entityNames]
            save(graph)
            return "deleted"

    server.run()


if __name__ == "__main__":
    main()
