"""What the model is shown: the person's words in PROFILE.md and TOPIC.md marked as theirs,
where each tool's lessons live, and a commit subject made from what was applied."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.openai_server import Reply
from tests.test_pipeline import model_env, rich_run, setup
from wikimem.indexing.drain import drain
from wikimem.indexing.indexer import recompile
from wikimem.indexing.message import SUBJECT_MAX, subject
from wikimem.indexing.prompt import build_view, messages, split_written
from wikimem.intake.accept import enqueue
from wikimem.intake.record import normalise
from wikimem.wiki.edit import Edit
from wikimem.wiki.pages import Wiki

PERSON_PROFILE = "Release train: Thursdays. Never deploy on Fridays."
PERSON_TOPIC = "Infra is owned by the platform team; ask in #platform before changing state."
TERRAFORM = (
    "---\ntitle: Terraform\nsummary: Plans, applies and the state lock.\ntype: procedural\n"
    "updated: 2026-11-01\n---\n# Terraform\n\n## Plans need the VPN\n\n"
    "`terraform plan` hangs off the VPN: connect first.\n"
)


def seeded(workspace: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    places, settings = setup(workspace, env)
    wiki = Wiki(places.wiki)
    wiki.write("infra/terraform/MEMORY.md", TERRAFORM)
    recompile(places, settings)
    for file, words in (("PROFILE.md", PERSON_PROFILE), ("infra/TOPIC.md", PERSON_TOPIC)):
        path = places.wiki / file
        path.write_text(path.read_text() + f"\n{words}\n")
    return places, settings, wiki


def test_the_view_shows_the_persons_words_and_where_tools_live(workspace: Path) -> None:
    places, settings, wiki = seeded(workspace)

    view = build_view(wiki, 8000, ["infra/terraform"], ["terraform", "bun"])
    prompt = messages([], view, [normalise({"task": "t"})])[1]["content"]

    assert [w.file for w in view.written] == ["PROFILE.md", "infra/TOPIC.md"]
    assert PERSON_PROFILE in view.written[0].person
    assert PERSON_PROFILE not in view.written[0].generated
    assert PERSON_TOPIC in view.written[1].person
    assert view.written[1].summary == "Terraform: Plans, applies and the state lock."
    assert "leaves:" not in view.written[1].person  # wikimem's frontmatter is not the person's
    assert view.homes == (("terraform", "infra/terraform", True), ("bun", "build/bun", False))
    assert prompt.index("Written by a person") < prompt.index(PERSON_PROFILE)
    assert "- terraform: infra/terraform\n" in prompt
    assert "- bun: build/bun (new leaf)" in prompt
    assert view.chars <= 8000


def test_the_view_stays_within_a_small_budget(workspace: Path) -> None:
    places, settings, wiki = seeded(workspace)
    (places.wiki / "PROFILE.md").write_text(
        (places.wiki / "PROFILE.md").read_text() + "\n" + "A person's long note. " * 400
    )

    view = build_view(wiki, 2000, ["infra/terraform"], ["terraform"])

    assert view.chars <= 2000
    assert "[... page cut to fit the budget]" in view.written[0].person


def test_split_written_keeps_text_on_both_sides_of_the_markers() -> None:
    text = (
        "---\ntitle: Infra\n---\n# Infra\n\nBefore.\n\n<!-- wikimem:begin -->\n- [x](x)\n"
        "<!-- wikimem:end -->\n\nAfter.\n"
    )

    split = split_written("infra/TOPIC.md", text, 1000)

    assert split.person == "Before.\n\nAfter."
    assert split.summary == ""
    assert split.generated == "- [x](x)"


def test_the_model_is_sent_the_persons_words(workspace: Path, openai_server) -> None:
    places, settings, _ = seeded(workspace, model_env(openai_server))
    openai_server.script(Reply.plan({"summary": "nothing", "edits": []}))

    enqueue(places, settings, rich_run())
    drain(places, settings)

    request = json.dumps(openai_server.requests[-1].body)
    assert PERSON_PROFILE in request
    assert "- bun: build/bun (new leaf)" in request


def test_a_command_that_never_ran_is_marked_and_explained(workspace: Path, openai_server) -> None:
    places, settings, _ = seeded(workspace, model_env(openai_server))
    openai_server.script(Reply.plan({"summary": "nothing", "edits": []}))
    rejected = {"kind": "command", "command": "rm -rf node_modules", "ran": False}

    run = rich_run()
    run["evidence"] = [*run["evidence"], rejected]  # type: ignore[index]
    enqueue(places, settings, run)
    drain(places, settings)

    system, user = (m["content"] for m in openai_server.requests[-1].body["messages"])
    record = json.loads(user.split(" BEGIN\n", 1)[1].split("\nRUN-DATA-", 1)[0])
    never = [e for e in record["evidence"] if e.get("command") == "rm -rf node_modules"]
    assert never and never[0]["ran"] is False and never[0]["exit_code"] is None
    assert '"ran": false was proposed but never ran' in system


# -- commit subjects ------------------------------------------------------------------------------


def edit(action: str, leaf: str, title: str) -> Edit:
    return Edit(action=action, leaf=leaf, entry=title.lower().replace(" ", "-"), title=title)


def test_subject_says_what_was_applied() -> None:
    assert subject([edit("add", "build/bun", "Lockfile drift on CI")]) == (
        "Add build/bun: Lockfile drift on CI"
    )
    assert subject([edit("add", "build/bun", "A"), edit("add", "build/bun", "B")]) == (
        "Add 2 entries in build/bun"
    )
    mixed = [edit("add", "build/bun", "A"), edit("update", "testing/pytest", "B")]
    assert subject(mixed) == "Add 1 entry, update 1 in build/bun, testing/pytest"
    many = [edit("remove", f"t/l{i}", "x") for i in range(4)]
    assert subject(many) == "Remove 4 entries in t/l0 and 3 more"
    assert subject([], ["build"]) == "Summarise topic build"
    assert len(subject([edit("add", "build/bun", "x" * 200)])) == SUBJECT_MAX


# the run the state lock lesson below is drawn from
STATE_LOCK_RUN = {
    "run_id": "run-lock",
    "task": "Apply the network change",
    "status": "succeeded",
    "result": "Unlocked the state once the other run had ended, then applied.",
    "evidence": [
        {"kind": "command", "command": "terraform plan", "exit_code": 1,
         "output": "Error: Error acquiring the state lock\nLock Info:\n  ID: 7f1c2d"},
        {"kind": "command", "command": "terraform force-unlock 7f1c2d", "exit_code": 0,
         "output": "Terraform state has been successfully unlocked!"},
        {"kind": "command", "command": "terraform plan", "exit_code": 0, "output": "No changes."},
    ],
}  # fmt: skip


def test_a_commit_names_the_edit_validation_kept_and_keeps_the_summary_below(
    workspace: Path, openai_server
) -> None:
    places, settings, _ = seeded(workspace, model_env(openai_server))
    plan = {
        "summary": "Update the state lock entry",
        "edits": [
            {
                "action": "add",
                "leaf": "infra/terraform",
                "entry": "lock",  # validation takes the id from the title
                "title": "State lock",
                "type": "procedural",
                "body": "`terraform plan` fails with `Error acquiring the state lock`: run "
                "`terraform force-unlock <LOCK_ID>` once the other run has ended.",
            }
        ],
    }
    openai_server.script(Reply.plan(plan))

    enqueue(places, settings, STATE_LOCK_RUN)
    drain(places, settings)

    message = git("log", "-1", "--format=%B", cwd=places.wiki)
    assert message.splitlines()[0] == "Add infra/terraform: State lock"
    assert "\n\nUpdate the state lock entry\n" in message


def test_the_prompt_shows_task_and_result_first_and_the_evidence_as_numbered_steps() -> None:
    from wikimem.indexing.prompt import WikiView, messages
    from wikimem.intake.record import normalise

    output = "x" * 50_000
    run = normalise(
        {
            "run_id": "r-1",
            "task": "Make the build green",
            "result": "Regenerated the lockfile.",
            "status": "succeeded",
            "zeta": "an unknown field",
            "evidence": [
                {
                    "kind": "command",
                    "command": "bun install --frozen-lockfile",
                    "exit_code": 1,
                    "output": output,
                },
                {"kind": "command", "command": "bun install", "exit_code": 0, "output": ""},
            ],
        }
    )
    user = messages([], WikiView("", (), (), ()), [run])[1]["content"]
    line = user.split(" BEGIN\n", 1)[1].split("\nRUN-DATA-", 1)[0]

    assert line.index('"task": "Make the build green"') < 100
    assert line.index('"result"') < line.index('"zeta"') < line.index('"evidence"')
    record = json.loads(line)
    assert [e["step"] for e in record["evidence"]] == [1, 2]
    assert record["evidence"][1]["command"] == "bun install"
