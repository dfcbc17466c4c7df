"""Bad input of every kind: run records, raw bytes, hand-edited pages and plans.

Each gets a clear error or a safe repair: never a traceback (nor the funnel's "unexpected
error"), never a write outside the wiki or the queue.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import git, run_wikimem
from tests.openai_server import OpenAIServer, Reply
from wikimem import config
from wikimem.errors import PlanError, RecordError
from wikimem.indexing.plan import ACTIONS, MAX_BODY, MAX_EDITS, parse, validate
from wikimem.intake.accept import enqueue
from wikimem.intake.queue import Job, Queue
from wikimem.intake.record import RunRecord
from wikimem.redaction.redact import find_secrets
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import init

FIXTURES = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=40)
    | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
evidence_like = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["command", "file", "note", "other"]) | json_values,
        "command": st.text(max_size=60) | json_values,
        "exit_code": json_values,
        "output": st.text(max_size=200) | json_values,
        "stdout": json_values,
        "path": json_values,
        "diff": json_values,
        "text": json_values,
    },
)
memory_like = st.fixed_dictionaries(
    {},
    optional={
        "path": st.sampled_from(["build/bun", "../../etc", "/abs", "A B/c", "x"]) | json_values,
        "content": st.text(max_size=80) | json_values,
        "body": json_values,
        "title": json_values,
        "type": json_values,
    },
)
record_like = st.fixed_dictionaries(
    {},
    optional={
        "task": st.text(min_size=1, max_size=40) | json_values,
        "run_id": json_values,
        "status": json_values,
        "result": st.text(max_size=200) | json_values,
        "agent": json_values,
        "started_at": json_values,
        "evidence": st.lists(evidence_like | json_values, max_size=4) | json_values,
        "memory": st.lists(memory_like, max_size=3) | json_values,
        "extra": json_values,
    },
)


@pytest.fixture
def places(workspace: Path) -> config.Places:
    return config.places(workspace, {})


@FIXTURES
@given(record=st.dictionaries(st.text(max_size=8), json_values, max_size=5) | record_like)
def test_enqueue_takes_any_json_object_or_says_why(places: config.Places, record: dict) -> None:
    settings_ = config.load(places, {})
    try:
        done = enqueue(places, settings_, record)
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    path = Queue(places.queue).path(Queue(places.queue).state_of(done.job_id) or "", done.job_id)
    job = Job.from_json(path.read_text(encoding="utf-8"))
    run = RunRecord.from_dict(job.run)  # a pass can always read what intake wrote
    assert run.task.strip() and run.run_id == done.run_id
    assert sorted(p.name for p in places.workspace.iterdir()) == [".clarvis"]


def with_junk(record: dict, junk: bytes, at: float) -> bytes:
    data = json.dumps(record).encode()
    cut = int(len(data) * at)
    return data[:cut] + junk + data[cut:]


raw_inputs = (
    st.binary(max_size=2000)
    | st.builds(with_junk, record_like, st.binary(min_size=1, max_size=6), st.floats(0, 1))
    | st.builds(lambda r: json.dumps(r).encode(), record_like)
)


def assert_clear(result, one_line: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Exit 0, 1 or 2; no traceback; a failing command says why in one line (`one_line`)."""
    assert result.code in (0, 1, 2), result
    assert "Traceback" not in result.err and "unexpected error" not in result.err, result.err
    if result.code and one_line:
        assert result.err.startswith("wikimem: error: ") and result.err.count("\n") == 1


@FIXTURES
@given(data=raw_inputs)
def test_enqueue_command_on_raw_bytes(workspace: Path, cli, data: bytes) -> None:
    source = workspace / "input.json"
    source.write_bytes(data)
    assert_clear(cli("enqueue", str(source)))


def nested(depth: int, open_: str = "[", close: str = "]") -> bytes:
    return b'{"task": "t", "x": ' + (open_ * depth + "1" + close * depth).encode() + b"}"


@pytest.mark.parametrize(
    "name,data,queued",
    [
        ("binary", bytes(range(256)) * 4, False),
        ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", False),
        ("nul escaped", b'{"task": "t\\u0000x", "result": "a\\u0000b"}', True),
        ("invalid utf-8", b'{"task": "fix", "result": "\xff\xfe bad \xc3 end"}', True),
        ("moderately nested", nested(300), True),
        ("empty", b"", False),
    ],
)
def test_enqueue_command_on_odd_input(
    workspace: Path, cli, name: str, data: bytes, queued: bool
) -> None:
    source = workspace / "input.json"
    source.write_bytes(data)
    result = cli("enqueue", "--json", str(source))
    assert_clear(result)
    assert (result.code == 0) == queued, result.err
    if queued:
        job_id = json.loads(result.out)["job"]
        text = (workspace / ".clarvis/state/queue/pending" / f"{job_id}.json").read_text()
        assert "\x00" not in text and "\\u0000" not in text  # NUL removed before queueing


@pytest.mark.parametrize("depth", [950, 100_000])
def test_enqueue_command_on_deeply_nested_json(workspace: Path, cli, depth: int) -> None:
    source = workspace / "input.json"
    source.write_bytes(nested(depth))
    assert_clear(cli("enqueue", str(source)))


def test_enqueue_of_a_huge_run_is_bounded(workspace: Path) -> None:
    record = {
        "task": "t",
        "evidence": [
            {"kind": "command", "command": "make", "exit_code": 1, "output": "x" * 20_000_000}
        ],
    }
    proc = run_wikimem("enqueue", "-", cwd=workspace, input=json.dumps(record))
    assert proc.returncode == 0, proc.stderr
    job = next((workspace / ".clarvis/state/queue/pending").glob("*.json"))
    assert job.stat().st_size < 200_000


# ---- hand-edited pages ------------------------------------------------------------------------

PAGES = {
    "hand/broken/MEMORY.md": '---\ntitle: [unclosed\nsummary: "x\n---\n# B\n\n## One\n\ntext\n',
    "hand/dupes/MEMORY.md": "---\ntitle: D\nsummary: d\n---\n# D\n\n## Same\n\na\n\n## Same\n\nb\n"
    "\n## same\n\nc\n",
    "hand/odd/MEMORY.md": "---\ntitle: N\n---\n# N\n\n## A\x00b\n\n\udcff\udcfe bytes\n",
    "hand/nofront/MEMORY.md": "## Just an entry\n\nno frontmatter, no title\n",
}


def hand_edited_wiki(workspace: Path, outside: Path) -> config.Places:
    places = config.places(workspace, {})
    init(places, config.load(places, {}))
    for rel, text in PAGES.items():
        path = places.wiki / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    huge = places.wiki / "big" / "huge" / "MEMORY.md"
    huge.parent.mkdir(parents=True)
    huge.write_text(
        "---\ntitle: H\nsummary: h\n---\n# H\n\n"
        + "".join(f"## E{i}\n\n{'x' * 90}\n\n" for i in range(50_000))
    )
    assert huge.stat().st_size > 5_000_000
    outside.mkdir()
    (outside / "MEMORY.md").write_text("---\ntitle: Outside\n---\n# Outside\n\n## Secret\n\nno\n")
    (places.wiki / "hand" / "link").symlink_to(outside, target_is_directory=True)
    (places.wiki / "hand" / "filelink").mkdir()
    (places.wiki / "hand" / "filelink" / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    return places


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_hand_edited_pages_read_lint_search_and_index(workspace: Path, cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    places = hand_edited_wiki(workspace, outside)
    before = snapshot(outside)
    for ref in (
        "hand/broken",
        "hand/dupes",
        "hand/dupes#same-1",
        "hand/nofront",
        "big/huge",
        "hand/link",
        "hand/filelink",
        "hand/link#secret",
        "../../etc",
    ):
        result = cli("show", ref)
        assert_clear(result)
        assert "no\n" not in result.out or ref.startswith("hand/dupes")
    assert "## Same\n\nb" in cli("show", "hand/dupes").out
    lint = cli("lint")
    assert_clear(lint, one_line=False)
    assert lint.code == 1 and "not valid YAML" in lint.out and "over 2000000 bytes" in lint.out
    for query in ("same", "outside secret", "x" * 300, "\x00", '"unbalanced'):
        assert_clear(cli("search", query))
    settings_ = config.load(places, {})
    for leaf in (
        "hand/broken",
        "hand/dupes",
        "hand/odd",
        "hand/nofront",
        "big/huge",
        "hand/link",
        "hand/filelink",
        "other/fine",
    ):
        enqueue(
            places,
            settings_,
            {
                "run_id": leaf,
                "task": "t",
                "memory": [
                    {"path": leaf, "title": f"Added to {leaf}", "content": f"New fact for {leaf}."}
                ],
            },
        )
    places.workspace_config.write_text("[queue]\nbatch = 1\n")
    queue = Queue(places.queue)
    for _ in range(8):  # a failing pass leaves the rest for the next one
        if not queue.pending_ready():
            break
        assert_clear(cli("index"), one_line=False)
    done = {j.run_id for _, j in queue.jobs("done") if j}
    assert {"hand/broken", "hand/dupes", "hand/odd", "hand/nofront", "other/fine"} <= done
    # an edit through a symlink is rejected alone at validation: its job ends, nothing written
    assert {"hand/link", "hand/filelink"} <= done
    assert places.pass_log.read_text().count("leaves the wiki folder") >= 2
    # an edit of a page too large to read is rejected alone, with the reason in the pass log
    assert "big/huge" in done
    assert any(
        "big/huge" in line and "split it by hand" in line
        for line in places.pass_log.read_text().splitlines()
    )
    assert snapshot(outside) == before  # nothing written (or created) through a symlink
    dupes = (places.wiki / "hand/dupes/MEMORY.md").read_text()
    assert dupes.count("## Same\n") == 2 and "## Added to hand/dupes" in dupes
    assert git("status", "--porcelain", cwd=places.wiki) == ""


def test_show_a_page_with_undecodable_bytes(workspace: Path, cli, tmp_path: Path) -> None:
    hand_edited_wiki(workspace, tmp_path / "outside")
    assert_clear(cli("show", "hand/odd"))


def test_search_never_reads_through_a_symlinked_page(workspace: Path, cli, tmp_path: Path) -> None:
    places = hand_edited_wiki(workspace, tmp_path / "outside")
    (places.wiki / "big" / "huge" / "MEMORY.md").unlink()
    result = cli("search", "outside secret")
    assert_clear(result)
    assert "Outside" not in result.out


# ---- plans -------------------------------------------------------------------------------------

edit_like = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(ACTIONS) | json_values,
        "leaf": st.sampled_from(
            [
                "build/bun",
                "../x",
                "/abs",
                "A B/c",
                "a/b/c/d/e",
                "build",
                "C:\\x",
                "~/x",
                "build/bun/MEMORY.md",
                "a//b",
            ]
        )
        | json_values,
        "entry": st.sampled_from(["lockfile", "", "Lockfile Drift", "../x"]) | json_values,
        "title": st.text(max_size=200) | json_values,
        "type": json_values,
        "body": st.text(max_size=300) | st.just("x" * (MAX_BODY + 1)) | json_values,
        "reason": json_values,
        "leaf_title": json_values,
        "leaf_summary": json_values,
    },
)
plan_like = st.fixed_dictionaries(
    {"edits": st.lists(edit_like | json_values, max_size=MAX_EDITS + 2)},
    optional={"summary": json_values, "topics": st.lists(json_values, max_size=3)},
)


def lookup(leaf: str) -> Mapping[str, str] | None:
    return {"lockfile": "old body", "other": "b"} if leaf == "build/bun" else None


@settings(max_examples=150, deadline=None)
@given(obj=json_values | plan_like)
def test_any_plan_is_parsed_or_refused_and_validates_to_safe_edits(obj: object) -> None:
    try:
        raw = parse(obj)
    except PlanError as exc:
        assert str(exc)
        return
    plan = validate(raw, lookup, total_entries=10)
    wiki = Wiki(Path("/nonexistent-wiki"))
    assert len(plan.edits) <= MAX_EDITS
    for edit in plan.edits:
        assert edit.action in ACTIONS and wiki.check_path(edit.leaf) == edit.leaf
        assert edit.leaf.count("/") >= 1 and edit.entry
        assert len(edit.body) <= MAX_BODY and not find_secrets(edit.body + edit.title)
        if edit.action != "add":
            assert edit.entry in (lookup(edit.leaf) or {})
    assert len(plan.summary) <= 72 and "\n" not in plan.summary


BROKEN_PLANS = [
    {
        "summary": 5,
        "edits": [
            {
                "action": 1,
                "leaf": ["x"],
                "entry": {},
                "title": None,
                "type": "bogus",
                "body": 7,
                "reason": [],
            },
            "not an object",
            {"action": "remove", "leaf": "../../etc", "entry": "passwd"},
        ],
        "topics": [{"topic": "../x", "summary": 3}, "x"],
    },
    {"summary": "x", "edits": "all of them"},
    ["not", "an", "object"],
]


@pytest.mark.parametrize("bad", BROKEN_PLANS)
def test_a_model_answering_broken_plans_through_the_pass(
    workspace: Path, cli, bad: object, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "OPENAI_BASE_URL": openai_server.base_url,
        "WIKIMEM_MODEL": "m",
        "OPENAI_API_KEY": "sk-test-key-123456",
    }.items():
        monkeypatch.setenv(name, value)
    assert cli("init").code == 0
    (workspace / ".clarvis/config.toml").write_text("[model]\nmax_retries = 0\n")
    openai_server.default = Reply(content=json.dumps(bad))
    source = workspace / "run.json"
    source.write_text(
        json.dumps(
            {
                "task": "t",
                "evidence": [
                    {"kind": "command", "command": "make", "exit_code": 1, "output": "boom"}
                ],
            }
        )
    )
    assert cli("enqueue", str(source)).code == 0
    before = snapshot(workspace.parent)
    result = cli("index")
    assert_clear(result, one_line=False)
    assert result.code == 0 or "model request failed" in result.err
    changed = {p for p, data in snapshot(workspace.parent).items() if before.get(p) != data}
    assert all(p.startswith("ws/.clarvis/") for p in changed)
    wiki_changes = git("status", "--porcelain", cwd=workspace / ".clarvis/memory")
    assert wiki_changes == ""
    assert git("rev-list", "--count", "HEAD", cwd=workspace / ".clarvis/memory").strip() == "1"
