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
    YAML, Markdown parser or the search package (about 60 ms of imports between them), and no
    dataclasses or inspect (10 ms: settings are plain frozen classes for this reason)."""
    code = (
        "import sys, io\n"
        "sys.stdin = io.StringIO(sys.argv[1])\n"
        "from wikimem.cli import main\n"
        "try:\n    main(['deliver'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'openai', 'git', 'click', 'jinja2', 'frontmatter', 'yaml', 'markdown_it',\n"
        "         'dataclasses', 'inspect'}\n"
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
    # a longer word is a form only by an ending that makes one (`migrate`), not another word
    text = "listen EADDRINUSE; migrate the schema; configure it"
    assert shared(["list", "migrations", "config"], text) == ["migrations", "config"]


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


@pytest.fixture
def three_wiki(workspace: Path, isolated_env: Path) -> config.Places:
    return learn_from(
        workspace, "01-bun-lockfile.json", "06-fly-port.json", "07-xdist-sqlite-per-worker.json"
    )


def on_branch(workspace: Path, branch: str) -> None:
    git("init", "-q", cwd=workspace)
    (workspace / ".git" / "HEAD").write_text(f"ref: refs/heads/{branch}\n", encoding="utf-8")


def test_a_prompt_that_names_the_branchs_topic_gets_its_entry(
    three_wiki: config.Places, isolated_env: Path
) -> None:
    vague = payload("claude-user-prompt-submit.json", prompt="The install step is red again")
    on_branch(three_wiki.workspace, "main")
    assert deliver(three_wiki.workspace, isolated_env, vague) == ("", "")  # one word: too little

    on_branch(three_wiki.workspace, "fix/bun-lockfile")
    vague["session_id"] = "another"
    out, _ = deliver(three_wiki.workspace, isolated_env, vague)

    text = context_of(out, "UserPromptSubmit")
    assert "build/bun#bun-install-fails-lockfile-had-changes" in text
    assert "deploy/fly" not in text and "testing/pytest" not in text
    unrelated = payload("claude-user-prompt-submit.json", prompt="Rename the header component")
    assert deliver(three_wiki.workspace, isolated_env, unrelated) == ("", "")  # branch alone: no


def test_a_path_the_session_just_edited_points_to_the_entry_that_cites_it(
    three_wiki: config.Places, isolated_env: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "session.jsonl"
    edited = three_wiki.workspace / "tests" / "integration" / "conftest.py"
    call = {"type": "tool_use", "name": "Edit", "input": {"file_path": str(edited)}}
    lines = [{"type": "user", "message": {"role": "user", "content": "hi"}}]
    lines.append({"type": "assistant", "message": {"role": "assistant", "content": [call]}})
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    prompt = "the suite is slow with sqlite"
    alone = payload("claude-user-prompt-submit.json", prompt=prompt, transcript_path="/nowhere")
    assert deliver(three_wiki.workspace, isolated_env, alone) == ("", "")

    data = payload("claude-user-prompt-submit.json", prompt=prompt, session_id="s2")
    data["transcript_path"] = str(transcript)
    out, _ = deliver(three_wiki.workspace, isolated_env, data)

    text = context_of(out, "UserPromptSubmit")
    assert "testing/pytest#pytest-fails-database-is-locked" in text
    assert "build/bun" not in text
    data.update(session_id="s3", prompt="Rename the header component")
    assert deliver(three_wiki.workspace, isolated_env, data) == ("", "")  # the path alone: no


def test_prompt_matching_weighs_forms_titles_and_quoted_commands(
    three_wiki: config.Places,
) -> None:
    index = three_wiki.state / "search.sqlite"

    def refs(prompt: str, **state: object) -> list[str]:
        return [f.ref.split("#")[0] for f in prompt_entries(index, prompt, **state)]  # type: ignore[arg-type]

    assert refs("Get `bun install --frozen-lockfile` to pass") == ["build/bun"]
    assert refs("the lockfiles are frozen") == ["build/bun"]  # forms of the title's words
    assert refs("Get `pnpm install --frozen-lockfile` to pass") == []  # another program
    assert refs("Deploy the API to the fly.io staging app") == ["deploy/fly"]
    assert refs("start with the first ready task and show the details") == []
    assert refs("fly.io, again") == ["deploy/fly"]  # one word naming the page and the title
    assert refs("lockfile") == []  # in a title, but not the page's name: one piece only
    assert refs("Work on it", branch="fix/bun-lockfile") == []  # nothing from the prompt
    assert refs("why so slow", paths=["tests/integration/conftest.py"]) == []


def test_the_workspace_state_is_read_without_git(tmp_path: Path) -> None:
    from wikimem.recall.events import current_branch, recent_paths
    from wikimem.recall.start import current_branch as start_branch

    on_branch(tmp_path, "feature/xdist-workers")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {tmp_path / '.git'}\n", encoding="utf-8")
    for place in (tmp_path, linked, tmp_path / "none"):
        assert current_branch(place) == (start_branch(place) or "")
    assert current_branch(linked) == "feature/xdist-workers"
    real = Path(__file__).parent / "fixtures" / "runners" / "real"
    claude = real / "claude-2.1.14-parallel-stop-hook.jsonl"
    assert recent_paths(str(claude), Path("/tmp/tmpw6sk2trg"))[-3:] == [
        "src/math_utils.py",
        "tests/test_math_utils.py",
        ".gitignore",
    ]
    (codex,) = real.glob("codex-0.125.0-rollout-*.jsonl")
    seen = recent_paths(str(codex), Path("/nowhere"))
    assert "src/agents/plugins/codemie-code.plugin.ts" in seen
    assert recent_paths(str(tmp_path / "missing.jsonl"), tmp_path) == []


def test_a_failure_matches_the_error_an_entry_quotes_not_the_words_of_its_fix(
    tmp_path: Path,
) -> None:
    from tests.test_search import write_leaf
    from wikimem.recall.search import SearchIndex

    wiki = tmp_path / "wiki"
    fence = "```"
    body = (
        f"`mix test` fails with exit code 2:\n\n{fence}text\n** (ArgumentError) no "
        f"secret_key_base configuration found in SpotterWeb.Endpoint\n{fence}\n\nWhen it fails "
        "this way, add secret_key_base to config/test.exs, then rerun the assertions on the "
        "subagent badge selector."
    )
    write_leaf(wiki, "tools/mix", "Mix", "The Elixir build tool.", [("mix test fails", body)])
    index = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index) as search:
        search.refresh()
    secret = "** (ArgumentError) no secret_key_base configuration found in SpotterWeb.Endpoint"
    assert [f.entry for f in failure_entries(index, "mix test", secret)] == ["mix-test-fails"]
    # Another failure of the same tool whose words only the fix holds is not this symptom.
    badge = "Expected selector subagent badge to return a single element, rerun the assertions"
    assert failure_entries(index, "mix test", badge) == []
