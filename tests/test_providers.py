"""Providers: the setting, plugins from entry points, and the MCP adapter against a real MCP
memory server (tests/mcp_memory_server.py, the official SDK) started as a command."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

from tests.conftest import git, trust_config
from tests.mcp_forkserver import command
from wikimem import config
from wikimem.errors import ConfigError
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Queue
from wikimem.providers import Capabilities, Found, load
from wikimem.providers.mcp import McpProvider, ProviderError
from wikimem.providers.wiki import WikiProvider
from wikimem.wiki.edit import Edit
from wikimem.wiki.workspace import init

pytest.importorskip("mcp")
LOCKFILE = "`bun install --frozen-lockfile` fails when the lockfile drifted; run `bun install`."


def configure(workspace: Path, text: str) -> tuple[config.Places, config.Settings]:
    places = config.places(workspace, {})
    (workspace / ".clarvis").mkdir(exist_ok=True)
    places.workspace_config.write_text(text, encoding="utf-8")
    trust_config(places.workspace_config)
    settings = config.load(places, {})
    return places, settings


def run_record(run_id: str) -> dict:
    candidate = {"path": "build/bun", "type": "procedural", "title": "Lockfile drift"}
    candidate["content"] = LOCKFILE
    return {"run_id": run_id, "task": "fix the build", "memory": [candidate]}


def outcomes(places: config.Places, settings: config.Settings) -> list[tuple[str, str]]:
    return [(o.outcome, o.note) for r in drain(places, settings) for o in r.outcomes]


def test_the_mcp_adapter_maps_a_memory_servers_tools(tmp_path: Path) -> None:
    store = tmp_path / "graph.json"
    provider = McpProvider(shlex.split(command(store)))
    assert provider.capabilities() == Capabilities(write=True, remove=True)
    edit = Edit("add", "build/bun", "lockfile-drift", "Lockfile drift", "procedural", LOCKFILE)
    assert provider.apply([edit], "remember") == "1 edit(s) to the MCP memory server 'test-memory'"
    graph = json.loads(store.read_text())
    assert graph["entities"][0]["name"] == "build/bun#lockfile-drift"
    assert provider.search("frozen-lockfile", 5) == [
        Found(
            "build/bun#lockfile-drift", "build/bun#lockfile-drift", f"Lockfile drift\n\n{LOCKFILE}"
        )
    ]
    assert "frozen-lockfile" in provider.read("build/bun#lockfile-drift")
    assert "- build/bun#lockfile-drift: Lockfile drift" in provider.context("bun", 400)
    assert len(provider.context("bun", 20)) == 20

    newer = Edit("update", "build/bun", "lockfile-drift", "Lockfile drift", "procedural", "v2")
    provider.apply([newer], "update")
    assert json.loads(store.read_text())["entities"][0]["observations"] == ["Lockfile drift\n\nv2"]
    again = Edit("add", "build/bun", "lockfile-drift", "Lockfile drift", "procedural", "v3")
    provider.apply([again], "an update the wiki's validation turned into an add")
    assert json.loads(store.read_text())["entities"][0]["observations"] == ["Lockfile drift\n\nv3"]
    provider.apply([Edit("remove", "build/bun", "lockfile-drift")], "forget")
    assert json.loads(store.read_text())["entities"] == []

    fresh = McpProvider(shlex.split(command(store, "--read-only")))
    with pytest.raises(ProviderError, match="^the MCP memory server is read-only"):
        fresh.apply([edit], "remember")  # refused in the session that learns its tools
    read_only = McpProvider(shlex.split(command(store, "--read-only")))
    assert read_only.capabilities() == Capabilities(write=False, remove=False)
    with pytest.raises(ProviderError, match="read-only"):
        read_only.apply([edit], "remember")


def test_a_server_that_does_not_start_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as caught:
        McpProvider([str(tmp_path / "no-such-server")]).search("x", 1)
    assert "no-such-server" in str(caught.value) and "\n" not in str(caught.value)


def test_a_pass_writes_to_the_mcp_provider_not_the_wiki(workspace: Path) -> None:
    store = workspace / "graph.json"
    places, settings = configure(
        workspace, f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(command(store))}\n"
    )
    init(places, settings)
    before = git("log", "--format=%H", cwd=places.wiki)
    enqueue(places, settings, run_record("r1"))
    [(path, _)] = list(Queue(places.queue).jobs("pending"))
    assert json.loads(path.read_text())["provider"] == "mcp"  # the job says what it was made for
    assert [o for o, _ in outcomes(places, settings)] == ["changed"]
    assert [e["name"] for e in json.loads(store.read_text())["entities"]] == [
        "build/bun#lockfile-drift"
    ]
    assert git("log", "--format=%H", cwd=places.wiki) == before  # the wiki was not written
    assert not (places.wiki / "build").exists()


def test_a_read_only_provider_never_receives_a_write(workspace: Path) -> None:
    store = workspace / "graph.json"
    cmd = command(store, "--read-only")
    places, settings = configure(
        workspace, f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(cmd)}\n"
    )
    init(places, settings)
    enqueue(places, settings, run_record("r1"))
    [(outcome, note)] = outcomes(places, settings)
    assert outcome == "held" and note == "memory provider 'mcp' is read-only: plan kept for review"
    assert not store.exists()  # not even an empty write
    [(_, job)] = list(Queue(places.queue).jobs("review"))
    assert job is not None and job.held_plan and job.held_plan["edits"][0]["leaf"] == "build/bun"


def test_jobs_are_never_replayed_into_another_provider_after_a_switch(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = configure(workspace, "")
    init(places, settings)
    enqueue(places, settings, run_record("made-for-the-wiki"))  # queued while the wiki was it
    store = workspace / "graph.json"
    places, settings = configure(
        workspace, f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(command(store))}\n"
    )
    status = cli("status")
    assert "1 job(s) made for provider 'wiki' are not replayed into 'mcp'" in status.out
    assert "(not used: memory goes to provider 'mcp')" in status.out
    [(outcome, note)] = outcomes(places, settings)
    assert outcome == "held" and "made for memory provider 'wiki'" in note
    assert not store.exists()
    assert "not replayed into 'mcp' (held in review)" in cli("status").out


def test_plugins_come_from_entry_points(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = workspace / "site"
    (site / "notes_plugin").mkdir(parents=True)
    (site / "notes_plugin" / "__init__.py").write_text(
        "from wikimem.providers import Capabilities\n"
        "class Notes:\n"
        "    name = 'notes'\n"
        "    def __init__(self, places, settings): self.places = places\n"
        "    def capabilities(self): return Capabilities(write=False)\n"
        "    def read(self, ref): return 'note ' + ref\n"
        "    def search(self, query, limit): return []\n"
        "    def context(self, query, budget): return ''\n"
        "    def apply(self, edits, summary): raise AssertionError('read-only')\n"
    )
    info = site / "notes_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: notes-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[wikimem.providers]\nnotes = notes_plugin:Notes\n")
    monkeypatch.syspath_prepend(str(site))

    places, settings = configure(workspace, "[memory]\nprovider = 'notes'\n")
    plugin = load(places, settings)
    assert plugin.name == "notes" and plugin.read("x") == "note x"
    assert plugin.capabilities().write is False

    init(places, settings)
    enqueue(places, settings, run_record("r1"))
    [(outcome, note)] = outcomes(places, settings)
    assert outcome == "held" and "'notes' is read-only" in note


def test_the_setting_names_a_known_provider(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    places, settings = configure(workspace, "")
    assert isinstance(load(places, settings), WikiProvider)
    places, settings = configure(workspace, "[memory]\nprovider = 'nope'\n")
    with pytest.raises(ConfigError, match="no such provider"):
        load(places, settings)
    places, settings = configure(workspace, "[memory]\nprovider = 'mcp'\n")
    with pytest.raises(ConfigError, match="needs memory.command"):
        load(places, settings)


def test_the_wiki_provider_applies_a_plan_in_one_commit(workspace: Path) -> None:
    places, settings = configure(workspace, "")
    init(places, settings)
    wiki = WikiProvider(places, settings)
    edit = Edit("add", "build/bun", "lockfile-drift", "Lockfile drift", "procedural", LOCKFILE)
    sha = wiki.apply([edit], "Remember the lockfile")
    assert (
        sha and git("log", "-1", "--format=%s", cwd=places.wiki).strip() == "Remember the lockfile"
    )
    assert "frozen-lockfile" in wiki.read("build/bun#lockfile-drift")
    assert [f.ref for f in wiki.search("lockfile", 3)][0].startswith("build/bun")
    assert "Lockfile drift" in wiki.context("lockfile", 2000)


def test_search_and_context_read_from_the_provider(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    store = workspace / "graph.json"
    places, settings = configure(
        workspace, f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(command(store))}\n"
    )
    init(places, settings)
    McpProvider(shlex.split(command(store))).apply(
        [Edit("add", "build/bun", "lockfile-drift", "Lockfile drift", "procedural", LOCKFILE)], "x"
    )
    found = cli("search", "frozen-lockfile")
    assert found.code == 0 and "build/bun#lockfile-drift" in found.out
    assert "frozen-lockfile" in cli("context", "--query", "lockfile").out


def test_a_removal_of_what_only_the_provider_holds_waits_for_review(
    workspace: Path, openai_server
) -> None:  # type: ignore[no-untyped-def]
    """The wiki cannot say which entries another provider holds: a removal of one is not
    refused but waits for review (wikimem cannot count what the provider holds, so it cannot
    tell a mass removal), and `queue approve` hands it over."""
    from tests.openai_server import Reply
    from wikimem.indexing.indexer import approve

    store = workspace / "graph.json"
    env = {
        "OPENAI_BASE_URL": openai_server.base_url,
        "OPENAI_API_KEY": "sk-test-key-123456",
        "WIKIMEM_MODEL": "memory-model",
    }
    places = config.places(workspace, env)
    (workspace / ".clarvis").mkdir(exist_ok=True)
    places.workspace_config.write_text(
        f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(command(store))}\n", encoding="utf-8"
    )
    trust_config(places.workspace_config)
    settings = config.load(places, env)
    # what an earlier pass gave the provider, and only the provider holds
    name, body = "build/bun#lockfile-drift", f"Lockfile drift\n\n{LOCKFILE}"
    entity = {"name": name, "entityType": "procedural", "observations": [body]}
    store.write_text(json.dumps({"entities": [entity], "relations": []}))
    remove = {"action": "remove", "leaf": "build/bun", "entry": "lockfile-drift", "reason": "gone"}
    openai_server.script(Reply.plan({"summary": "forget", "edits": [remove]}))
    evidence = [{"kind": "command", "command": "bun install", "exit_code": 0, "output": "ok"}]
    enqueue(places, settings, {"run_id": "r1", "task": "fix the build", "evidence": evidence})

    [(outcome, note)] = outcomes(places, settings)
    assert outcome == "held" and "another provider holds" in note
    assert json.loads(store.read_text())["entities"] == [entity]  # not yet removed
    [(held, _)] = list(Queue(places.queue).jobs("review"))
    approve(places, settings, held.stem)
    assert json.loads(store.read_text())["entities"] == []
    assert not places.wiki.exists()  # no wiki is made that nobody reads


REFERENCE = os.environ.get("WIKIMEM_TEST_MCP_MEMORY_JS", "")


@pytest.mark.skipif(
    not (REFERENCE and shutil.which("node")),
    reason="set WIKIMEM_TEST_MCP_MEMORY_JS to the reference memory server's dist/index.js "
    "(npm install @modelcontextprotocol/server-memory) to run this against it",
)
def test_the_reference_mcp_memory_server_takes_writes_and_answers_reads(
    workspace: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    """The same round trip against the memory server most MCP clients use (Node, published on
    npm as @modelcontextprotocol/server-memory), not one written here."""
    store = workspace / "memory.jsonl"
    cmd = shlex.join(["env", f"MEMORY_FILE_PATH={store}", "node", REFERENCE])
    places, settings = configure(
        workspace, f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(cmd)}\n"
    )
    init(places, settings)
    enqueue(places, settings, run_record("r1"))
    [(outcome, note)] = outcomes(places, settings)
    assert outcome == "changed" and note == "1 edit(s) to the MCP memory server 'memory-server'"
    saved = [json.loads(line) for line in store.read_text().splitlines()]
    assert [e["name"] for e in saved if e["type"] == "entity"] == ["build/bun#lockfile-drift"]
    assert "build/bun#lockfile-drift" in cli("search", "frozen-lockfile").out
    assert LOCKFILE in cli("show", "build/bun#lockfile-drift").out
    assert "build/bun#lockfile-drift" in cli("context", "--query", "bun lockfile").out
