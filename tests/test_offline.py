"""The offline rules: explicit candidates, failures fixed later in a run, and nothing else."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import wikimem
from wikimem.indexing.layout import home
from wikimem.indexing.offline import NO_LESSON, Known, offline_plan, rules_wrote, signature
from wikimem.indexing.plan import MAX_BODY, MAX_TITLE, RawPlan, validate
from wikimem.indexing.prose import placeholders
from wikimem.intake.record import Candidate, Evidence, RunRecord, normalise
from wikimem.intake.snapshot import take

RUNS = Path(wikimem.__file__).parent / "data" / "runs"
TOKEN = "ghp_T63oJuMkVvBWxFASAVrn0SLZpoW8NrMvNnli"  # fake, in 06-dispatch-with-token.json


def cmd(command: str, exit_code: int | None = 0, output: str = "") -> Evidence:
    return Evidence(kind="command", command=command, exit_code=exit_code, output=output)


def edited(path: str, diff: str = "") -> Evidence:
    return Evidence(kind="file", path=path, diff=diff)


def run(*evidence: Evidence, memory: tuple[Candidate, ...] = (), run_id: str = "r-1") -> RunRecord:
    return RunRecord(run_id=run_id, task="do the thing", evidence=evidence, memory=memory)


def only_edit(plan: RawPlan) -> dict[str, Any]:
    assert len(plan.edits) == 1, plan.edits
    return dict(plan.edits[0])


def no_lookup(leaf: str) -> None:
    return None


LOCKFILE_RUN = run(
    cmd(
        "bun install --frozen-lockfile",
        1,
        "bun install v1.1.34 (5e5e7c60)\n"
        "error: lockfile had changes, but lockfile is frozen\n"
        "note: try re-running without --frozen-lockfile and commit the updated lockfile\n",
    ),
    cmd("git log -1 --oneline -- package.json", 0, "a1b2c3d chore(deps): bump vite to 5.4\n"),
    cmd("bun install", 0, "Saved lockfile\n"),
    cmd("bun install --frozen-lockfile", 0, "Checked 388 installs (no changes)\n"),
    run_id="ci-7-1",
)


# -- rule 2 on hand-built runs ------------------------------------------------------------------


def test_lockfile_failure_fixed_by_a_command_is_one_exact_procedural_entry():
    plan = offline_plan([LOCKFILE_RUN])

    edit = only_edit(plan)
    assert plan.summary == "Record 1 lesson from run ci-7-1"
    assert edit["action"] == "add"
    assert edit["leaf"] == "build/bun"
    assert edit["leaf_title"] == "Bun"
    assert edit["title"] == "bun install fails: lockfile had changes"
    assert edit["entry"] == "bun-install-fails-lockfile-had-changes"
    assert edit["type"] == "procedural"
    assert edit["body"] == (
        "`bun install --frozen-lockfile` fails with exit code 1:\n"
        "\n"
        "```text\n"
        "error: lockfile had changes, but lockfile is frozen\n"
        "```\n"
        "\n"
        "The output says why: `note: try re-running without --frozen-lockfile and commit the"
        " updated lockfile`.\n"
        "\n"
        "When it fails this way, run `bun install`; then the same command passes."
    )


def test_inspection_commands_between_failure_and_success_are_not_the_fix():
    looks = [
        "ls -la",
        "cat package.json",
        "git status",
        "git log -3 --oneline",
        "git diff",
        "git show HEAD",
        "grep -rn vite src",
        "echo $PATH",
        "pwd",
        "which node",
        "head -5 bun.lockb",
        "tail -n 20 build.log",
        "kubectl get pods",
        "docker logs api",
        "node --version",
        "cd web && ls",
        "env | sort | grep NODE",
    ]
    evidence = [cmd("bun run build", 1, 'error: Could not resolve: "@acme/ui"\n')]
    evidence += [cmd(look, 0, "...") for look in looks]
    evidence += [
        cmd("bun add @acme/ui@workspace:*", 0, "installed @acme/ui"),
        cmd("bun run build", 0, "built in 3.1s"),
    ]

    body = only_edit(offline_plan([run(*evidence)]))["body"]

    assert "run `bun add @acme/ui@workspace:*`; then the same command passes." in body
    for look in looks:
        assert look not in body


def test_failed_commands_in_between_are_not_the_fix_and_retries_make_one_lesson():
    plan = offline_plan(
        [
            run(
                cmd("pytest -x tests/", 1, "E   AssertionError: order\n1 failed"),
                cmd("pip install pytest-randomly==3.16", 1, "ERROR: No matching distribution"),
                cmd("pytest tests/", 1, "E   AssertionError: order\n1 failed"),
                cmd("pytest -p no:randomly tests/", 0, "120 passed"),
            )
        ]
    )

    edit = only_edit(plan)
    assert edit["leaf"] == "testing/pytest"
    assert "pip install" not in edit["body"]
    assert "run it as `pytest -p no:randomly tests/` instead: that passes." in edit["body"]


def test_a_changed_command_that_passed_is_the_fix():
    edit = only_edit(
        offline_plan(
            [
                run(
                    cmd(
                        "pytest tests/", 1, "E   AssertionError: assert 2 == 3\n1 failed, 40 passed"
                    ),
                    cmd("pytest -p no:randomly tests/", 0, "41 passed"),
                )
            ]
        )
    )

    assert edit["leaf"] == "testing/pytest"
    assert edit["title"] == "pytest fails: assert 2 == 3"
    assert edit["body"].startswith("`pytest tests/` fails with exit code 1:")
    assert (
        "When it fails this way, run it as `pytest -p no:randomly tests/` instead" in (edit["body"])
    )
    assert "```text\nAssertionError: assert 2 == 3\n```" in edit["body"]


def test_a_changed_command_after_other_steps_comes_last_in_the_fix():
    body = only_edit(
        offline_plan(
            [
                run(
                    cmd("cargo build", 101, "error[E0658]: use of unstable library feature"),
                    cmd("rustup toolchain install 1.83", 0, "installed"),
                    cmd("cargo +1.83 build --locked", 0, "Finished"),
                )
            ]
        )
    )["body"]

    assert body.endswith(
        "When it fails this way, run `rustup toolchain install 1.83`, then run it as"
        " `cargo +1.83 build --locked` instead: that passes."
    )


def test_an_edited_file_is_part_of_the_fix_with_its_diff():
    diff = "@@ -9,3 +9,3 @@\n-  internal_port = 3000\n+  internal_port = 8080\n"
    edit = only_edit(
        offline_plan(
            [
                run(
                    cmd(
                        "fly deploy --app web-staging",
                        1,
                        "==> Building image\nError: health checks for machine 4e1 never passed\n",
                    ),
                    cmd("cat fly.toml", 0, "internal_port = 3000"),
                    edited("fly.toml", diff),
                    cmd("fly deploy --app web-staging", 0, "release v12 created"),
                )
            ]
        )
    )

    assert edit["leaf"] == "deploy/fly"
    assert edit["title"] == "fly deploy fails: health checks for machine 4e1 never passed"
    body = edit["body"]
    assert "edit `fly.toml` as below; then the same command passes." in body
    assert "`fly.toml`:\n\n```diff\n" + diff.rstrip("\n") + "\n```" in body
    assert "cat fly.toml" not in body  # `cat` only looked
    assert "Seen in run" not in body  # provenance lives in commit trailers


def test_paths_under_the_runners_folder_are_written_as_a_checkout_has_them():
    """Claude Code and Codex records carry the session's folder in `source.cwd`."""
    root = "/home/ci/wt/app-7f3a"
    diff = "@@ -9,3 +9,3 @@\n-  internal_port = 3000\n+  internal_port = 8080\n"
    failed = cmd(f"fly deploy --config {root}/fly.toml", 1, "Error: health checks never passed\n")
    passed = cmd(f"fly deploy --config {root}/fly.toml", 0, "release v12 created")
    record = replace(
        run(failed, edited(f"{root}/fly.toml", diff), passed),
        extra={"source": {"runner": "claude-code", "cwd": root}},
    )

    body = only_edit(offline_plan([record]))["body"]

    assert "`fly.toml`:" in body and "--config fly.toml" in body
    assert root not in body


def test_the_runners_folder_written_from_home_is_the_checkout_too():
    """`cd ~/projects/app/assets` in a session whose folder is /home/ada/projects/app is
    `cd assets` in any checkout: the same folder, as a shell writes it from HOME."""
    root = "/home/ada/projects/app"
    failed = cmd("node assets/build.js", 1, "Error: Build failed with 1 error:\n")
    passed = cmd("cd ~/projects/app/assets && node build.js", 0, "done")
    record = replace(run(failed, passed), extra={"source": {"runner": "claude-code", "cwd": root}})

    body = only_edit(offline_plan([record]))["body"]

    assert "`cd assets && node build.js`" in body and "~/projects" not in body


def test_a_large_diff_is_named_not_copied():
    diff = "".join(f"+line {i}\n" for i in range(400))
    body = only_edit(
        offline_plan(
            [
                run(
                    cmd("terraform plan", 1, "Error: Unsupported argument"),
                    edited("main.tf", diff),
                    cmd("terraform plan", 0, "No changes."),
                )
            ]
        )
    )["body"]

    assert "edit `main.tf`; then the same command passes." in body
    assert "line 399" not in body


def test_many_commands_and_files_stay_under_the_body_limit():
    long = "x" * 2000
    evidence = [cmd("make release", 2, "make: *** [release] Error 1")]
    evidence += [cmd(f"make step{i} ARGS={long}", 0) for i in range(12)]
    evidence += [edited(f"src/file{i}.c", "-a\n+b\n" * 100) for i in range(8)]
    evidence += [cmd("make release", 0, "ok")]

    edit = only_edit(offline_plan([run(*evidence)]))

    assert len(edit["body"]) <= MAX_BODY
    assert "# ... and 5 more commands" in edit["body"]
    assert not validate(offline_plan([run(*evidence)]), no_lookup).rejected


# -- runs that teach nothing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "evidence",
    [
        pytest.param((), id="no evidence"),
        pytest.param(
            (edited("docs/a.md", "-recieve\n+receive\n"), cmd("pytest -q", 0, "6 passed")),
            id="trivial",
        ),
        pytest.param(
            (
                cmd("alembic upgrade head", 1, "KeyError: 'DATABASE_URL'"),
                cmd("env | grep DATABASE", 0, ""),
            ),
            id="never fixed",
        ),
        pytest.param(
            (cmd("pytest -q", 1, "E   TimeoutError\n1 failed"), cmd("pytest -q", 0, "40 passed")),
            id="flaky retry",
        ),
        pytest.param(
            (
                cmd("pytest -q", 1, "E   TimeoutError\n1 failed"),
                cmd("git status", 0, ""),
                cmd("cat conftest.py", 0, ""),
                cmd("pytest -q", 0, "40 passed"),
            ),
            id="only inspection in between",
        ),
        pytest.param(
            (
                cmd("grep -rn TODO src", 1, ""),
                cmd("echo done >> notes.txt", 0),
                cmd("grep -rn TODO src", 0, "src/a.py:1: TODO"),
            ),
            id="inspection failed",
        ),
        pytest.param(
            (cmd("make test", 2, "Error 2"), cmd("make test-unit", 0, "ok")),
            id="another command passed",
        ),
        pytest.param((cmd("pytest", None, "?"), cmd("pytest -q", 0, "ok")), id="unknown exit"),
    ],
)
def test_runs_without_a_signal_change_nothing(evidence: tuple[Evidence, ...]):
    plan = offline_plan([run(*evidence)])

    assert plan.edits == ()
    assert plan.summary == NO_LESSON


# -- rule 1: explicit candidates -----------------------------------------------------------------


def test_explicit_candidates_become_adds_at_their_path():
    plan = offline_plan(
        [
            run(
                memory=(
                    Candidate(
                        path="decisions/auth",
                        content="Use OAuth.\nNever paste tokens.",
                        title="Connections use OAuth",
                        type="semantic",
                    ),
                    Candidate(
                        path="api",
                        content="\n# Regenerate the client after a model change.\n\n"
                        "Run `make client`.",
                    ),
                    Candidate(
                        path="ops/oncall", content="Page the owner first.", type="Procedural"
                    ),
                    Candidate(
                        path="ops/oncall", content="Quarterly rota.", title="Rota", type="decision"
                    ),
                )
            )
        ]
    )

    edits = [dict(e) for e in plan.edits]
    assert [(e["leaf"], e["entry"], e["type"]) for e in edits] == [
        ("decisions/auth", "connections-use-oauth", "semantic"),
        ("api", "regenerate-the-client-after-a-model-change", "semantic"),
        ("ops/oncall", "page-the-owner-first", "procedural"),
        ("ops/oncall", "rota", "semantic"),
    ]
    assert edits[0]["title"] == "Connections use OAuth"
    assert edits[0]["body"] == "Use OAuth.\nNever paste tokens."
    assert edits[1]["title"] == "Regenerate the client after a model change"
    assert plan.summary == "Record 4 lessons from run r-1"

    checked = validate(plan, no_lookup)
    assert not checked.rejected
    assert [e.leaf for e in checked.edits][:2] == ["decisions/auth", "api/general"]


def test_a_long_candidate_title_is_bounded_so_validation_keeps_it():
    content = "Always " + " ".join(["rebuild"] * 60) + "."
    edit = only_edit(offline_plan([run(memory=(Candidate(path="build/x", content=content),))]))

    assert len(edit["title"]) <= MAX_TITLE
    assert len(edit["entry"]) <= 48
    assert edit["title"].startswith("Always rebuild")
    assert (
        validate(offline_plan([run(memory=(Candidate("build/x", content),))]), no_lookup)
        .edits[0]
        .title
        == edit["title"]
    )


# -- several runs, determinism -------------------------------------------------------------------


def test_several_runs_are_deduplicated_by_leaf_and_entry():
    again = RunRecord(run_id="ci-7-2", task="again", evidence=LOCKFILE_RUN.evidence)
    candidate = Candidate(path="api", content="Use RFC 3339.", title="Timestamps")
    same_place = Candidate(path="api/general", content="Use ISO 8601.", title="Timestamps")
    other = run(memory=(candidate, same_place), run_id="local-9")

    plan = offline_plan([LOCKFILE_RUN, again, other])

    assert [(e["leaf"], e["entry"]) for e in plan.edits] == [
        ("build/bun", only_edit(offline_plan([LOCKFILE_RUN]))["entry"]),
        ("api", "timestamps"),
    ]
    assert "ci-7-1" not in plan.edits[0]["body"]
    assert plan.summary == "Record 2 lessons from 2 runs"
    assert not validate(plan, no_lookup).rejected


def test_the_same_runs_give_the_same_plan_and_a_rerun_changes_nothing():
    runs = [LOCKFILE_RUN] + load_examples()
    first, second = offline_plan(runs), offline_plan(list(runs))

    assert json.dumps(first.to_dict()) == json.dumps(second.to_dict())

    written = {(e.leaf, e.entry): e.body for e in validate(first, no_lookup).edits}
    rerun = validate(
        second, lambda leaf: {entry: body for (lf, entry), body in written.items() if lf == leaf}
    )
    assert rerun.edits == ()
    assert {note.reason for note in rerun.rejected} == {"the entry already says this (no change)"}


# -- error signatures -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "bun install v1\nerror: lockfile had changes\nnote: retry\n",
            "error: lockfile had changes",
        ),
        (
            'Traceback (most recent call last):\n  File "env.py", line 18\n'
            "KeyError: 'DATABASE_URL'\nRuntimeError: DATABASE_URL is not set\n",
            "RuntimeError: DATABASE_URL is not set",
        ),
        (
            "F\n========= FAILURES =========\nE       assert 1 == 2\n1 failed in 0.1s\n",
            "assert 1 == 2",
        ),
        ("building...\nstep 3/5\nThe build could not finish\nbye\n", "The build could not finish"),
        ("collected 3 items\nexit status 3\n\n", "exit status 3"),
        ("\x1b[31mERROR\x1b[0m: disk full\n", "ERROR: disk full"),
        ("", ""),
        ("=======\n-------\n", ""),
        (  # git's reason comes first, its hints after: the hints are not what failed
            "The following paths are ignored by one of your .gitignore files:\npriv/static\n"
            'hint: Use -f if you really want to add them.\nhint: "git config advice.x false"',
            "The following paths are ignored by one of your .gitignore files:",
        ),
        (  # a real pre-commit hook's message, printed JSON-escaped, as Claude Code recorded it
            "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix "
            "format' to fix.\\n\\nFix these issues before committing.",
            "[FORMAT] Code is not formatted.",  # the line under the heading says what failed
        ),
        (  # jest's banner over a suite that could not run: the error is the next line
            "FAIL tests/api/orders.test.ts\n  ● Test suite failed to run\n\n"
            "    listen EADDRINUSE: address already in use :::4010\n\n"
            "      at Server.x (node:net:1)\n",
            "listen EADDRINUSE: address already in use :::4010",
        ),
    ],
)
def test_signature_is_the_most_telling_line(output: str, expected: str):
    assert signature(output) == expected


def test_signature_is_bounded_and_keeps_redaction_markers():
    line = "error: auth failed for token [REDACTED:github-token] " + "x" * 400

    sig = signature("start\n" + line + "\n")

    assert len(sig) <= 200
    assert sig.startswith("error: auth failed for token [REDACTED:github-token] xxx")


# -- the example runs shipped for `wikimem demo` --------------------------------------------------


def example_files() -> list[Path]:
    return sorted(RUNS.glob("*.json"))


def examples() -> dict[str, RunRecord]:
    """Each shipped run as a pass sees it: normalised, redacted and bounded."""
    records = {}
    for path in example_files():
        snap, _ = take(normalise(json.loads(path.read_text(encoding="utf-8")), str(path)))
        records[path.name] = snap
    return records


def load_examples() -> list[RunRecord]:
    return list(examples().values())


EXPECTED_LEAVES = {
    "01-uv-lockfile-drift.json": ["build/uv"],
    "02-xdist-sqlite-locked.json": ["testing/pytest"],
    "03-cloud-run-port.json": ["deploy/gcloud"],
    "04-docs-typo.json": [],
    "05-timestamp-decision.json": ["decisions/api", "api/client"],
    "06-dispatch-with-token.json": ["ci/github-actions"],
    "07-e2e-browsers-missing.json": ["testing/playwright", "testing/playwright"],
}


def test_the_examples_ship_in_story_order():
    assert [p.name for p in example_files()] == sorted(EXPECTED_LEAVES)


@pytest.mark.parametrize("name", sorted(EXPECTED_LEAVES))
def test_each_example_gives_the_expected_edits_and_validates_cleanly(name: str):
    record = examples()[name]

    plan = offline_plan([record])

    assert [e["leaf"] for e in plan.edits] == EXPECTED_LEAVES[name]
    checked = validate(plan, no_lookup)
    assert checked.rejected == ()
    assert len(checked.edits) == len(EXPECTED_LEAVES[name])
    for edit in plan.edits:
        if edit["reason"].endswith("(offline rules)"):
            assert record.run_id not in edit["body"]


def test_example_fixes_name_the_right_steps():
    plans = {name: offline_plan([record]) for name, record in examples().items()}

    lock = only_edit(plans["01-uv-lockfile-drift.json"])["body"]
    assert "When it fails this way, run `uv lock`; then the same command passes." in lock
    assert "git " not in lock  # committing the fix is not the fix
    assert "needs to be updated, but `--locked` was provided" in lock

    changed = only_edit(plans["02-xdist-sqlite-locked.json"])
    assert changed["title"] == "pytest fails: database is locked"
    assert "grep" not in changed["body"]
    # the run says `-n 0` holds only "until the fixture gives each worker its own database":
    # a stopgap, kept as one, with the run's own cause and what is left to do
    assert "run it as" not in changed["body"]
    assert "`pytest -n 0 tests/integration -q` passes, but it only works around" in changed["body"]
    assert "share one SQLite file" in changed["body"]
    assert "Still to do: give each xdist worker its own database file" in changed["body"]
    assert changed["type"] == "working" and changed["meta"] == {"review-by": "2026-12-16"}

    deploy = only_edit(plans["03-cloud-run-port.json"])
    assert deploy["title"] == (
        "gcloud run deploy fails: The user-provided container failed to start and listen"
    )
    assert "edit `gunicorn.conf.py` as below" in deploy["body"]
    assert "logs read" not in deploy["body"]


def test_the_token_example_is_redacted_before_the_rules_see_it():
    raw = (RUNS / "06-dispatch-with-token.json").read_text(encoding="utf-8")
    assert TOKEN in raw

    record = examples()["06-dispatch-with-token.json"]
    snapshot_text = json.dumps([e.output for e in record.evidence])
    plan = offline_plan([record])

    assert TOKEN not in snapshot_text
    assert "[REDACTED:" in snapshot_text
    assert TOKEN not in json.dumps(plan.to_dict())
    assert not validate(plan, no_lookup).rejected


def test_all_examples_in_one_call():
    plan = offline_plan(load_examples())

    assert len(plan.edits) == sum(len(v) for v in EXPECTED_LEAVES.values())
    assert plan.summary == "Record 8 lessons from 6 runs"
    assert validate(plan, no_lookup).rejected == ()


# -- entries a person would write ----------------------------------------------------------------


def lock_run(lock_id: str, run_id: str, flags: str = "") -> RunRecord:
    """Terraform's state lock, as a run meets it: a one-off lock id in the output and the fix."""
    output = (
        "Error: Error acquiring the state lock\n\n"
        "Error message: ConditionalCheckFailedException: The conditional request failed\n"
        "Lock Info:\n"
        f"  ID:        {lock_id}\n"
        "  Path:      acme-tfstate/prod/terraform.tfstate\n"
        "  Created:   2026-11-29 10:02:11.482 +0000 UTC\n"
    )
    return run(
        cmd(f"terraform plan{flags}", 1, output),
        cmd("git status", 0, "clean"),
        cmd("git commit -am wip", 0, "[main 1a2b3c4] wip"),
        cmd(f"terraform force-unlock -force {lock_id}", 0, "Terraform state has been unlocked!"),
        cmd(f"terraform plan{flags}", 0, "No changes."),
        run_id=run_id,
    )


def test_one_off_values_become_named_placeholders_and_ids_stay_short():
    edit = only_edit(offline_plan([lock_run("9db590f1-b6fe-c5f2-2678-8804f089deba", "a")]))

    assert edit["leaf"] == "infra/terraform"
    assert edit["leaf_title"] == "Terraform"
    assert edit["title"] == "terraform plan fails: Error acquiring the state lock"
    assert len(edit["entry"]) <= 80
    body = edit["body"]
    assert "9db590f1" not in body
    assert "run `terraform force-unlock -force <LOCK_ID>`; then the same command passes." in body
    assert "git commit" not in body  # not part of the fix


def test_the_same_failure_seen_again_keys_to_the_same_entry():
    first = only_edit(offline_plan([lock_run("9db590f1-b6fe-c5f2-2678-8804f089deba", "a")]))
    again = only_edit(
        offline_plan([lock_run("0c4e1d2a-7f3b-4a9e-8d21-5b6c7e8f9a01", "b", " -lock-timeout=30s")])
    )

    assert (again["leaf"], again["entry"]) == (first["leaf"], first["entry"])
    written = {first["entry"]: first["body"]}
    checked = validate(RawPlan("again", (again,)), lambda leaf: written)
    assert [e.action for e in checked.edits] == ["update"]  # the entry, not a near-duplicate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lock 9db590f1-b6fe-c5f2-2678-8804f089deba held", "lock <LOCK_ID> held"),
        ("request 9db590f1-b6fe-c5f2-2678-8804f089deba", "request <UUID>"),
        ("at 2026-11-29T10:02:11Z and 10:02:11", "at <TIMESTAMP> and <TIME>"),
        ("commit 3f2c9a1b7e4d5c6a8b9e0f1a2b3c4d5e6f7a8b9c", "commit <HASH>"),
        ("bun v1.1.30 (7b5a6c6f)", "bun v1.1.30 (7b5a6c6f)"),
        ("killed pid 48213", "killed pid <PID>"),
        (
            "listening on 127.0.0.1:49733 and localhost:6379",
            "listening on 127.0.0.1:<PORT> and localhost:6379",
        ),
        ("wrote /tmp/pytest-of-ci/pytest-7/db0/test.db", "wrote <TMP_PATH>"),
        ("revision api-00012-kav failed", "revision <REVISION> failed"),
    ],
)
def test_placeholders(text: str, expected: str):
    assert placeholders(text) == expected
    assert placeholders(expected) == expected


def test_a_tool_already_filed_elsewhere_keeps_its_leaf():
    known = Known({"terraform": "platform/terraform"})

    edit = only_edit(offline_plan([lock_run("9db590f1-b6fe-c5f2-2678-8804f089deba", "a")], known))

    assert edit["leaf"] == "platform/terraform"
    assert home("terraform", ["platform/terraform", "build/bun"]) == "platform/terraform"
    assert home("bun", ["bun/troubleshooting"]) == "bun/troubleshooting"
    assert home("terraform", []) == "infra/terraform"
    assert home("frobnicate", []) == "tools/frobnicate"


def test_a_failure_another_entry_describes_is_left_to_it():
    page = (
        "---\ntitle: Bun\n---\n# Bun\n\n## Lockfile drift on CI\n\n"
        "`bun install --frozen-lockfile` fails with `lockfile had changes`. Run `bun install`.\n"
    )
    known = Known.from_view([("bun", "build/bun", True)], [("build/bun/MEMORY.md", page)])

    assert offline_plan([LOCKFILE_RUN], known).edits == ()
    # The rules' own entry is not "another": proposing it again updates it or changes nothing.
    own = only_edit(offline_plan([LOCKFILE_RUN]))
    mine = f"---\ntitle: Bun\n---\n# Bun\n\n## {own['title']}\n\n{own['body']}\n"
    known = Known.from_view([("bun", "build/bun", True)], [("build/bun/MEMORY.md", mine)])
    again = only_edit(offline_plan([LOCKFILE_RUN], known))
    assert again["entry"] == own["entry"]
    assert "leaf_summary" not in again  # an existing leaf keeps its own title and summary


def test_an_entry_a_person_owns_is_not_proposed():
    def owned(leaf: str, entry: str) -> bool:
        return (leaf, entry) == ("build/bun", "bun-install-fails-lockfile-had-changes")

    assert offline_plan([LOCKFILE_RUN], owned=owned).edits == ()


def test_a_script_fixed_by_editing_it_is_a_bug_fixed_not_a_lesson():
    evidence = (
        cmd("python upload_once.py", 1, "botocore.exceptions.ClientError: NoSuchBucket"),
        edited("upload_once.py", "-BUCKET = 'acme-exprots'\n+BUCKET = 'acme-exports'\n"),
        cmd("python upload_once.py", 0, "uploaded 3 files"),
    )

    assert offline_plan([run(*evidence)]).edits == ()


def test_a_fix_the_runs_own_candidate_states_is_not_said_twice():
    candidate = Candidate(
        path="testing/e2e",
        content="Run `npx playwright install --with-deps` before `npx playwright test`.",
        title="Install browsers first",
    )
    evidence = (
        cmd("npx playwright test", 1, "browserType.launch: Executable doesn't exist"),
        cmd("npx playwright install --with-deps", 0, "done"),
        cmd("npx playwright test", 0, "42 passed"),
    )

    plan = offline_plan([run(*evidence, memory=(candidate,))])

    assert [e["leaf"] for e in plan.edits] == ["testing/e2e"]


def test_commands_of_another_tool_belong_only_when_they_touch_the_failure():
    evidence = (
        cmd(
            "npm ci",
            1,
            'npm ERR! code EBADENGINE\nnpm ERR! engine Unsupported engine: {"node":">=20"}',
        ),
        cmd("ruff check .", 0, "All checks passed"),
        cmd("nvm use 20", 0, "Now using node v20.11.1"),
        cmd("npm ci", 0, "added 812 packages"),
    )

    edit = only_edit(offline_plan([run(*evidence)]))

    assert edit["title"] == "npm ci fails: EBADENGINE: Unsupported engine"
    assert "run `nvm use 20`; then the same command passes." in edit["body"]
    assert "ruff" not in edit["body"]


def test_a_generic_tool_fixed_in_a_workflow_file_is_filed_with_the_workflows():
    evidence = (
        cmd(
            "curl -sf -X POST https://api.github.com/x/dispatches",
            22,
            '{"message":"Workflow does not have \'workflow_dispatch\' trigger"}',
        ),
        edited(".github/workflows/nightly.yml", "+  workflow_dispatch:\n"),
        cmd("curl -sf -X POST https://api.github.com/x/dispatches", 0, ""),
    )

    edit = only_edit(offline_plan([run(*evidence)]))

    assert edit["leaf"] == "ci/github-actions"
    assert edit["title"] == "curl fails: Workflow does not have 'workflow_dispatch' trigger"


def test_an_entry_of_the_rules_a_person_added_to_is_theirs():
    own = only_edit(offline_plan([lock_run("9db590f1-b6fe-c5f2-2678-8804f089deba", "a")]))
    added = own["body"] + "\n\nAsk in #platform before unlocking: a plan may still be running."
    page = f"---\ntitle: Terraform\n---\n# Terraform\n\n## {own['title']}\n\n{added}\n"
    known = Known.from_view(
        [("terraform", "infra/terraform", True)], [("infra/terraform/MEMORY.md", page)]
    )
    again = lock_run("0c4e1d2a-7f3b-4a9e-8d21-5b6c7e8f9a01", "b")

    assert offline_plan([again], known).edits == ()
    assert rules_wrote(own["body"]) and not rules_wrote(added)


@pytest.mark.parametrize(
    "evidence",
    [
        pytest.param(
            (
                cmd("pytest tests/test_totals.py", 1, "E       assert 41 == 42\n1 failed"),
                edited("src/totals.py", "-    return total\n+    return total + fee\n"),
                cmd("pytest tests/test_totals.py", 0, "3 passed"),
            ),
            id="assertion fixed in the code",
        ),
        pytest.param(
            (
                cmd("mypy src", 1, "src/a.py:3: error: Incompatible return value type"),
                edited("src/a.py", "-def f() -> int:\n+def f() -> str:\n"),
                cmd("mypy src", 0, "Success: no issues found"),
            ),
            id="type error fixed in the code",
        ),
        pytest.param(
            (
                cmd(
                    "ruff check tests/", 1, "tests/conftest.py:1:1: I001 Import block is un-sorted"
                ),
                cmd("ruff check --fix tests/", 0, "Found 1 error (1 fixed, 0 remaining)."),
            ),
            id="linter autofix",
        ),
    ],
)
def test_a_bug_fixed_is_not_a_lesson(evidence: tuple[Evidence, ...]):
    assert offline_plan([run(*evidence)]).edits == ()


def test_the_command_a_failure_suggests_is_its_fix_with_one_off_names_as_placeholders():
    said = (
        "fatal: The current branch spotter-gqc has no upstream branch.\n"
        "To push the current branch and set the remote as upstream, use\n\n"
        "    git push --set-upstream origin spotter-gqc\n"
    )
    edit = only_edit(
        offline_plan(
            [
                run(
                    cmd("git push 2>&1", 128, said),
                    cmd("git push --set-upstream origin spotter-gqc 2>&1", 0, "new branch"),
                )
            ]
        )
    )

    assert edit["leaf"] == "tools/git"
    assert edit["title"] == "git push fails: The current branch <BRANCH> has no upstream branch"
    assert "run it as `git push --set-upstream origin <BRANCH> 2>&1` instead" in edit["body"]
    assert "spotter-gqc" not in edit["body"]


def test_an_exunit_assertion_fixed_in_the_test_is_a_bug_fixed():
    failure = (
        "  1) test badge has a label (AppWeb.SessionLiveTest)\n"
        "     test/app_web/live/session_live_test.exs:146\n"
        "     Assertion with =~ failed\n"
        '     code:  assert html =~ "is-subagent"\n'
    )
    evidence = (
        cmd("mix test test/app_web/live/session_live_test.exs", 2, failure),
        edited("test/app_web/live/session_live_test.exs", "-a\n+b\n"),
        cmd("mix test test/app_web/live/session_live_test.exs", 0, "12 tests, 0 failures"),
    )

    assert offline_plan([run(*evidence)]).edits == ()


def test_a_node_script_run_from_the_wrong_folder_is_a_node_lesson():
    evidence = (
        cmd("node assets/build.js", 1, '✘ [ERROR] Could not resolve "js/app.js"\n'),
        cmd("cd /home/ana/app/assets && node build.js", 0, ""),
    )

    edit = only_edit(offline_plan([run(*evidence)]))

    assert edit["leaf"] == "build/node"
    assert "run it as `cd ~/app/assets && node build.js` instead" in edit["body"]


def test_a_flag_the_output_advises_on_a_path_it_names_is_the_fix():
    said = (
        "The following paths are ignored by one of your .gitignore files:\n"
        "priv/static/assets\n"
        "hint: Use -f if you really want to add them.\n"
    )
    evidence = (
        cmd("git add lib/app.ex priv/static/assets/app.css", 1, said),
        cmd("git add lib/app.ex", 0, ""),
        cmd("git add -f priv/static/assets/app.css", 0, ""),
    )

    edit = only_edit(offline_plan([run(*evidence)]))

    assert edit["leaf"] == "tools/git"
    assert "run it as `git add -f priv/static/assets/app.css` instead" in edit["body"]
    # another flag, or a path the output did not name, is another command
    other = (evidence[0], cmd("git add -f docs/readme.md", 0, ""))
    assert offline_plan([run(*other)]).edits == ()
