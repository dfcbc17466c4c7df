"""`wikimem deliver`: the prompt and failed-command hooks, through the installed command under
`env -i` with the runners' payloads, on a wiki an offline pass learned from a real failure."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git
from wikimem import config
from wikimem.indexing.drain import drain
from wikimem.intake.accept import enqueue
from wikimem.recall import injections
from wikimem.recall.cues import prompt_entries
from wikimem.recall.events import read_event
from wikimem.recall.symptoms import failure_entries, programs
from wikimem.wiki.workspace import init

HOOKS = Path(__file__).parent / "fixtures" / "runners" / "hooks"
LESSONS = Path(__file__).parent / "data" / "offline_lessons"
ENTRY = str(Path(sys.executable).parent / "wikimem")


def payload(name: str, **changes: object) -> dict:
    data = json.loads((HOOKS / name).read_text(encoding="utf-8"))
    data.update(changes)
    return data


def learn_from(workspace: Path, *cases: str) -> config.Places:
    """An offline pass over the runs of the named lesson cases (real failure outputs)."""
    places = config.places(workspace, {})
    settings = config.load(places, {})
    init(places, settings)
    for case in cases:
        for run in json.loads((LESSONS / case).read_text(encoding="utf-8"))["runs"]:
            enqueue(places, settings, run)
    drain(places, settings)
    return places


def deliver(workspace: Path, home: Path, data: dict, runner: str = "claude") -> tuple[str, str]:
    """The installed command, as a runner starts it: no venv on PATH, nothing else set."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "WIKIMEM_HOME": str(home / ".clarvis")}
    done = subprocess.run(
        ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items())]
        + [ENTRY, "deliver", "--runner", runner],
        cwd=workspace,
        input=json.dumps(data).encode(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0
    return done.stdout.decode(), done.stderr.decode()


@pytest.fixture
def bun_wiki(workspace: Path, isolated_env: Path) -> config.Places:
    return learn_from(workspace, "01-bun-lockfile.json", "06-fly-port.json")


def context_of(out: str, event: str) -> str:
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == event
    return str(answer["additionalContext"])


@pytest.mark.parametrize(
    ("runner", "fixture", "event"),
    [
        ("claude", "claude-post-tool-use-failure-bash.json", "PostToolUseFailure"),
        ("codex", "codex-post-tool-use-bash-failed.json", "PostToolUse"),
    ],
)
def test_a_failure_seen_before_gets_its_fix_once(
    bun_wiki: config.Places, isolated_env: Path, runner: str, fixture: str, event: str
) -> None:
    data = payload(fixture, cwd=str(bun_wiki.workspace))

    out, err = deliver(bun_wiki.workspace, isolated_env, data, runner)

    assert err == ""
    text = context_of(out, event)
    assert "build/bun#" in text and "bun install" in text and len(text) <= 2000
    assert "fly" not in text  # the other lesson has nothing to do with it
    (logged,) = injections.read_all(bun_wiki.state)
    assert logged["event"] == event and logged["runner"] == runner
    assert logged["session"] == data["session_id"]
    assert [str(e).split("#")[0] for e in logged["entries"]] == ["build/bun"]  # type: ignore[attr-defined]
    again, _ = deliver(bun_wiki.workspace, isolated_env, data, runner)
    assert again == ""  # this session holds it already


@pytest.mark.parametrize(
    ("runner", "fixture"),
    [("claude", "claude-post-tool-use-bash.json"), ("codex", "codex-post-tool-use-bash-ok.json")],
)
def test_a_command_that_succeeds_gets_nothing(
    bun_wiki: config.Places, isolated_env: Path, runner: str, fixture: str
) -> None:
    out, err = deliver(bun_wiki.workspace, isolated_env, payload(fixture), runner)
    assert (out, err) == ("", "")
    assert injections.read_all(bun_wiki.state) == []


def test_an_error_the_wiki_does_not_know_gets_nothing(
    bun_wiki: config.Places, isolated_env: Path
) -> None:
    unknown = payload(
        "claude-post-tool-use-failure-bash.json",
        error="Exit code 1\nbun install v1.1.30 (7b5a6c6f)\n"
        "error: GET https://registry.npmjs.org/zod - 503\nerror: zod@3.24.1 failed to resolve",
    )
    assert deliver(bun_wiki.workspace, isolated_env, unknown) == ("", "")
    other_program = payload(
        "claude-post-tool-use-failure-bash.json",
        tool_input={"command": "cargo build"},
        error="Exit code 101\nerror: lockfile had changes, but lockfile is frozen",
    )
    assert deliver(bun_wiki.workspace, isolated_env, other_program) == ("", "")


@pytest.mark.parametrize("runner", ["claude", "codex"])
def test_a_prompt_gets_the_entries_its_words_point_to(
    bun_wiki: config.Places, isolated_env: Path, runner: str
) -> None:
    data = payload(f"{runner}-user-prompt-submit.json")

    out, _ = deliver(bun_wiki.workspace, isolated_env, data, runner)

    text = context_of(out, "UserPromptSubmit")
    assert "build/bun#" in text and len(text) <= 2000
    unrelated = payload(f"{runner}-user-prompt-submit.json", prompt="Rename the header component")
    assert deliver(bun_wiki.workspace, isolated_env, unrelated, runner) == ("", "")


def test_nothing_without_a_wiki_when_paused_or_on_a_broken_payload(
    workspace: Path, isolated_env: Path, bun_wiki: config.Places
) -> None:
    data = payload("claude-post-tool-use-failure-bash.json")
    bun_wiki.paused_flag.parent.mkdir(parents=True, exist_ok=True)
    bun_wiki.paused_flag.write_text("")
    assert deliver(workspace, isolated_env, data) == ("", "")
    bun_wiki.paused_flag.unlink()
    bare = workspace.parent / "bare"
    bare.mkdir()
    git("init", "-q", cwd=bare)
    assert deliver(bare, isolated_env, data) == ("", "")
    done = subprocess.run(
        [ENTRY, "deliver"], cwd=workspace, input=b"[not json", capture_output=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, b"")


def test_the_budget_holds_and_zero_turns_it_off(
    bun_wiki: config.Places, isolated_env: Path
) -> None:
    data = payload("claude-post-tool-use-failure-bash.json")
    (bun_wiki.clarvis / "config.toml").write_text("[recall]\nbudget = 0\n")
    assert deliver(bun_wiki.workspace, isolated_env, data) == ("", "")
    (bun_wiki.clarvis / "config.toml").write_text("[recall]\nbudget = 300\n")
    out, _ = deliver(bun_wiki.workspace, isolated_env, data)
    assert 0 < len(context_of(out, "PostToolUseFailure")) <= 300


def test_events_are_read_from_both_runners_payloads() -> None:
    failed = read_event(payload("codex-post-tool-use-bash-failed.json"))
    assert (failed.kind, failed.command) == ("failure", "bun install --frozen-lockfile")
    assert "lockfile had changes" in failed.error
    assert read_event(payload("codex-post-tool-use-bash-ok.json")).kind == "other"
    assert read_event(payload("claude-post-tool-use-bash.json")).kind == "other"
    wrapped = payload(
        "codex-post-tool-use-bash-failed.json",
        tool_input={"command": ["bash", "-lc", "cd web && bun test"]},
        tool_response={"exit_code": 1, "output": "1 fail"},
    )
    assert read_event(wrapped).command == "cd web && bun test"
    assert read_event({"hook_event_name": "PostToolUse", "tool_name": "Edit"}).kind == "other"
    assert read_event({"hook_event_name": "UserPromptSubmit", "prompt": " "}).kind == "other"
    assert read_event({"hook_event_name": 7, "prompt": ["x"]}).kind == "other"
    assert programs("FOO=1 sudo ./node_modules/.bin/vite build | tee log; make") == [
        "vite",
        "make",
    ]


def test_the_failure_hook_answers_fast(bun_wiki: config.Places) -> None:
    index = bun_wiki.state / "search.sqlite"
    event = read_event(payload("claude-post-tool-use-failure-bash.json"))
    failure_entries(index, event.command, event.error)  # warm
    began = time.perf_counter()
    for _ in range(20):
        assert failure_entries(index, event.command, event.error)
        prompt_entries(index, "bun lockfile frozen install")
    assert (time.perf_counter() - began) / 20 < 0.05


@pytest.mark.parametrize("runner", ["claude", "codex"])
def test_install_adds_the_in_loop_hooks_and_uninstall_removes_them(
    bun_wiki: config.Places, isolated_env: Path, cli, runner: str
) -> None:
    assert cli("install", runner).code == 0
    if runner == "claude":
        hooks = bun_wiki.workspace / ".claude" / "settings.local.json"
        failure, fixture = "PostToolUseFailure", "claude-post-tool-use-failure-bash.json"
    else:
        hooks = isolated_env / ".codex" / "hooks.json"
        failure, fixture = "PostToolUse", "codex-post-tool-use-bash-failed.json"
    table = json.loads(hooks.read_text(encoding="utf-8"))["hooks"]
    (group,) = table[failure]
    assert group["matcher"] == "Bash"
    (prompt_group,) = table["UserPromptSubmit"]
    assert "matcher" not in prompt_group
    command = group["hooks"][0]["command"]
    assert command == prompt_group["hooks"][0]["command"] == f"{ENTRY} deliver --runner {runner}"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(isolated_env)}
    env["WIKIMEM_HOME"] = str(isolated_env / ".clarvis")
    shown = subprocess.run(
        ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c", command],
        cwd=bun_wiki.workspace,
        input=json.dumps(payload(fixture)).encode(),
        capture_output=True,
        timeout=60,
    )
    assert shown.returncode == 0 and "build/bun#" in context_of(shown.stdout.decode(), failure)
    assert cli("install", runner).out.count("deliver") == 0  # a second install changes nothing
    assert cli("uninstall", runner).code == 0
    left = json.loads(hooks.read_text(encoding="utf-8")) if hooks.exists() else {}
    assert "UserPromptSubmit" not in left.get("hooks", {}) and failure not in left.get("hooks", {})


def test_the_in_loop_path_imports_nothing_heavy(bun_wiki: config.Places) -> None:
    """`wikimem deliver` runs on every prompt and every failed command: no click, openai, git,
    YAML, Markdown parser or the search package (about 60 ms of imports between them)."""
    code = (
        "import sys, io\n"
        "sys.stdin = io.StringIO(sys.argv[1])\n"
        "from wikimem.cli import main\n"
        "try:\n    main(['deliver'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'openai', 'git', 'click', 'jinja2', 'frontmatter', 'yaml', 'markdown_it'}\n"
        "found = [m for m in sys.modules if m.split('.')[0] in heavy]\n"
        "found += [m for m in sys.modules if m.startswith('wikimem.recall.search')]\n"
        "print(sorted(found), file=sys.stderr)\n"
    )
    data = json.dumps(payload("claude-post-tool-use-failure-bash.json"))
    out = subprocess.run(
        [sys.executable, "-c", code, data],
        capture_output=True,
        text=True,
        cwd=bun_wiki.workspace,
        timeout=60,
    )
    assert "build/bun#" in out.stdout  # it did the whole work
    assert out.stderr.strip() == "[]"


def test_words_and_schema_are_those_of_the_search_index() -> None:
    from wikimem.recall import cues
    from wikimem.recall.search import store, terms

    assert cues.SCHEMA == store.SCHEMA
    assert cues.STOPWORDS == terms.STOPWORDS
    text = "Ünïcode café_bar: `bun install --frozen-lockfile` a de l'été 2026 x"
    assert cues.words(text) == terms.tokens(text)


def test_a_word_matches_its_own_forms_not_any_longer_word() -> None:
    from wikimem.recall.cues import shared

    text = "Lockfiles drift; the library stubs; go build"
    assert shared(["lockfile", "lib", "stub", "build"], text) == ["lockfile", "stub", "build"]


def test_status_says_what_reached_the_agents(
    bun_wiki: config.Places, isolated_env: Path, cli
) -> None:
    assert "delivered" not in cli("status").out  # nothing yet: no line
    deliver(bun_wiki.workspace, isolated_env, payload("claude-post-tool-use-failure-bash.json"))
    deliver(bun_wiki.workspace, isolated_env, payload("codex-user-prompt-submit.json"), "codex")

    shown = cli("status")
    data = json.loads(cli("status", "--json").out)

    assert data["delivered"]["injections"] == 2 and data["delivered"]["entries"] >= 1
    assert "delivered  2 time(s) to agents" in shown.out


def test_an_entry_counts_as_used_when_the_session_runs_its_fix(
    bun_wiki: config.Places, isolated_env: Path, cli
) -> None:
    from wikimem.recall.uses import counts

    data = payload("claude-post-tool-use-failure-bash.json")
    deliver(bun_wiki.workspace, isolated_env, data)
    deliver(bun_wiki.workspace, isolated_env, payload("codex-user-prompt-submit.json"))
    index = bun_wiki.state / "search.sqlite"
    assert [u.used for u in counts(bun_wiki.state, bun_wiki.queue, index)] == [0]
    settings = config.load(bun_wiki, {})
    run = {
        "run_id": f"{data['session_id']}:turn-2",
        "task": "Fix the install step",
        "evidence": [
            {"kind": "command", "command": "bun  install", "exit_code": 0, "output": "Saved"}
        ],
    }
    enqueue(bun_wiki, settings, run)
    other = {**run, "run_id": "another-session:1"}
    enqueue(bun_wiki, settings, other)

    (use,) = counts(bun_wiki.state, bun_wiki.queue, index)

    assert use.ref.startswith("build/bun#") and (use.delivered, use.used) == (2, 1)
    assert "(1 used by a run after)" in cli("status").out


def test_show_why_says_how_often_an_entry_was_delivered_and_used(
    bun_wiki: config.Places, isolated_env: Path, cli
) -> None:
    deliver(bun_wiki.workspace, isolated_env, payload("claude-post-tool-use-failure-bash.json"))
    (line,) = injections.read_all(bun_wiki.state)
    (ref,) = line["entries"]  # type: ignore[misc]

    shown = cli("show", str(ref), "--why")
    data = json.loads(cli("show", str(ref), "--why", "--json").out)

    assert "delivered to agents 1 time(s), used after in 0" in shown.out
    assert (data[0]["delivered"], data[0]["used"]) == (1, 0)
