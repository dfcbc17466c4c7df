"""The effective provider owns the memory: show, start, the MCP server's tools and the pass's
prompt read from it, and the commands that work on the wiki's files or history refuse in one
line. Against the real MCP memory server (tests/mcp_memory_server.py) and an entry-point
plugin, with the CLI run in-process and as a real process."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, git, run_wikimem, trust_config
from tests.mcp_forkserver import command
from tests.openai_server import Reply
from tests.test_pipeline import model_env
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.providers.mcp import McpProvider
from wikimem.wiki.edit import Edit
from wikimem.wiki.workspace import init

pytest.importorskip("mcp")
LOCKFILE = "`bun install --frozen-lockfile` fails when the lockfile drifted; run `bun install`."
ENTRY = "build/bun#lockfile-drift"
WIKI_ONLY = "works on the wiki provider only"


def use_mcp(workspace: Path, store: Path, *more: str) -> tuple[config.Places, config.Settings]:
    """A workspace whose memory is the MCP memory server, holding one entry."""
    text = f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(command(store, *more))}\n"
    (workspace / ".clarvis" / "config.toml").write_text(text, encoding="utf-8")
    trust_config(workspace / ".clarvis" / "config.toml")
    McpProvider(shlex.split(command(store))).apply(
        [Edit("add", "build/bun", "lockfile-drift", "Lockfile drift", "procedural", LOCKFILE)],
        "seed",
    )
    places = config.places(workspace, {})
    return places, config.load(places, {})


PLUGIN = """\
from wikimem.providers import Capabilities, Found

class Notes:
    name = "notes"
    def __init__(self, places, settings): pass
    def capabilities(self): return Capabilities(search={search}, context={context}, write=False)
    def read(self, ref):
        if ref == "boom": raise RuntimeError("the notes service went away")
        return "note " + ref
    def search(self, query, limit): return [Found("n1", "Note one", "about " + query)]
    def context(self, query, budget): return "notes about " + query + "." * 500
    def apply(self, edits, summary): raise AssertionError("read-only")
"""


def use_plugin(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, search: bool = True, context: bool = True
) -> None:
    """A workspace whose memory is a plugin registered under the entry point group."""
    site = workspace.parent / "site"
    (site / "notes_plugin").mkdir(parents=True, exist_ok=True)
    (site / "notes_plugin" / "__init__.py").write_text(
        PLUGIN.format(search=search, context=context)
    )
    info = site / "notes_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: notes-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[wikimem.providers]\nnotes = notes_plugin:Notes\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "notes_plugin", raising=False)  # another test's plugin
    (workspace / ".clarvis" / "config.toml").write_text("[memory]\nprovider = 'notes'\n")
    trust_config(workspace / ".clarvis" / "config.toml")


# -- show -----------------------------------------------------------------------------------------


def test_show_reads_from_the_mcp_provider(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    use_mcp(workspace, workspace / "graph.json")  # no `wikimem init`: the wiki is not the memory
    shown = cli("show", ENTRY)
    assert shown.code == 0 and shown.out.startswith(f"## {ENTRY}\n") and LOCKFILE in shown.out
    overview = cli("show")  # no ref: the provider's whole memory, as its context
    assert overview.code == 0 and f"- {ENTRY}: Lockfile drift" in overview.out
    as_json = json.loads(cli("show", ENTRY, "--json").out)
    assert as_json["provider"] == "mcp" and LOCKFILE in as_json["text"]
    nothing = cli("search", "kubernetes")
    assert nothing.code == 0 and nothing.out == "" and nothing.err == "wikimem: no memory matches\n"
    missing = cli("show", "build/nothing#here")
    assert missing.code == 1 and missing.err.strip().count("\n") == 0
    assert "no memory named 'build/nothing#here'" in missing.err
    why = cli("show", ENTRY, "--why")
    assert why.code == 1 and "`wikimem show --why` works on the wiki provider only" in why.err


def test_show_under_a_plugin_reads_it_and_says_when_it_cannot(  # type: ignore[no-untyped-def]
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_plugin(workspace, monkeypatch, context=False)
    assert cli("show", "n1").out == "note n1\n"
    overview = cli("show")
    assert overview.code == 1 and overview.out == ""
    assert "memory provider 'notes' gives no overview" in overview.err
    failed = cli("show", "boom")  # the plugin raises: one line, exit 1, no traceback
    assert failed.code == 1
    assert failed.err.strip() == (
        "wikimem: error: memory provider 'notes' failed: the notes service went away"
    )


def test_a_provider_without_search_refuses_a_search(  # type: ignore[no-untyped-def]
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_plugin(workspace, monkeypatch, search=False)
    found = cli("search", "lockfile")
    assert found.code == 1 and "memory provider 'notes' cannot search memory" in found.err
    context = cli("context", "--query", "lockfile", "--budget", "40", "--json")
    assert json.loads(context.out) == {
        "text": "notes about lockfile" + "." * 20,
        "chars": 40,
        "provider": "notes",
    }  # a plugin's context is cut to the budget whatever it returns


# -- refusals -------------------------------------------------------------------------------------

WIKI_COMMANDS = [
    ("timeline", "april"),
    ("compact",),
    ("lint",),
    ("log",),
    ("forget", "build/bun"),
    ("trash",),
    ("restore", "build/bun"),
    ("purge", "--yes"),
    ("undo", "HEAD"),
    ("verify",),
    ("export",),
    ("import", "-"),
    ("sync",),
    ("search", "--why", "lockfile"),
]


@pytest.mark.parametrize("args", WIKI_COMMANDS, ids=lambda a: " ".join(a))
def test_commands_on_the_wikis_history_refuse_under_another_provider(  # type: ignore[no-untyped-def]
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    use_plugin(workspace, monkeypatch)
    places = config.places(workspace, {})
    init(places, config.load(places, {}))  # a wiki there is not the memory: left alone
    head = git("rev-parse", "HEAD", cwd=places.wiki)
    done = cli(*args)
    name = " ".join(a for a in args if a.startswith("--why") or a == args[0])
    assert done.code == 1 and done.out == ""
    assert done.err == f"wikimem: error: memory.provider is 'notes': `wikimem {name}` {WIKI_ONLY}\n"
    assert git("rev-parse", "HEAD", cwd=places.wiki) == head


def test_a_scheduled_compaction_does_not_run_under_another_provider(  # type: ignore[no-untyped-def]
    workspace: Path, cli
) -> None:
    places, _ = use_mcp(workspace, workspace / "graph.json")
    with (workspace / ".clarvis" / "config.toml").open("a") as config_file:
        config_file.write("[compact]\nevery_hours = 1\n")
    trust_config(workspace / ".clarvis" / "config.toml")
    init(places, config.load(places, {}))
    assert cli("index").code == 0
    assert not (places.state / "compact.json").exists()  # the schedule was never consulted
    (workspace / ".clarvis" / "config.toml").write_text("[compact]\nevery_hours = 1\n")
    assert cli("index").code == 0
    assert (places.state / "compact.json").exists()  # on the wiki, the same pass consults it


# -- start ----------------------------------------------------------------------------------------


def test_start_prints_the_providers_context_within_the_budget(workspace: Path) -> None:
    use_mcp(workspace, workspace / "graph.json")
    started = run_wikimem("start", "--runner", "codex", "--query", "lockfile", cwd=workspace)
    assert started.returncode == 0 and started.stderr == b""
    assert f"- {ENTRY}: Lockfile drift".encode() in started.stdout
    small = run_wikimem("start", "--budget", "25", "--query", "lockfile", "--json", cwd=workspace)
    data = json.loads(small.stdout)
    assert data["provider"] == "mcp" and data["chars"] == 25 and data["budget"] == 25
    assert data["text"] == f"# Memory\n\n- {ENTRY}"[:25]


def test_start_fails_open_when_the_provider_fails(workspace: Path) -> None:
    places = config.places(workspace, {})
    places.workspace_config.write_text(
        f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(str(workspace / 'no-server'))}\n"
    )
    trust_config(places.workspace_config)
    started = run_wikimem("start", "--query", "lockfile", cwd=workspace, input="{}")
    assert started.returncode == 0 and started.stdout == b""
    err = started.stderr.decode()
    assert err.startswith("wikimem start: MCP memory server ") and err.count("\n") == 1


def test_start_under_a_plugin_is_its_context_and_fails_open_without_one(  # type: ignore[no-untyped-def]
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_plugin(workspace, monkeypatch)
    started = cli("start", "--runner", "claude", "--budget", "30", "--query", "lockfile")
    assert started.code == 0 and started.out == ("notes about lockfile" + "." * 500)[:30]
    use_plugin(workspace, monkeypatch, context=False)
    refused = cli("start", "--query", "lockfile")
    assert refused.code == 0 and refused.out == ""
    assert refused.err == (
        "wikimem start: memory provider 'notes' cannot give a start-of-task context\n"
    )


# -- the MCP server wikimem serves ----------------------------------------------------------------


def test_the_mcp_servers_tools_answer_from_the_provider(workspace: Path) -> None:
    from tests.test_mcp import is_error, server, talk, text_of

    use_mcp(workspace, workspace / "graph.json")
    tools, (found, shown, overview, context, timeline, missing) = talk(
        server(workspace),
        [
            ("memory_search", {"query": "frozen-lockfile", "limit": 3}),
            ("memory_show", {"ref": ENTRY}),
            ("memory_show", {"ref": ""}),
            ("memory_context", {"query": "bun lockfile", "budget": 60}),
            ("memory_timeline", {"query": "april"}),
            ("memory_show", {"ref": "build/nothing#here"}),
        ],
    )
    assert set(tools) == {"memory_search", "memory_show", "memory_context"}
    assert not is_error(found) and json.loads(text_of(found))["ref"] == ENTRY
    assert LOCKFILE in text_of(shown) and f"- {ENTRY}" in text_of(overview)
    assert text_of(context) == f"# Memory\n\n- {ENTRY}: Lockfile drift {LOCKFILE}"[:60]
    assert is_error(timeline) and text_of(timeline) == (
        f"memory.provider is 'mcp': memory_timeline {WIKI_ONLY} (it reads the wiki's git history)"
    )
    assert is_error(missing) and "no memory named" in text_of(missing)


# -- the pass's prompt ----------------------------------------------------------------------------


def test_the_pass_shows_the_model_the_providers_memory(workspace: Path, openai_server) -> None:  # type: ignore[no-untyped-def]
    places, _ = use_mcp(workspace, workspace / "graph.json")
    settings = config.load(places, model_env(openai_server))
    init(places, settings)
    openai_server.script(Reply.plan({"summary": "nothing", "edits": []}))
    run = {"run_id": "r1", "task": "fix the bun lockfile on CI", "result": "x" * 300}
    enqueue(places, settings, run)
    assert [o.outcome for r in drain(places, settings) for o in r.outcomes] == ["no change"]
    user = openai_server.requests[-1].body["messages"][1]["content"]
    assert "kept by the memory provider 'mcp'" in user
    assert f"- {ENTRY}: Lockfile drift" in user and LOCKFILE in user
    assert "# The wiki as it is now" not in user and "PROFILE.md" not in user


def test_a_provider_without_context_is_named_in_the_prompt_with_nothing_shown(  # type: ignore[no-untyped-def]
    workspace: Path, openai_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_plugin(workspace, monkeypatch, context=False)
    places = config.places(workspace, {})
    settings = config.load(places, model_env(openai_server))
    init(places, settings)
    openai_server.script(Reply.plan({"summary": "nothing", "edits": []}))
    enqueue(places, settings, {"run_id": "r1", "task": "fix the build", "result": "x" * 300})
    drain(places, settings)
    user = openai_server.requests[-1].body["messages"][1]["content"]
    assert "(it gave nothing for these runs: none of its memory is shown)" in user
    assert "notes about" not in user


def test_the_mcp_servers_tools_under_a_plugin_keep_to_its_capabilities(  # type: ignore[no-untyped-def]
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_mcp import is_error, server, talk, text_of

    use_plugin(workspace, monkeypatch, search=False)
    site = str(workspace.parent / "site")
    _, (found, shown, failed, context) = talk(
        server(workspace, env={"PYTHONPATH": f"{ROOT}{os.pathsep}{site}"}),
        [
            ("memory_search", {"query": "lockfile"}),
            ("memory_show", {"ref": "n1"}),
            ("memory_show", {"ref": "boom"}),
            ("memory_context", {"query": "bun", "budget": 12}),
        ],
    )
    assert is_error(found) and text_of(found).endswith(
        ": memory provider 'notes' cannot search memory"
    )
    assert text_of(shown) == "note n1"
    assert is_error(failed)
    assert text_of(failed).endswith(": memory provider 'notes' failed: the notes service went away")
    assert text_of(context) == "notes about "
