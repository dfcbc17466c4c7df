"""The MCP server as a client sees it: `python -m wikimem mcp` as a real subprocess over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, git, run_wikimem
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue
from wikimem.wiki.workspace import init

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

READ_TOOLS = {"memory_search", "memory_show", "memory_context", "memory_timeline"}
LOCKFILE = (
    "`bun install --frozen-lockfile` fails when package.json changed without the "
    "lockfile. Run `bun install` and commit bun.lockb."
)


@pytest.fixture
def wiki(workspace: Path) -> Path:
    """A workspace whose wiki holds one leaf with one entry, indexed by a real pass."""
    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    enqueue(
        places,
        settings,
        {
            "run_id": "seed",
            "task": "Fix the web build",
            "agent": {"name": "claude-code"},
            "memory": [
                {
                    "path": "build/bun",
                    "type": "procedural",
                    "title": "Lockfile drift on CI",
                    "content": LOCKFILE,
                }
            ],
        },
    )
    assert [o.outcome for r in drain(places, settings) for o in r.outcomes] == ["changed"]
    return workspace


def server(workspace: Path, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    passed = {
        key: os.environ[key]
        for key in ("HOME", "WIKIMEM_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH")
    }
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "wikimem", "mcp", "-C", str(workspace), *args],
        env={**passed, "PYTHONPATH": str(ROOT), **(env or {})},
        cwd=str(workspace),
    )


def talk(
    params: StdioServerParameters,
    calls: list[tuple[str, dict[str, Any]]],
    client: str = "test-client",
) -> tuple[dict[str, Any], list[Any]]:
    """List the tools, then make each call in order; return (tools by name, results)."""

    async def main() -> tuple[dict[str, Any], list[Any]]:
        info = mcp.types.Implementation(name=client, version="1.0")
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, client_info=info) as session,
            ):
                await session.initialize()
                tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                results = [await session.call_tool(name, arguments) for name, arguments in calls]
                return tools, results

    return anyio.run(main)


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if getattr(part, "type", "") == "text")


def is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def read_only(tool: Any) -> bool | None:
    notes = tool.annotations
    return getattr(notes, "read_only_hint", getattr(notes, "readOnlyHint", None))


def queue_files(workspace: Path) -> list[str]:
    return sorted(str(p.relative_to(workspace)) for p in workspace.glob(".clarvis/state/queue/*/*"))


def test_read_only_server_offers_annotated_read_tools_on_a_real_wiki(wiki: Path) -> None:
    before = queue_files(wiki)
    tools, (found, shown, entry, context, missing, refused) = talk(
        server(wiki),
        [
            ("memory_search", {"query": "lockfile frozen", "limit": 3}),
            ("memory_show", {"ref": "build/bun"}),
            ("memory_show", {"ref": "build/bun#lockfile-drift-on-ci"}),
            ("memory_context", {"query": "bun lockfile", "budget": 1500}),
            ("memory_show", {"ref": "build/nothing-here"}),
            ("memory_remember", {"content": "x", "path": "build/bun", "type": "semantic"}),
        ],
    )
    assert set(tools) == READ_TOOLS
    assert all(read_only(tool) is True for tool in tools.values())
    assert not is_error(found) and "build/bun#lockfile-drift-on-ci" in text_of(found)
    assert "## Lockfile drift on CI" in text_of(shown) and text_of(shown).startswith("---")
    assert text_of(entry).startswith("## Lockfile drift on CI") and "bun.lockb" in text_of(entry)
    assert "bun.lockb" in text_of(context) and len(text_of(context)) <= 1500
    assert is_error(missing) and "no page at build/nothing-here" in text_of(missing)
    assert is_error(refused) and "read-only" in text_of(refused)
    assert "--allow-write" in text_of(refused)
    assert queue_files(wiki) == before  # a read-only server never touches the queue


def test_write_server_queues_a_memory_that_a_pass_then_commits(wiki: Path) -> None:
    note = "Use `bun run build:ci` on CI: it skips the sourcemaps the deploy step never reads."
    tools, (queued, again, bad) = talk(
        server(wiki, "--allow-write", "--agent-id", "laptop-3"),
        [
            (
                "memory_remember",
                {
                    "content": note,
                    "path": "build/bun",
                    "type": "procedural",
                    "title": "CI build script",
                },
            ),
            (
                "memory_remember",
                {
                    "content": note,
                    "path": "build/bun",
                    "type": "procedural",
                    "title": "CI build script",
                },
            ),
            ("memory_remember", {"content": note, "path": "../etc", "type": "procedural"}),
        ],
    )
    assert set(tools) == READ_TOOLS | {"memory_remember"}
    assert read_only(tools["memory_remember"]) is False
    answer = json.loads(text_of(queued))
    assert answer["queued"] is True and answer["agent"] == "mcp/laptop-3"
    assert json.loads(text_of(again))["queued"] is False  # the same note is one job
    assert is_error(bad) and "not a wiki path" in text_of(bad)
    # The server started a background pass; a foreground one waits for it and drains the rest.
    assert run_wikimem("index", "--wait", cwd=wiki).returncode == 0
    places = config.places(wiki, {})
    queue = Queue(places.queue)
    assert queue.state_of(answer["job"]) == "done"
    job = json.loads(queue.path("done", answer["job"]).read_text(encoding="utf-8"))
    assert job["run"]["task"] == "remember"
    assert job["run"]["agent"] == {"name": "mcp", "instance_id": "laptop-3"}
    assert "bun run build:ci" in (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert "Wikimem-Agent: mcp/laptop-3" in git("log", "-1", "--format=%B", cwd=places.wiki)


def test_agent_id_defaults_to_the_client_name(wiki: Path) -> None:
    _, (queued,) = talk(
        server(wiki, "--allow-write"),
        [
            (
                "memory_remember",
                {"content": "Releases are cut on Tuesdays.", "path": "release", "type": "semantic"},
            )
        ],
        client="codex-tui",
    )
    assert json.loads(text_of(queued))["agent"] == "mcp/codex-tui@1.0"


def test_without_the_sdk_the_command_says_how_to_install_it(wiki: Path) -> None:
    code = "import sys; sys.modules['mcp'] = None\nfrom wikimem.cli import main; main(['mcp'])"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=wiki,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "wikimem: error: `wikimem mcp` needs the MCP SDK: pip install 'wikimem[mcp]'"
    ]
