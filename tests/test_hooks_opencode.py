"""OpenCode: a session's messages (in the shapes OpenCode's SDK gives them) become one run per
turn, every turn once through the session's cursor; `wikimem install|uninstall opencode` write
and remove the plugin, leaving no trace; the plugin is valid JavaScript, and run under node from
a bare environment it hands the session to the installed `wikimem hook`, which queues each turn
once."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, queued_runs
from tests.test_install_cli import ENTRY
from wikimem.runners import record_from_payload, records_from_payload, session_of
from wikimem.runners.claude import is_claude_payload
from wikimem.runners.opencode import MARKER, is_opencode_payload, plugin_text

FIXTURES = Path(__file__).parent / "fixtures" / "runners" / "opencode"
SESSION = "ses_6aade4081ffe216ygZUgcUQdR1"
NODE = shutil.which("node")


def export() -> dict:
    return json.loads((FIXTURES / "session.json").read_text(encoding="utf-8"))


CHILD = "ses_42e58f5bbffeiOzOYP7HoJBHaT"  # the explore subagent's session


def idle(cwd: str = "/home/ada/shop", messages: list | None = None) -> dict:
    """What the plugin sends at session.idle: the messages, and its subagents' sessions."""
    child = json.loads((FIXTURES / "subagent.json").read_text(encoding="utf-8"))["messages"]
    return {
        "hook_event_name": "session.idle",
        "session_id": SESSION,
        "cwd": cwd,
        "messages": export()["messages"] if messages is None else messages,
        "subagents": {CHILD: child},
    }


def test_each_turn_of_the_session_is_one_run() -> None:
    turns = records_from_payload(idle(), {})

    assert [key for key, _ in turns] == [
        "msg_955200000001AAAAAAAAAAAAAA",
        "msg_955200000004AAAAAAAAAAAAAA",
        "msg_955200000006AAAAAAAAAAAAAA",
    ]  # the compaction's request and summary are no turn
    (_, fixed), (_, stopped), (_, logged) = turns
    assert fixed["run_id"] == f"{SESSION}:msg_955200000001AAAAAAAAAAAAAA"
    assert fixed["task"] == "run the tests and fix the price rounding"
    assert fixed["status"] == "succeeded"
    assert fixed["result"] == "Prices are rounded to cents now; the tests pass."
    assert fixed["agent"] == {"name": "opencode", "instance_id": SESSION}
    assert fixed["evidence"] == [
        {
            "kind": "command",
            "command": "npm test",
            "exit_code": 1,
            "output": "FAIL src/price.test.ts\n  expected 10.99, received 10.989999",
        },
        {
            "kind": "file",
            "path": "src/price.ts",
            "diff": "-return a * b\n+return Math.round(a * b * 100) / 100\n",
        },
        {
            "kind": "command",
            "command": "npm test",
            "exit_code": 0,
            "output": "PASS src/price.test.ts",
        },
    ]
    assert fixed["started_at"] == "2025-09-17T00:44:59Z"
    assert fixed["source"] == {
        "runner": "opencode",
        "event": "session.idle",
        "session_id": SESSION,
        "cwd": "/home/ada/shop",
        "model": "grok-code",
    }
    # the person stopped the second: interrupted, the rejected call not run, the other running
    assert stopped["status"] == "interrupted" and "result" not in stopped
    assert stopped["evidence"] == [
        {
            "kind": "command",
            "command": "rm -rf dist && npm run deploy",
            "ran": False,
            "output": "The user rejected permission to use this specific tool call.",
        },
        {"kind": "command", "command": "npm run build", "running": True},
    ]
    # the subagent's report and its own command, marked as the subagent's, under the parent
    assert logged["evidence"] == [
        {
            "kind": "note",
            "text": "subagent explore (Find the last release) reported: The last release is 1.4.0 "
            "(tag v1.4.0).",
        },
        {
            "kind": "command",
            "command": "git tag --sort=-v:refname | head -1",
            "exit_code": 0,
            "output": "v1.4.0\n",
            "subagent": "explore",
        },
        {
            "kind": "file",
            "path": "CHANGELOG.md",
            "diff": "+## 1.4.1\n+\n+- Round prices to cents.\n",
        },
    ]


def test_every_turn_once_and_a_running_turn_waits() -> None:
    messages = export()["messages"][:3]
    del messages[2]["info"]["time"]["completed"]  # its answer is still being written
    assert records_from_payload(idle(messages=messages), {}) == []
    done = [key for key, _ in records_from_payload(idle(), {})]
    assert records_from_payload(idle(), {}, done) == []
    assert [k for k, _ in records_from_payload(idle(), {}, done[:1])] == done[1:]


def test_a_turn_left_unfinished_is_over_once_a_later_prompt_went_on() -> None:
    """OpenCode crashed in the first turn (its last step never finished), then the session was
    taken up again: at the next session.idle that turn is over, recorded with a note and no
    status; a compaction mid-turn leaves it alone (it may be the turn the compaction continues),
    and a step that finished with tool calls is not a turn's end, except at session.idle."""
    messages = export()["messages"]
    del messages[2]["info"]["time"]["completed"]
    (key, crashed), *rest = records_from_payload(idle(messages=messages), {})
    assert key == "msg_955200000001AAAAAAAAAAAAAA" and len(rest) == 2
    assert "status" not in crashed and "no OpenCode event" in crashed["evidence"][0]["text"]
    compacted = idle(messages=messages) | {"hook_event_name": "session.compacted"}
    assert [k for k, _ in records_from_payload(compacted, {})][0] != key
    stepped = export()["messages"][:3]
    stepped[2]["info"]["finish"] = "tool-calls"
    assert records_from_payload(compacted | {"messages": stepped}, {}) == []
    assert records_from_payload(idle(messages=stepped), {})[0][1]["status"] == "succeeded"


def test_the_export_reads_the_same_and_odd_parts_are_skipped() -> None:
    document = export()
    document["messages"][1]["parts"].extend(
        [None, {"type": "tool", "tool": "bash", "state": "x"}, {"type": "tool", "tool": "edit"}]
    )
    document["messages"].insert(0, {"info": "broken"})
    turns = records_from_payload(document, {})
    assert [r["source"]["event"] for _, r in turns] == ["export"] * 3
    assert turns[0][1]["source"]["cwd"] == "/home/ada/shop"  # the session's directory
    assert len(turns[0][1]["evidence"]) == 3
    # an export holds no subagent session: its report alone
    assert [e["kind"] for e in turns[2][1]["evidence"]] == ["note", "file"]
    failed = export()
    failed["messages"][2]["info"]["error"] = {
        "name": "ProviderAuthError",
        "data": {"message": "bad key"},
    }
    (_, record), *_ = records_from_payload(failed, {})
    assert record["status"] == "failed"
    assert record["evidence"][0] == {"kind": "note", "text": "ProviderAuthError: bad key"}


def test_detection_and_dispatch() -> None:
    assert is_opencode_payload(idle()) and is_opencode_payload(export())
    assert session_of(idle()) == session_of(export()) == f"opencode-{SESSION}"
    assert record_from_payload(idle(), {})["agent"]["name"] == "opencode"
    claude = {"session_id": "s", "hook_event_name": "Stop", "transcript_path": "/t/a.jsonl"}
    assert not is_opencode_payload(claude) and is_claude_payload(claude)
    assert not is_opencode_payload({"task": "x", "messages": []})


def test_the_hook_path_imports_no_heavy_dependency() -> None:
    code = (
        "import json, sys\n"
        "from wikimem.runners import record_from_payload\n"
        f"p = json.loads(open({str(FIXTURES / 'session.json')!r}).read())\n"
        "assert record_from_payload(p, {})['evidence']\n"
        "heavy = {'openai', 'git', 'click', 'jinja2', 'frontmatter', 'filelock', 'httpx'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert out.stdout.strip() == "[]"


def test_install_writes_the_plugin_and_is_idempotent(workspace: Path, cli) -> None:
    git("init", "-q", cwd=workspace)
    exclude = workspace / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    plugin = workspace / ".opencode" / "plugins" / "wikimem.js"

    first = cli("install", "opencode")

    assert first.code == 0, first.err
    assert first.out.startswith(
        f"wrote {plugin}:\n  session.idle, session.compacted: {ENTRY} hook\n"
    )
    text = plugin.read_text()
    assert text.startswith(MARKER) and json.dumps([ENTRY, "hook"]) in text
    assert git("status", "--porcelain", "--untracked-files=all", cwd=workspace) == ""
    assert cli("install", "opencode").out.startswith(f"already installed in {plugin}\n")
    assert plugin.read_text() == text

    assert cli("uninstall", "opencode").out == f"removed the plugin from {plugin}\n"
    assert not (workspace / ".opencode").exists()
    assert exclude.read_bytes() == before
    assert cli("uninstall", "opencode").out == f"nothing to remove in {plugin}\n"


def test_uninstall_leaves_the_folder_as_it_was(workspace: Path, cli) -> None:
    folder = workspace / ".opencode"
    (folder / "plugins").mkdir(parents=True)
    (folder / "plugins" / "notify.ts").write_text("export const N = async () => ({})\n")
    (folder / "opencode.json").write_text('{"$schema": "https://opencode.ai/config.json"}\n')
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    assert cli("install", "opencode").code == 0
    assert cli("uninstall", "opencode").code == 0

    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_a_plugin_file_not_wikimem_s_is_left_alone(workspace: Path, cli) -> None:
    plugin = workspace / ".opencode" / "plugins" / "wikimem.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("export const Mine = async () => ({})\n")
    result = cli("install", "opencode")
    assert result.code == 1 and "not wikimem's plugin" in result.err
    assert cli("uninstall", "opencode").out == f"nothing to remove in {plugin}\n"
    assert plugin.read_text() == "export const Mine = async () => ({})\n"


def test_user_scope_follows_xdg_config_home(
    workspace: Path, isolated_env: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("install", "opencode", "--user").code == 0
    default = isolated_env / ".config" / "opencode" / "plugins" / "wikimem.js"
    assert default.read_text().startswith(MARKER)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(isolated_env / "xdg"))
    assert cli("install", "opencode", "--user", "--command", "wikimem").code == 0
    assert '["wikimem", "hook"]' in (isolated_env / "xdg/opencode/plugins/wikimem.js").read_text()
    assert cli("uninstall", "opencode", "--user").code == 0
    assert (isolated_env / "xdg" / "opencode").is_dir()  # OpenCode's own folder stays
    assert not (workspace / ".opencode").exists()


HARNESS = """
import { readFileSync } from "node:fs"
const [plugin, fixture, child, directory, style] = process.argv.slice(2)
const { WikimemPlugin } = await import(plugin)
const sessions = {}
for (const file of [fixture, child]) {
  const document = JSON.parse(readFileSync(file, "utf8"))
  sessions[document.info.id] = document
}
const asked = []
function answer(args, pick) {
  asked.push(args)
  // "v2": a client that takes { sessionID } and answers the value itself
  const id = style === "v2" ? args.sessionID : args.path && args.path.id
  if (!id) throw new Error("no session id in " + JSON.stringify(args))
  const value = sessions[id] ? pick(sessions[id]) : undefined
  return style === "v2" ? value : { data: value }
}
const client = { session: {
  messages: async (args) => answer(args, (s) => s.messages),
  get: async (args) => answer(args, (s) => s.info),
} }
const hooks = await WikimemPlugin({ client, directory, project: {}, worktree: directory })
await hooks.event({ event: { type: "message.updated", properties: {} } })
for (const id of ["SESSION", "CHILD", "SESSION"]) {  // the child's idle is its parent's
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: id } } })
}
console.log(JSON.stringify(asked))
""".replace("SESSION", SESSION).replace("CHILD", CHILD)


def bare_node(env: dict[str, str], harness: Path) -> list[str]:
    """The argv that runs `harness` under node with `env` alone (`env -i`), as a runner that
    starts OpenCode from a clean environment would; its arguments follow."""
    return ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), NODE, str(harness)]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("style", ["v1", "v2"])
def test_the_plugin_under_node_queues_each_turn_once(
    workspace: Path, isolated_env: Path, cli, style: str
) -> None:
    module = installed_plugin(cli, workspace, isolated_env)
    checked = subprocess.run([NODE, "--check", str(module)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    # OpenCode 1.x runs every function a plugin file exports as a plugin: only the one
    listed = f"import * as m from {json.dumps(str(module))}; console.log(Object.keys(m).join())"
    names = subprocess.run([NODE, "--input-type=module", "-e", listed], capture_output=True)
    assert names.stdout.decode().strip() == "WikimemPlugin", names.stderr
    harness = isolated_env / "harness.mjs"
    harness.write_text(HARNESS)
    fixture, child = isolated_env / "session.json", isolated_env / "subagent.json"
    for path in (fixture, child):  # the fixtures, with this workspace as their folder
        text = (FIXTURES / path.name).read_text(encoding="utf-8")
        path.write_text(text.replace("/home/ada/shop", str(workspace)), encoding="utf-8")
    bare = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(isolated_env),
        "WIKIMEM_HOME": str(isolated_env / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }

    done = subprocess.run(
        bare_node(bare, harness) + [str(module), str(fixture), str(child), str(workspace), style],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=isolated_env,  # OpenCode's own folder: the plugin starts the hook in the project's
    )

    assert done.returncode == 0, done.stderr
    asked = json.loads(done.stdout)
    # each parent idle asks for its session, its messages and its subagent's messages; the
    # child's idle only for its session (it has a parent: nothing more). v2 answers a 2nd try.
    assert len(asked) == (7 if style == "v1" else 14)
    queue = workspace / ".clarvis" / "state" / "queue"
    runs = sorted(
        (json.loads(job.read_text())["run"] for job in queue.glob("*/*.json")),
        key=lambda run: run["started_at"],
    )
    assert [run["task"] for run in runs] == [
        "run the tests and fix the price rounding",
        "deploy it",
        "add a CHANGELOG entry",
    ]  # two session.idle events: each turn once
    assert [run["status"] for run in runs] == ["succeeded", "interrupted", "succeeded"]
    assert runs[0]["agent"] == {"name": "opencode", "instance_id": SESSION}
    assert [
        (e["command"], e["exit_code"]) for e in runs[0]["evidence"] if e["kind"] == "command"
    ] == [
        ("npm test", 1),
        ("npm test", 0),
    ]
    (sub,) = [e for e in runs[2]["evidence"] if e.get("subagent")]
    assert (sub["command"], sub["subagent"]) == ("git tag --sort=-v:refname | head -1", "explore")


def test_the_plugin_names_the_command_it_was_given() -> None:
    text = plugin_text(["/opt/wikimem's venv/bin/wikimem"])
    assert 'const COMMAND = ["/opt/wikimem\'s venv/bin/wikimem", "hook"]' in text


def test_the_project_install_lists_the_context_file_in_opencode_s_instructions(
    workspace: Path, cli
) -> None:
    folder = workspace / ".opencode"
    folder.mkdir()
    config = folder / "opencode.json"
    mine = (
        '{\n\t"$schema": "https://opencode.ai/config.json",\n'
        '\t"instructions": ["CONTRIBUTING.md"]\n}'  # tabs, no final newline
    )
    config.write_text(mine)
    context = folder / "wikimem-context.md"

    result = cli("install", "opencode")

    assert result.code == 0, result.err
    assert f"wrote {config}:\n  instructions: {context}\n" in result.out
    assert json.loads(config.read_text())["instructions"] == ["CONTRIBUTING.md", str(context)]
    assert (
        f"const CONTEXT = {json.dumps(str(context))}" in (folder / "plugins/wikimem.js").read_text()
    )
    assert str(config) not in cli("install", "opencode").out  # idempotent
    assert cli("uninstall", "opencode").code == 0
    assert config.read_text() == mine  # byte for byte
    assert sorted(p.name for p in folder.iterdir()) == ["opencode.json"]


def test_the_user_install_writes_no_context(workspace: Path, isolated_env: Path, cli) -> None:
    assert cli("install", "opencode", "--user").code == 0
    plugin = isolated_env / ".config" / "opencode" / "plugins" / "wikimem.js"
    assert "const CONTEXT = null" in plugin.read_text()
    assert not (workspace / ".opencode").exists()
    assert not (isolated_env / ".config" / "opencode" / "opencode.json").exists()


CONTEXT_HARNESS = """
import { existsSync, readFileSync, unlinkSync } from "node:fs"
const [plugin, directory, context] = process.argv.slice(2)
const { WikimemPlugin } = await import(plugin)
const client = { session: { messages: async () => ({ data: [] }), get: async () => ({}) } }
const hooks = await WikimemPlugin({ client, directory, project: {}, worktree: directory })
const seen = [readFileSync(context, "utf8")]
unlinkSync(context)
const child = { info: { id: "ses_child", parentID: "ses_parent" } }
await hooks.event({ event: { type: "session.created", properties: child } })
seen.push(existsSync(context))
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_new" } } } })
seen.push(readFileSync(context, "utf8"))
console.log(JSON.stringify(seen))
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_plugin_keeps_the_context_file_in_step(
    workspace: Path, isolated_env: Path, cli
) -> None:
    from tests.test_install_cli import PROFILE

    git("init", "-q", cwd=workspace)
    wiki = workspace / ".clarvis" / "memory"
    wiki.mkdir()
    (wiki / "PROFILE.md").write_text(PROFILE)
    module = installed_plugin(cli, workspace, isolated_env)
    harness = isolated_env / "context.mjs"
    harness.write_text(CONTEXT_HARNESS)
    context = workspace / ".opencode" / "wikimem-context.md"
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(isolated_env), "WIKIMEM_LINGER": "0"}
    bare["WIKIMEM_HOME"] = str(isolated_env / ".clarvis")

    done = subprocess.run(
        bare_node(bare, harness) + [str(module), str(workspace), str(context)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=isolated_env,
    )

    assert done.returncode == 0, done.stderr
    at_start, after_child, after_new = json.loads(done.stdout)
    assert at_start.startswith("# acme-web\n")  # written when OpenCode loads the plugin
    assert after_child is False  # a subagent's session: no rewrite
    assert after_new == at_start  # a new session: rewritten
    shown = git("status", "--porcelain", "--untracked-files=all", ".opencode", cwd=workspace)
    assert shown == ""  # the plugin, its context file and the config: all kept out of git


# Real OpenCode sessions (1.2.15, 1.2.20): the event bus as remorses/kimaki captured it from a live
# OpenCode server, from `session.created` to `session.idle` (see real/SOURCES.md). The plugin
# asks `client.session.messages` for the stored messages; those are the last
# `message.updated` info of each message and the last `message.part.updated` of each part
# (with the `message.part.delta` text streamed into it), which is what `bus_session` rebuilds.
REAL = FIXTURES / "real"
INTERRUPTION = REAL / "kimaki-real-session-task-user-interruption.jsonl"
PARALLEL = REAL / "kimaki-real-session-task-three-parallel-sleeps.jsonl"
# The 1.2.15 session edited as OpenCode writes a message the person sends while the turn runs
# (see the folder's README): sent while the `task` call ran, beside which the first step ran
# `git status --short`; the next step answers it (its `parentID`), runs `pnpm vitest run`,
# and the last one the real answer.
MIDTURN = FIXTURES / "mid-turn-message.jsonl"
PROMPT, QUEUED = "msg_cb9b0ba6c001i3YH7bGffdB6BF", "msg_cb9b14b10001Qm7dTz2LpXw9Rk"
SENT = "Message the person sent during the turn: When the task is done, also run the unit tests."


def installed_plugin(cli, workspace: Path, home: Path) -> Path:  # type: ignore[no-untyped-def]
    """`wikimem install opencode`, its plugin copied where node reads it as a module (a `.mjs`,
    whatever node's version)."""
    assert cli("install", "opencode").code == 0
    module = home / "wikimem.mjs"
    shutil.copy(workspace / ".opencode" / "plugins" / "wikimem.js", module)
    return module


def stopped_while_running(workspace: Path) -> dict:
    """The real 1.2.15 session as OpenCode had stored it when it stopped while its subagent
    ran (the `task` call `running`), moved into `workspace`."""
    lines = INTERRUPTION.read_text(encoding="utf-8").splitlines()
    running = next(n for n, line in enumerate(lines) if '"status":"running"' in line) + 1
    session = bus_session(INTERRUPTION, running)
    return json.loads(json.dumps(session).replace(session["info"]["directory"], str(workspace)))


def bus_session(path: Path, upto: int | None = None) -> dict:
    """The session's document (`{"info", "messages"}`, as `opencode export` and the SDK give
    it) from the captured events of its bus (the first `upto` of them: what OpenCode had
    stored when it stopped there)."""
    info: dict = {}
    messages: dict[str, dict] = {}
    parts: dict[str, dict] = {}
    order: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[:upto]:
        event = json.loads(line)["event"]
        kind, props = event["type"], event.get("properties", {})
        if kind in ("session.created", "session.updated") and not props["info"].get("parentID"):
            info = {**info, **props["info"]}
        elif kind == "message.updated":
            messages[props["info"]["id"]] = props["info"]
            order.setdefault(props["info"]["id"], [])
        elif kind == "message.part.updated":
            part = props["part"]
            if part["id"] not in parts:
                order.setdefault(part["messageID"], []).append(part["id"])
            parts[part["id"]] = part
        elif kind == "message.part.delta" and props["partID"] in parts:
            part = parts[props["partID"]]
            part[props["field"]] = part.get(props["field"], "") + props["delta"]
    own = [m for m in messages.values() if m["sessionID"] == info["id"]]
    listed = [{"info": m, "parts": [parts[p] for p in order[m["id"]]]} for m in own]
    return {"info": info, "messages": listed}


def plugin_payload(session: dict) -> dict:
    """What the plugin sends at the session's idle (its subagents' sessions were not captured)."""
    return {
        "hook_event_name": "session.idle",
        "session_id": session["info"]["id"],
        "cwd": session["info"]["directory"],
        "messages": session["messages"],
    }


def test_a_real_session_with_a_subagent_is_one_turn_with_its_report() -> None:
    session = bus_session(INTERRUPTION)
    assert session["info"]["version"] == "1.2.15"
    ((key, run),) = records_from_payload(plugin_payload(session), {})
    assert key == "msg_cb9b0ba6c001i3YH7bGffdB6BF"
    # the person's text, not the parts the client added (synthetic: the Discord user, branch)
    assert run["task"].startswith("REAL_FIXTURE_TASK_INTERRUPT_START. First response MUST call")
    assert "<discord-user" not in run["task"] and "[Current branch" not in run["task"]
    assert run["status"] == "succeeded"
    assert run["result"].startswith("Here are the extensive notes from the long analysis")
    (note,) = run["evidence"]  # the task call's report; the capture keeps no tool inputs
    assert note["kind"] == "note"
    assert "task_id: ses_3464f3a1dffeBBD0d15EqnGjAh" in note["text"]
    assert "<task_result>" in note["text"]


def test_a_message_sent_mid_turn_joins_the_turn_opencode_answers_it_in() -> None:
    session = bus_session(MIDTURN)
    answers = [m["info"] for m in session["messages"] if m["info"]["role"] == "assistant"]
    assert [a["parentID"] for a in answers] == [PROMPT, QUEUED, QUEUED]  # as OpenCode writes it

    ((key, run),) = records_from_payload(plugin_payload(session), {})

    assert key == PROMPT and run["run_id"].endswith(f":{PROMPT}")
    assert run["task"].startswith("REAL_FIXTURE_TASK_INTERRUPT_START.")
    assert run["status"] == "succeeded"
    assert run["result"].startswith("Here are the extensive notes from the long analysis")
    assert run["ended_at"] == "2026-03-04T16:32:40Z"  # the last step's end, after the message
    assert [(e["command"], e["exit_code"]) for e in run["evidence"] if e["kind"] == "command"] == [
        ("git status --short", 0),
        ("pnpm vitest run", 0),
    ]  # the call before the message and the one after it
    notes = [e["text"] for e in run["evidence"] if e["kind"] == "note"]
    assert notes[0] == SENT  # the person's text, not the part the client added
    assert len(notes) == 2 and "task_id: ses_3464f3a1dffeBBD0d15EqnGjAh" in notes[1]


def test_a_message_is_a_turn_of_its_own_once_the_run_had_ended() -> None:
    """Sent after the last step finished with an answer, or after the turn was stopped, the
    message starts the next run; sent after a step that finished with tool calls, the run it
    joins goes on; after a step never finished (OpenCode crashed), it starts a new run."""
    session = bus_session(MIDTURN)
    queued = next(m for m in session["messages"] if m["info"]["id"] == QUEUED)
    first = next(m for m in session["messages"] if m["info"]["role"] == "assistant")
    queued["info"]["time"]["created"] = first["info"]["time"]["completed"] + 1
    joined = records_from_payload(plugin_payload(session), {})
    assert [k for k, _ in joined] == [PROMPT]  # the step had finished with tool calls
    first["info"]["finish"] = "stop"
    assert [k for k, _ in records_from_payload(plugin_payload(session), {})] == [PROMPT, QUEUED]
    first["info"].update(finish="tool-calls", error={"name": "MessageAbortedError", "data": {}})
    (_, stopped), (_, after) = records_from_payload(plugin_payload(session), {})
    assert stopped["status"] == "interrupted" and after["task"] == SENT.split(": ", 1)[1]
    del first["info"]["time"]["completed"], first["info"]["error"]
    keys = [k for k, _ in records_from_payload(plugin_payload(session), {})]
    assert keys == [PROMPT, QUEUED]  # the first run crashed; the message began the next


def test_the_last_messages_sent_begin_mid_turn_and_record_nothing_twice() -> None:
    """The plugin sends a long session's last messages, and the one before them without its
    parts (`before`): a run that began before them was recorded from an earlier event, so the
    message sent mid-turn that opens them makes no turn, nor do answers that open them."""
    payload = plugin_payload(bus_session(MIDTURN))
    messages = payload["messages"]
    at = next(n for n, m in enumerate(messages) if m["info"]["id"] == QUEUED)
    cut = payload | {"messages": messages[at:], "before": messages[at - 1]["info"]}
    assert records_from_payload(cut, {}) == []
    assert records_from_payload(payload | {"messages": messages[at + 1 :]}, {}) == []
    # the message before is another prompt's (no step of its run yet): this one is a prompt
    prompt = payload | {"messages": messages[at:], "before": messages[0]["info"]}
    assert [k for k, _ in records_from_payload(prompt, {})] == [QUEUED]


def test_three_parallel_real_subagents_are_three_reports_in_one_turn() -> None:
    session = bus_session(PARALLEL)
    ((_, run),) = records_from_payload(plugin_payload(session), {})
    assert run["task"] == "start a task to use bash sleep 10. 3 in parallel. using general agent"
    assert run["result"].startswith("Done — I launched 3 **general-agent** tasks in parallel")
    notes = [e["text"] for e in run["evidence"] if e["kind"] == "note"]
    assert len(notes) == 3
    for child in (
        "ses_33d8c8e09ffeOl89nZk9eCHaQy",
        "ses_33d8c8dfaffegsnGJ8wiY4t8Z0",
        "ses_33d8c8df3ffeaweJU2qXGsMqRE",
    ):
        assert sum(f"task_id: {child}" in text for text in notes) == 1
    assert not [e for e in run["evidence"] if e["kind"] in ("command", "file")]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("path", [INTERRUPTION, MIDTURN], ids=["real", "mid-turn message"])
def test_the_installed_plugin_queues_a_real_session_once(
    workspace: Path, isolated_env: Path, cli, path: Path
) -> None:
    module = installed_plugin(cli, workspace, isolated_env)
    session = bus_session(path)
    real, child = session["info"]["id"], "ses_3464f3a1dffeBBD0d15EqnGjAh"
    harness = isolated_env / "harness.mjs"
    harness.write_text(HARNESS.replace(SESSION, real).replace(CHILD, child))
    fixture, sub = isolated_env / "session.json", isolated_env / "subagent.json"
    text = json.dumps(session).replace(session["info"]["directory"], str(workspace))
    fixture.write_text(text, encoding="utf-8")
    # the subagent's session was not captured: the client answers it with no messages
    sub.write_text(json.dumps({"info": {"id": child, "parentID": real}, "messages": []}))
    bare = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(isolated_env),
        "WIKIMEM_HOME": str(isolated_env / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }
    done = subprocess.run(
        bare_node(bare, harness) + [str(module), str(fixture), str(sub), str(workspace), "v1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=isolated_env,
    )
    assert done.returncode == 0, done.stderr
    queue = workspace / ".clarvis" / "state" / "queue"
    (run,) = queued_runs(queue)
    assert run["agent"] == {"name": "opencode", "instance_id": real}
    assert run["task"].startswith("REAL_FIXTURE_TASK_INTERRUPT_START.")
    assert run["status"] == "succeeded"
    commands = [e["command"] for e in run["evidence"] if e["kind"] == "command"]
    assert commands == ([] if path == INTERRUPTION else ["git status --short", "pnpm vitest run"])
    notes = [e["text"] for e in run["evidence"] if e["kind"] == "note"]
    assert (SENT in notes) == (path == MIDTURN)


def filler(after: dict, turns: int) -> list[dict]:
    """`turns` short turns (a prompt and its answer) after the message `after`, then a prompt
    not answered yet, each a millisecond after the one before."""
    at, base = after["info"]["time"]["completed"], {"sessionID": after["info"]["sessionID"]}
    messages = []
    for n in range(2 * turns + 1):
        at += 1
        info = {**base, "id": f"msg_{at * 4096 & (2**48 - 1):012x}Filler{n:08d}"}
        if n % 2:
            info |= {"role": "assistant", "parentID": messages[-1]["info"]["id"], "finish": "stop"}
            info["time"] = {"created": at, "completed": at}
        else:
            info |= {"role": "user", "time": {"created": at}}
        text = {"id": f"prt_{n}", "type": "text", "text": f"reply {n}" if n % 2 else f"ask {n}"}
        messages.append({"info": info, "parts": [text]})
    return messages


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_plugin_sends_the_message_before_its_window_so_a_turn_is_not_split(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """A session longer than the 400 messages the plugin sends, whose window opens on the
    message sent mid-turn: the installed plugin under node hands on the message before it too,
    and the turn recorded at its own idle is not recorded again, nor split."""
    module = installed_plugin(cli, workspace, isolated_env)
    session = bus_session(MIDTURN)
    real = session["info"]["id"]
    session = json.loads(json.dumps(session).replace(session["info"]["directory"], str(workspace)))
    harness = isolated_env / "harness.mjs"
    harness.write_text(
        HARNESS.replace(SESSION, real).replace(CHILD, "ses_3464f3a1dffeBBD0d15EqnGjAh")
    )
    sub = isolated_env / "subagent.json"
    sub.write_text(json.dumps({"info": {"id": "ses_3464f3a1dffeBBD0d15EqnGjAh"}, "messages": []}))
    bare = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(isolated_env),
        "WIKIMEM_HOME": str(isolated_env / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }
    fixture = isolated_env / "session.json"

    def idle(document: dict) -> None:
        fixture.write_text(json.dumps(document), encoding="utf-8")
        done = subprocess.run(
            bare_node(bare, harness) + [str(module), str(fixture), str(sub), str(workspace), "v1"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=isolated_env,
        )
        assert done.returncode == 0, done.stderr

    idle(session)  # the turn's own idle
    at = next(n for n, m in enumerate(session["messages"]) if m["info"]["id"] == QUEUED)
    later = filler(session["messages"][-1], (400 - (len(session["messages"]) - at) - 1) // 2)
    longer = session | {"messages": session["messages"] + later}
    assert longer["messages"][-400]["info"]["id"] == QUEUED  # the window opens on it
    idle(longer)

    runs = queued_runs(workspace / ".clarvis" / "state" / "queue")
    assert len(runs) == 1 + len(later) // 2  # the turn once, each short turn once
    (turn,) = [r for r in runs if r["run_id"].endswith(PROMPT)]
    assert [e["command"] for e in turn["evidence"] if e["kind"] == "command"] == [
        "git status --short",
        "pnpm vitest run",
    ]
    assert not [r for r in runs if QUEUED in r["run_id"]]


def moved(session: dict, to: float) -> dict:
    """The session as if it had last written at `to` (seconds): every time in its messages and
    parts moved by the same amount."""
    text = json.dumps(session)
    stamps = [int(n) for n in re.findall(r'"(?:created|completed|start|end)": (\d{13})', text)]
    shift = int(to * 1000) - max(stamps)

    def move(value: object) -> object:
        if isinstance(value, dict):
            return {
                k: (v + shift if k in TIMES and isinstance(v, int) else move(v))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [move(v) for v in value]
        return value

    return move(session)  # type: ignore[return-value]


TIMES = {"created", "completed", "start", "end"}


def cuts(path: Path) -> list[int]:
    """Where OpenCode may stop in the session: after each event that stores a message or a part."""
    lines = path.read_text(encoding="utf-8").splitlines()
    stores = ("message.updated", "message.part.updated")
    return [n + 1 for n, line in enumerate(lines) if json.loads(line)["event"]["type"] in stores]


def ended(session: dict) -> bool:
    """Whether the session's last message is an answer OpenCode's loop ends a turn with."""
    last = session["messages"][-1]["info"] if session["messages"] else {}
    finish = last.get("finish")
    return "completed" in last.get("time", {}) and finish not in (None, "tool-calls", "unknown")


@pytest.mark.parametrize(
    "path", [INTERRUPTION, PARALLEL, MIDTURN], ids=["1.2.15", "1.2.20", "mid-turn message"]
)
def test_a_real_session_opencode_stopped_anywhere_is_recorded_once_at_a_later_start(
    path: Path, tmp_path: Path
) -> None:
    """OpenCode quit or crashed after any stored event of a real session, so no session.idle
    came. The plugin hands the session on at the next start: a turn that had ended is recorded
    then; one cut mid-way only once the session has been still for 30 minutes (it may be running
    in another OpenCode), with no status and a note. Every turn is queued once, whatever fires
    after (more starts, the session's idle and compaction had it gone on). A message the person
    sent mid-turn never makes a turn of its own: the turn is one run, and its commands are
    those of the steps stored by then, before and after the message."""
    from wikimem import config
    from wikimem.intake.accept import accept
    from wikimem.runners.opencode import UNREPORTED

    full = bus_session(path)
    (turn,) = records_from_payload(plugin_payload(full), {})
    everything = [e["command"] for e in turn[1]["evidence"] if e["kind"] == "command"]
    assert len(everything) == (2 if path == MIDTURN else 0)
    end = next(n for n in cuts(path) if ended(bus_session(path, n)))
    for n in cuts(path):
        stopped = bus_session(path, n)
        answered = any(m["info"]["role"] == "assistant" for m in stopped["messages"])
        folder = tmp_path / str(n)
        (folder / ".clarvis").mkdir(parents=True)
        places = config.places(folder, {})
        pickup = plugin_payload(stopped) | {"hook_event_name": "session.pickup"}
        just = accept(places, {}, json.dumps(moved(pickup, time.time())).encode())
        later = accept(places, {}, json.dumps(pickup).encode())  # the real times: months ago
        for again in ("session.pickup", "session.idle", "session.compacted"):
            assert (
                accept(places, {}, json.dumps(pickup | {"hook_event_name": again}).encode()).job
                is None
            )
        queue = folder / ".clarvis" / "state" / "queue"
        assert len(queued_runs(queue)) == (1 if answered else 0), n
        # had it gone on to its end: its idle records the turn only if nothing did before
        assert bool(accept(places, {}, json.dumps(plugin_payload(full)).encode()).job) != answered
        (run,) = queued_runs(queue)
        if not answered:
            continue
        assert run["run_id"] == turn[1]["run_id"] and run["task"] == turn[1]["task"]
        ran = [e["command"] for e in run["evidence"] if e["kind"] == "command"]
        assert ran == everything[: len(ran)], n  # none lost in between, none twice
        if n >= end:  # the turn had ended: recorded at the first start
            assert just.job and later.job is None, n
            assert run["status"] == "succeeded" and run["result"] == turn[1]["result"]
            assert ran == everything and run["evidence"] == turn[1]["evidence"], n
        else:  # cut mid-way: only once the session has been still, its outcome unknown
            assert just.job is None and later.job, n
            assert not run["status"] and run["evidence"][0]["text"] == UNREPORTED


PICKUP_HARNESS = """
import { readFileSync } from "node:fs"
const [plugin, fixture, directory, created] = process.argv.slice(2)
const { WikimemPlugin } = await import(plugin)
const sessions = JSON.parse(readFileSync(fixture, "utf8")) // [{ info, messages }], as stored
const byId = Object.fromEntries(sessions.map((s) => [s.info.id, s]))
const asked = []
const client = { session: {
  list: async (args) => (asked.push(["list"]), { data: sessions.map((s) => s.info) }),
  messages: async (args) => (asked.push(["messages", args.path.id]), {
    data: (byId[args.path.id] || { messages: [] }).messages,
  }),
  get: async (args) => ({ data: (byId[args.path.id] || {}).info }),
} }
process.on("exit", () => console.log(JSON.stringify(asked))) // once the hand-on is done
const hooks = await WikimemPlugin({ client, directory, project: {}, worktree: directory })
if (created) {
  const info = { id: created, directory, time: { created: Date.now(), updated: Date.now() } }
  await hooks.event({ event: { type: "session.created", properties: { info } } })
}
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_installed_plugin_records_a_real_session_opencode_crashed_in_at_its_next_start(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """The real 1.2.15 session, stopped while its subagent ran (the `task` call `running`):
    no session.idle came. When OpenCode starts again the plugin, run by node from a bare
    environment, lists the folder's sessions and hands on the ones written last (not a
    subagent's, not another folder's); the installed `wikimem hook` queues the stopped turn once,
    and the next start (and a new session's creation) queues nothing more."""
    module = installed_plugin(cli, workspace, isolated_env)
    harness = isolated_env / "pickup.mjs"
    harness.write_text(PICKUP_HARNESS)
    stopped = stopped_while_running(workspace)
    real = stopped["info"]["id"]
    child = {"info": {"id": "ses_child", "parentID": real, "directory": str(workspace)}}
    elsewhere = {"info": {"id": "ses_elsewhere", "directory": "/srv/other"}, "messages": []}
    fixture = isolated_env / "sessions.json"
    fixture.write_text(json.dumps([child | {"messages": []}, elsewhere, stopped]))
    bare = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(isolated_env),
        "WIKIMEM_HOME": str(isolated_env / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }

    def start(*created: str) -> list:
        done = subprocess.run(
            bare_node(bare, harness) + [str(module), str(fixture), str(workspace), *created],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=isolated_env,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    asked = start()

    assert asked == [["list"], ["messages", real]]  # neither the subagent's nor elsewhere
    queue = workspace / ".clarvis" / "state" / "queue"
    (run,) = queued_runs(queue)
    assert run["run_id"] == f"{real}:msg_cb9b0ba6c001i3YH7bGffdB6BF"
    assert run["task"].startswith("REAL_FIXTURE_TASK_INTERRUPT_START.")
    assert not run["status"] and "no OpenCode event reported" in run["evidence"][0]["text"]
    assert run["source"]["event"] == "session.pickup"
    # every turn of it is recorded now: the next starts list the sessions and ask for no more
    assert start() == [["list"]]
    assert start("ses_new") in ([["list"]], [["list"]] * 2)  # at its start, at the new session
    assert len(queued_runs(queue)) == 1


IDLE_HARNESS = PICKUP_HARNESS.replace(
    "const [plugin, fixture, directory, created]", "const [plugin, fixture, directory, idle]"
).replace(
    "if (created) {",
    """for (const id of (idle || "").split(",").filter(Boolean)) {
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: id } } })
}
if (false) {""",
)


def finished_copy(n: int, workspace: Path, updated: int) -> dict:
    """The fixture session (its turns all ended) as the n-th of its kind in `workspace`, last
    written at `updated` (ms)."""
    document = json.loads(json.dumps(export()).replace("/home/ada/shop", str(workspace)))
    document["info"] = {**document["info"], "id": f"ses_done{n}"}
    document["info"]["time"] = {"created": updated - 60000, "updated": updated}
    return document


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_crashed_session_older_than_the_three_written_last_is_recorded_once(
    workspace: Path, isolated_env: Path, cli
) -> None:
    """The real 1.2.15 session stopped while its subagent ran (no session.idle); then four
    sessions ran to their end in the same folder, each turn recorded at its session.idle. The
    crashed one is no longer among the 3 written last, yet the next start hands it on, and it
    alone: `wikimem hook` notes each session whose every turn it holds (with its time.updated),
    and the plugin passes those by. Its stopped turn is queued once; the start after that asks
    for no session's messages. The plugin runs under node from a bare environment, each hook
    is the installed `wikimem hook`."""
    from wikimem.runners.opencode import FINISHED

    git("init", "-q", cwd=workspace)
    module = installed_plugin(cli, workspace, isolated_env)
    harness = isolated_env / "idle.mjs"
    harness.write_text(IDLE_HARNESS)
    crashed = stopped_while_running(workspace)
    real = crashed["info"]["id"]
    later = crashed["info"]["time"]["updated"]
    done = [finished_copy(n, workspace, later + n * 600000) for n in range(1, 5)]
    fixture = isolated_env / "sessions.json"
    fixture.write_text(json.dumps([crashed, *done]))
    bare = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(isolated_env),
        "WIKIMEM_HOME": str(isolated_env / ".clarvis"),
        "WIKIMEM_LINGER": "0",
    }

    def start(*idle: str) -> list:
        ran = subprocess.run(
            bare_node(bare, harness) + [str(module), str(fixture), str(workspace), ",".join(idle)],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=isolated_env,
        )
        assert ran.returncode == 0, ran.stderr
        return json.loads(ran.stdout.strip().splitlines()[-1])

    queue = workspace / ".clarvis" / "state" / "queue"
    start(*(d["info"]["id"] for d in done))  # OpenCode ran the four (its start's pickup too)
    assert len(queued_runs(queue)) == 4 * 3  # each turn of each once; the crashed one not yet
    noted = json.loads((workspace / ".clarvis" / "state" / FINISHED).read_text())["sessions"]
    assert noted == {d["info"]["id"]: d["info"]["time"]["updated"] for d in done}

    assert start() == [["list"], ["messages", real]]  # past the four: the crashed one alone

    runs = queued_runs(queue)
    (stopped,) = [r for r in runs if r["agent"]["instance_id"] == real]
    assert stopped["run_id"] == f"{real}:msg_cb9b0ba6c001i3YH7bGffdB6BF"
    assert not stopped["status"] and "no OpenCode event reported" in stopped["evidence"][0]["text"]
    assert len(runs) == len({r["run_id"] for r in runs}) == 13
    assert start() == [["list"]]  # every session recorded in full: no messages asked for
    assert len(queued_runs(queue)) == 13
    # a finished session written again (a new prompt touches its time.updated) is handed on
    done[0]["info"]["time"]["updated"] = later + 10 * 600000
    fixture.write_text(json.dumps([crashed, *done]))
    assert start() == [["list"], ["messages", "ses_done1"], ["messages", CHILD]]  # its subagent
    assert len(queued_runs(queue)) == 13  # nothing new in it: nothing queued


def test_a_session_is_noted_finished_only_once_its_cursor_holds_every_turn(
    workspace: Path,
) -> None:
    """The record the pickup reads names a session only after its turns are queued: not while
    its last turn may still run, not when no `updated` came with it; a compaction's own request
    is no turn left."""
    from wikimem import config
    from wikimem.intake.accept import accept
    from wikimem.runners.opencode import FINISHED, finished_sessions

    places = config.places(workspace, {})
    record = workspace / ".clarvis" / "state" / FINISHED
    payload = idle(str(workspace)) | {"hook_event_name": "session.pickup"}
    first, second, third = json.loads(json.dumps(payload["messages"][:3]))
    third["info"]["time"] = {"created": int(time.time() * 1000)}  # a step being written now
    running = payload | {"messages": [first, second, third], "updated": 5}
    assert accept(places, {}, json.dumps(running).encode()).job is None
    assert finished_sessions(record) == {}  # its turn may still run
    assert accept(places, {}, json.dumps(payload).encode()).job  # no updated: not noted
    assert finished_sessions(record) == {}
    assert accept(places, {}, json.dumps(payload | {"updated": 7}).encode()).job is None
    assert finished_sessions(record) == {SESSION: 7}
    assert accept(places, {}, json.dumps(payload | {"updated": 6}).encode()).job is None
    assert finished_sessions(record) == {SESSION: 7}  # never moved back
    unanswered = {"info": {"id": "msg_z", "role": "user", "time": {"created": 1}}, "parts": []}
    asked = payload | {"messages": [*payload["messages"], unanswered], "updated": 9}
    assert accept(places, {}, json.dumps(asked).encode()).job is None
    assert finished_sessions(record) == {SESSION: 7}  # a prompt not answered yet


def test_the_plugin_s_start_picks_up_another_runner_s_crashed_session(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the plugin sends `wikimem start` when OpenCode loads it (a project install) is a
    start like any other runner's: a real Claude Code session of the workspace that crashed
    after its first turn is handed on once."""
    from tests.test_real_sessions import CLAUDE, an_hour_on, handed_on
    from tests.test_real_sessions import SESSION as CLAUDE_SESSION
    from wikimem import config
    from wikimem.cli import start
    from wikimem.intake.accept import accept

    lines = CLAUDE.read_text().splitlines(keepends=True)
    second = next(i for i, ln in enumerate(lines) if "e6e29cbd-ee75-4ba7" in ln and '"uuid"' in ln)
    transcript = tmp_path / f"{CLAUDE_SESSION}.jsonl"
    transcript.write_text("".join(lines[:second]))
    stop = {"session_id": CLAUDE_SESSION, "transcript_path": str(transcript), "cwd": "/tmp/x"}
    places = config.places(workspace, {})
    assert accept(places, {}, json.dumps(stop | {"hook_event_name": "Stop"}).encode()).job
    transcript.write_text("".join(lines))  # its later turns, then the crash
    handed = handed_on(monkeypatch)
    an_hour_on(monkeypatch, transcript)
    loaded = {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(workspace)}

    start.context({"--runner": "opencode"}, loaded, False)
    start.context({"--runner": "opencode"}, loaded, False)

    assert [(h["session_id"], h["source"]) for h in handed] == [(CLAUDE_SESSION, "resume")]
