"""What `hook --wait` says happened to each run, and why, as the real command prints it:
changed (the commit), no change (the model's reason, or the entry already said it), edits
rejected (each with its reason), skipped (the rule), sent before."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import run_wikimem
from tests.openai_server import Reply
from tests.test_pipeline import model_env

PIN = "Pin bun to 1.1.30 in .tool-versions because 1.1.31 broke `bun run build`."


def remembered(run_id: str) -> str:
    item = {"path": "build/bun", "title": "Pin bun", "content": PIN, "type": "procedural"}
    return json.dumps({"run_id": run_id, "task": "pin bun", "memory": [item]})


def taught(run_id: str) -> str:
    evidence = [{"kind": "command", "command": "bun run build", "exit_code": 0, "output": "ok"}]
    return json.dumps({"run_id": run_id, "task": "build the app", "evidence": evidence})


def said(workspace: Path, record: str, env: dict[str, str] | None = None) -> str:
    done = run_wikimem("hook", "--wait", cwd=workspace, input=record, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr.decode()


def test_without_a_model_each_outcome_says_why(workspace: Path) -> None:
    assert run_wikimem("init", cwd=workspace).returncode == 0

    assert re.search(
        r"^r1: changed in commit [0-9a-f]{7}$", said(workspace, remembered("r1")), re.M
    )
    again = said(workspace, remembered("r2"))
    assert "r2: no change: already in the wiki: build/bun#pin-bun" in again
    assert "rejected" not in again  # repeating an entry is no change, not a bad edit

    short = json.dumps({"run_id": "r3", "task": "t", "result": "done"})
    assert "r3: skipped: nothing to learn from: no evidence, no candidates, short result" in (
        said(workspace, short)
    )
    assert "already indexed; this run was sent before" in said(workspace, remembered("r1"))


def test_with_a_model_no_change_gives_its_reason_and_rejections_theirs(
    workspace: Path, openai_server
) -> None:  # type: ignore[no-untyped-def]
    env = model_env(openai_server)
    assert run_wikimem("init", cwd=workspace, env=env).returncode == 0
    escape = {"action": "add", "leaf": "../../etc", "entry": "x", "title": "X",
              "type": "semantic", "body": "Something.", "reason": "r"}  # fmt: skip
    good = {**escape, "leaf": "build/bun", "entry": "builds", "title": "Builds",
            "body": "`bun run build` builds the app."}  # fmt: skip
    openai_server.script(
        Reply.plan({"summary": "A routine build; nothing durable", "edits": []}),
        Reply.plan({"summary": "Escape", "edits": [escape]}),
        Reply.plan({"summary": "Record the build", "edits": [good, escape]}),
    )

    assert "m1: no change: A routine build; nothing durable" in said(workspace, taught("m1"), env)
    rejected = said(workspace, taught("m2"), env)
    assert re.search(r"^m2: edits rejected: add \.\./\.\./etc#x .+$", rejected, re.M), rejected
    both = said(workspace, taught("m3"), env)
    assert re.search(
        r"^m3: changed in commit [0-9a-f]{7} \(edits rejected: add \.\./\.\./etc#x ", both, re.M
    ), both


def test_a_change_another_provider_made_names_it_not_an_empty_commit() -> None:
    from wikimem.foreground import describe
    from wikimem.intake.passlog import Outcome

    made = Outcome("t", "p", "j", "r", "changed", commit=None, note="1 edit(s) to memory-server")
    assert describe(made) == "changed: 1 edit(s) to memory-server"
    assert describe(Outcome("t", "p", "j", "r", "changed", commit="abcdef1234")) == (
        "changed in commit abcdef1"
    )
