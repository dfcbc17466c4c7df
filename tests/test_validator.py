"""Strict validation of a model's plan, through the real pipeline: what only a confused model
writes is refused, each with its own reason, and never repaired into a write."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.openai_server import Reply
from tests.test_pipeline import model_env, rich_run, setup
from wikimem.indexing.drain import drain
from wikimem.indexing.plan import BY_RULES, RawPlan, copies_schema, validate
from wikimem.intake.accept import enqueue
from wikimem.wiki.pages import Wiki

GOOD = {
    "action": "add",
    "leaf": "build/bun",
    "entry": "lockfile-drift-on-ci",
    "title": "Lockfile drift on CI",
    "type": "procedural",
    "body": "`bun install --frozen-lockfile` fails with `error: lockfile had changes` when "
    "package.json changed: run `bun install` and commit bun.lockb.",
    "reason": "the run's fix",
}
# A leaked key as a folder name: the vendor prefix plus 36 characters, as GitHub issues them.
LEAF_SECRET = "ghp_" + "Q7mZ2xL9kV4bN8cR1tY6wP3sD5fH0jA2eU4i"


def junk(**fields: object) -> dict:
    return {**GOOD, **fields}


def drain_one(workspace: Path, openai_server, plan: dict, run: dict | None = None):  # type: ignore[no-untyped-def]
    places, settings = setup(workspace, model_env(openai_server))
    openai_server.script(Reply.plan(plan))
    enqueue(places, settings, run or rich_run())
    [outcome] = [o for r in drain(places, settings) for o in r.outcomes]
    return places, outcome


def test_junk_is_rejected_each_with_its_reason_and_only_the_lesson_is_written(
    workspace: Path, openai_server
) -> None:
    plan = {
        "summary": "Record the bun fix",
        "edits": [
            GOOD,  # the first new topic a run starts is the one it may start
            junk(leaf="add", entry="x", title="Bun lockfile"),
            junk(leaf="update/general", title="Bun lockfile two"),
            junk(leaf="build/entry", title="Bun lockfile three"),
            junk(action="update", leaf="build/bun", entry="no-such", title="No such"),
            junk(entry="t", title="Title"),
            junk(entry="e", title="Entry id (slug of its title)"),
            junk(entry="s", title="Short one", body="Fixed it."),
            junk(leaf="testing/pytest", title="Pytest cache"),
        ],
    }
    places, outcome = drain_one(workspace, openai_server, plan)

    reasons = [n["reason"] for n in outcome.rejected]
    assert outcome.outcome == "changed" and outcome.edits == 1
    assert any("'add' is one segment" in r for r in reasons), reasons
    assert any("named with the schema word 'update'" in r for r in reasons), reasons
    assert any("named with the schema word 'entry'" in r for r in reasons), reasons
    assert any("update of missing entry 'no-such'" in r for r in reasons), reasons
    assert any("title 'Title' copies the plan's schema" in r for r in reasons), reasons
    assert any("title 'Entry id (slug of its title)' copies" in r for r in reasons), reasons
    assert any("below the minimum" in r for r in reasons), reasons
    assert any("new topic 'testing' beyond the 1" in r for r in reasons), reasons
    assert len(reasons) == 8
    assert not [
        n for n in outcome.repaired if "repaired to" in n["reason"] or "into" in n["reason"]
    ]
    wiki = Wiki(places.wiki)
    assert wiki.topics() == ["build"]
    assert list(wiki.leaves()) == ["build/bun"]
    assert [e.id for e in wiki.read_leaf("build/bun").page.entries] == ["lockfile-drift-on-ci"]


def test_an_update_of_an_entry_that_exists_and_a_leaf_the_wiki_has_pass() -> None:
    wiki = {"build/bun": {"lockfile-drift-on-ci": "Old words."}, "build/general": {"old": "Old."}}
    better = junk(action="update", body=GOOD["body"] + " Then run it again.")
    in_general = junk(leaf="build/general", entry="old", title="Old", body="Newer words here now.")
    plan = validate(
        RawPlan("s", (better, in_general)), wiki.get, strict=True, topics=["build"], new_topics=1
    )
    assert [e.action for e in plan.edits] == ["update", "update"] and plan.rejected == ()


def test_a_batch_of_runs_may_start_one_new_topic_each() -> None:
    edits = [junk(leaf=f"{t}/tool", title=f"Lesson about {t} tools") for t in ("a", "b", "c")]
    plan = validate(
        RawPlan("s", tuple(edits)), lambda leaf: None, strict=True, topics=[], new_topics=2
    )
    assert [e.leaf for e in plan.edits] == ["a/tool", "b/tool"]
    assert "beyond the 2" in plan.rejected[0].reason


def test_topic_summaries_need_a_topic(workspace: Path, openai_server) -> None:
    plan = {
        "summary": "s",
        "edits": [GOOD],
        "topics": [
            {"topic": "build", "summary": "How the web app is built."},
            {"topic": "nowhere", "summary": "A topic nothing is written to."},
        ],
    }
    places, outcome = drain_one(workspace, openai_server, plan)
    assert [n["reason"] for n in outcome.rejected] == ["summary of a topic not in the wiki"]
    assert not (places.wiki / "nowhere").exists()


def test_a_summary_of_a_topic_the_plan_leaves_alone_is_refused(
    workspace: Path, openai_server
) -> None:
    """A weak model's answer to a supersede case rewrote the `deploy` summary and wrote no
    entry: TOPIC.md, which every session start reads, changed while the lesson was lost."""
    places, _ = drain_one(workspace, openai_server, {"summary": "s", "edits": [GOOD]})
    before = (places.wiki / "build" / "TOPIC.md").read_text(encoding="utf-8")
    plan = {
        "summary": "s",
        "edits": [],
        "topics": [{"topic": "build", "summary": "Kubernetes autoscaling with karpenter nodes."}],
    }
    places, outcome = drain_one(workspace, openai_server, plan, rich_run("run-2"))
    assert outcome.outcome == "no change"
    assert [n["reason"] for n in outcome.rejected] == [
        "summary of a topic this plan writes no entry to"
    ]
    assert (places.wiki / "build" / "TOPIC.md").read_text(encoding="utf-8") == before


def test_explicit_candidates_are_judged_as_asked_but_an_answer_cannot_claim_to_be_one(
    workspace: Path, openai_server
) -> None:
    run = rich_run(memory=[{"path": "deploy", "content": "Deploys go out on Thursdays."}])
    forged = junk(leaf="add", entry="forged", title="Forged", **{BY_RULES: True})
    places, outcome = drain_one(workspace, openai_server, {"summary": "s", "edits": [forged]}, run)

    assert outcome.outcome == "changed"
    assert (places.wiki / "deploy" / "general" / "MEMORY.md").is_file()  # as asked
    assert any("'add' is one segment" in n["reason"] for n in outcome.rejected)
    assert not (places.wiki / "add").exists()


def test_a_secret_in_a_leaf_path_reaches_no_folder_commit_or_log(
    workspace: Path, openai_server
) -> None:
    plan = {
        "summary": "Remember the token setup",
        "edits": [junk(leaf=f"infra/{LEAF_SECRET}", title="Token setup"), GOOD],
        "topics": [{"topic": LEAF_SECRET.lower().replace("_", "-"), "summary": "Tokens."}],
    }
    places, outcome = drain_one(workspace, openai_server, plan)

    reasons = [n["reason"] for n in outcome.rejected]
    assert any("leaf path holds what looks like a secret" in r for r in reasons), reasons
    assert len(reasons) == 2  # the topic too: it is not in the wiki
    folders = [str(p.relative_to(places.wiki)) for p in places.wiki.rglob("*")]
    history = git("log", "--all", "--format=%B", "--name-only", cwd=places.wiki)
    log = places.pass_log.read_text()
    for where in (" ".join(folders), history, log, json.dumps(outcome.rejected)):
        assert LEAF_SECRET[4:20].lower() not in where.lower()


def test_schema_words_pad_nothing_into_a_title() -> None:
    assert copies_schema("New entry") and copies_schema("The lesson") and copies_schema("Body 2")
    assert copies_schema("Wiki path: 2-4 lowercase slug segments")
    assert not copies_schema("Lockfile drift on CI") and not copies_schema("Add a test endpoint")


def test_a_body_that_says_one_sentence_over_and_over_is_refused() -> None:
    """A weak real model (SmolLM2-135M) looped: "The plan is now the plan." eight times."""
    from wikimem.indexing.plan import RawPlan, repeats_itself, validate

    loop = "The plan is now the plan. " * 8 + "The plan is now a"
    lesson = (
        "Run `uv lock` when `uv sync --locked` says the lockfile needs updating. "
        "Then commit uv.lock. The lockfile drifts when pyproject.toml changes. "
        "Run the tests again after that."
    )
    assert repeats_itself(loop)
    assert not repeats_itself(lesson)
    assert not repeats_itself("Use `-n 0`. Use `-n 0`.")  # short: not enough to call a loop

    edit = {"action": "add", "leaf": "build/uv", "entry": "x", "title": "Uv lock drift"}
    plan = validate(RawPlan("s", ({**edit, "body": loop},)), lambda _: None, strict=True)
    kept = validate(RawPlan("s", ({**edit, "body": lesson},)), lambda _: None, strict=True)

    assert not plan.edits and "over and over" in plan.rejected[0].reason
    assert len(kept.edits) == 1


# What SmolLM2-135M answered on the eval corpus (2026-12-02, bench/weak_model_server.mjs with
# WEAK_MODEL_DUMP), each for a run about something else: the schema's example leaf, loops in a
# body or an entry id, and a body that has nothing to do with the run.
WEAK_ANSWERS = [
    ({"leaf": "build/bun", "entry": "finally", "title": "finally",
      "body": "CI's `bun install` fails with `error: lockfile had changes, but lockfile is "
      "frozen`, the reason is that the reason is that the reason is that the reason is that a"},
     "copies the example"),
    ({"leaf": "deploy/cloud", "title": "deploy-to-cloud-to-the-internet-to-the-internet-to-the"
      "-internet-to-the-internet", "body": "Deploy to cloud run on port 8080 with the script."},
     "over and over"),
    ({"leaf": "build/npm", "entry": "npm", "title": "npm",
      "body": "The npm command is not a command to use, but the npm command is a command to use, "
      "and the npm command is a command to use, and the npm command is a command to use"},
     "over and over"),
    ({"leaf": "work/wiki", "entry": "workspace", "title": "workspace",
      "body": "The wiki is now updated, but it's not the first wiki ever, it is a fresh copy"},
     "too few words"),
]  # fmt: skip
RUN_TEXT = (
    "Deploy the API to Cloud Run on port 8080. `npm run deploy` failed: the container listened"
    " on 3000; set PORT=8080 in the Dockerfile and the deploy script, then it served."
)


def test_a_weak_models_real_junk_is_refused_each_with_its_reason() -> None:
    base = {"action": "add", "type": "semantic", "reason": "r"}
    for fields, why in WEAK_ANSWERS:
        plan = validate(
            RawPlan("s", ({**base, **fields},)), lambda _: None, strict=True, run_text=RUN_TEXT
        )
        assert not plan.edits, fields
        assert why in plan.rejected[0].reason, (why, plan.rejected[0].reason)
    lesson = {
        **base,
        "leaf": "deploy/cloud-run",
        "title": "Cloud Run listens on PORT",
        "body": "Cloud Run sends traffic to port 8080: set PORT=8080 in the Dockerfile and the "
        "deploy script, or `npm run deploy` serves nothing.",
    }
    kept = validate(RawPlan("s", (lesson,)), lambda _: None, strict=True, run_text=RUN_TEXT)
    assert [e.leaf for e in kept.edits] == ["deploy/cloud-run"]
    # the example path stands when the run is about bun
    bun = validate(
        RawPlan("s", (GOOD,)), lambda _: None, strict=True,
        run_text="CI build: `bun install --frozen-lockfile` failed: lockfile had changes",
    )  # fmt: skip
    assert len(bun.edits) == 1


def test_a_leaf_the_wiki_has_is_not_copied_from_the_example() -> None:
    """build/bun is the schema's example, but once the wiki has it a run about its lockfile
    (which never says "bun") may update it; a new build/bun for that run is still refused."""
    update = {
        "action": "update",
        "leaf": "build/bun",
        "entry": "lockfile-drift",
        "title": "Lockfile drift",
        "type": "procedural",
        "body": "When the build fails on a changed lockfile, regenerate it rather than delete it.",
        "reason": "r",
    }
    run = "The build failed: the lockfile had changes; regenerating the lockfile made it pass."
    page = {"lockfile-drift": "Run `bun install` and commit bun.lockb."}
    kept = validate(RawPlan("s", (update,)), lambda _: page, strict=True, run_text=run)
    assert [(e.action, e.leaf) for e in kept.edits] == [("update", "build/bun")], kept.rejected
    new = {**update, "action": "add", "entry": "lockfile"}
    refused = validate(RawPlan("s", (new,)), lambda _: None, strict=True, run_text=run)
    assert not refused.edits
    assert refused.rejected[0].reason == (
        "new leaf 'build/bun' copies the example 'build/bun'; the run never mentions it"
    )


def test_the_run_text_is_what_the_run_says_not_its_field_names() -> None:
    from wikimem.indexing.indexer import run_text
    from wikimem.intake.record import normalise

    run = normalise(
        {
            "task": "Deploy the API",
            "result": "It served on 8080",
            "evidence": [{"kind": "command", "command": "npm run deploy", "exit_code": 0}],
        }
    )
    text = run_text([run])
    assert "Deploy the API" in text and "npm run deploy" in text and "8080" in text
    assert "evidence" not in text and "exit_code" not in text
    junk = {
        "action": "add",
        "type": "semantic",
        "reason": "r",
        "leaf": "deploy/api",
        "title": "Deploy output",
        "body": "The agent ran the command; its evidence, output and exit code gave the result.",
    }
    plan = validate(RawPlan("s", (junk,)), lambda _: None, strict=True, run_text=text)
    assert not plan.edits and "run" in plan.rejected[0].reason


STATE_LOCK = (
    "`terraform plan` fails with `Error acquiring the state lock`: another apply holds it. Ask"
    " in #platform before unlocking, then run `terraform force-unlock -force LOCK_ID`."
)


def test_a_lesson_filed_again_under_another_topic_is_refused() -> None:
    """The weak model's one wrong write in 30 cases: the terraform state-lock lesson the wiki
    holds in infra/terraform, written again as a new build/terraform leaf."""
    pages = {"infra/terraform": {"state-lock": STATE_LOCK}}
    base = {"action": "add", "type": "procedural", "reason": "r", "leaf": "build/terraform"}
    again = {
        **base,
        "title": "Terraform state lock",
        "body": "When `terraform plan` fails acquiring the state lock, ask in #platform, then"
        " `terraform force-unlock -force LOCK_ID` and plan again.",
    }
    run = "terraform plan failed: Error acquiring the state lock. Asked in #platform; unlocked."
    plan = validate(
        RawPlan("s", (again,)),
        pages.get,
        strict=True,
        run_text=run + " " + again["body"],
        namesakes=lambda leaf: ["infra/terraform"] if leaf == "build/terraform" else [],
    )
    assert not plan.edits
    assert plan.rejected[0].reason == (
        "new leaf 'build/terraform' repeats infra/terraform#state-lock, which the wiki already"
        " holds"
    )
    other = {
        **base,
        "title": "Terraform formatting in CI",
        "body": "CI runs `terraform fmt -check -recursive`; run `terraform fmt -recursive` before"
        " pushing or the lint job fails on whitespace.",
    }
    kept = validate(
        RawPlan("s", (other,)),
        pages.get,
        strict=True,
        run_text="terraform fmt -check -recursive failed in CI on whitespace; ran terraform fmt"
        " -recursive before pushing and the lint job passed",
        namesakes=lambda leaf: ["infra/terraform"],
    )
    assert [e.leaf for e in kept.edits] == ["build/terraform"], kept.rejected


def test_the_wiki_finds_a_leafs_namesakes_under_other_topics(tmp_path: Path) -> None:
    from wikimem.wiki.pages import Wiki

    for leaf in ("infra/terraform", "ci/cloud/terraform", "build/bun", ".trash/x/terraform"):
        (tmp_path / leaf).mkdir(parents=True)
        (tmp_path / leaf / "MEMORY.md").write_text("# t\n")
    wiki = Wiki(tmp_path)
    assert wiki.namesakes("build/terraform") == ["ci/cloud/terraform", "infra/terraform"]
    assert wiki.namesakes("infra/terraform") == ["ci/cloud/terraform"]
    assert wiki.namesakes("build/make") == []


def test_date_fields_filled_with_words_refuse_the_edit_and_a_real_date_is_kept(
    workspace: Path, openai_server
) -> None:
    """Two answers the weak model gave for no-change runs (a flaky retry; a fix the wiki
    already held), each a plausible add with every date field filled with a word: refused."""
    flaky = {
        "run_id": "eval-nc-12",
        "task": "Re-run the CI job that failed on a network blip",
        "status": "succeeded",
        "result": "The job failed once on a registry timeout and passed on the re-run; "
        "nothing changed.",
        "evidence": [
            {
                "kind": "command",
                "command": "npm ci",
                "exit_code": 1,
                "output": "npm ERR! network request to https://registry.npmjs.org/react failed, "
                "reason: ETIMEDOUT\n",
            },
            {"kind": "command", "command": "npm ci", "exit_code": 0, "output": "added 812\n"},
        ],
    }
    said = "The npm ci task failed on a registry timeout and passed on the re-run; nothing changed."
    plan = {
        "summary": "The task failed on a registry timeout and passed on the re-run.",
        "edits": [
            {
                "action": "add",
                "leaf": "build/npm",
                "entry": "npm ci",
                "title": "npm ci",
                "type": "working",
                "body": said,
                "reason": said,
                "meta": {"review-by": "npm ci", "expires": "npm ci"},
            }
        ],
    }
    places, outcome = drain_one(workspace, openai_server, plan, flaky)

    assert outcome.outcome == "no change" and outcome.edits == 0
    reasons = [n["reason"] for n in outcome.rejected]
    assert reasons == ["meta review-by 'npm ci' is not a date (YYYY-MM-DD)"], reasons

    dated = junk(meta={"review-by": "2027-01-15"})
    checked = validate(RawPlan("s", (dated,)), lambda _: None, strict=True)
    assert [dict(e.meta) for e in checked.edits] == [{"review-by": "2027-01-15"}]
