"""The failure hook when a failure comes back in another project's words: real outputs copied
from public issue threads (tests/data/replay_variants/, with their sources), replayed through
the installed command under `env -i` against a wiki an offline pass learned from a lesson."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_deliver import context_of, deliver, learn_from
from tests.test_search import write_leaf
from wikimem.recall.search import SearchIndex
from wikimem.recall.symptoms import failure_entries, kinds, launches, programs, script_programs

VARIANTS = Path(__file__).parent / "data" / "replay_variants" / "variants.jsonl"
ROWS = {
    row["id"]: row
    for row in map(json.loads, VARIANTS.read_text(encoding="utf-8").splitlines())
    if row
}


def failure(row_id: str, command: str | None = None) -> dict[str, object]:
    row = ROWS[row_id]
    return {
        "hook_event_name": "PostToolUseFailure",
        "session_id": f"s-{row_id}",
        "tool_name": "Bash",
        "tool_input": {"command": command or row["command"]},
        "error": f"Exit code 1\n{row['error']}",
    }


@pytest.mark.parametrize(
    ("lesson", "row_id", "entry"),
    [
        # npm 6 words it `cipm can only install packages…`, wrapped: the entry quotes npm 9's
        ("12-other-command-npm.json", "npm-same-1", "build/npm#npm-ci-fails-eusage-npm-ci"),
        # Playwright driven by a project's script under node, on macOS paths
        ("16-other-command-playwright.json", "pw-same-1", "testing/playwright#"),
        # `tf`, an alias of terraform, with another provider
        ("18-other-command-terraform.json", "tf-same-1", "infra/terraform#"),
        # alembic run by Flask-Migrate under poetry: neither names alembic, the error is its own
        ("17-other-command-alembic.json", "alembic-same-1", "database/alembic#alembic-upgrade"),
        # jest run by `npm test`, with no package.json to say so: the port clash in jest's words
        ("34-stopgap-for-now.json", "jest-same-2", "testing/jest#"),
        # Docker's legacy builder: `no such file or directory` for BuildKit's `not found`
        ("20-other-command-docker.json", "docker-same-2", "deploy/docker#"),
    ],
)
def test_the_same_failure_in_another_projects_words_gets_the_lesson(
    workspace: Path, isolated_env: Path, lesson: str, row_id: str, entry: str
) -> None:
    learn_from(workspace, lesson)
    out, _ = deliver(workspace, isolated_env, failure(row_id))
    assert entry in context_of(out, "PostToolUseFailure")


def test_another_error_code_of_the_same_tool_gets_nothing(
    workspace: Path, isolated_env: Path
) -> None:
    """A registry 404 (`ERR_PNPM_FETCH_404`) is not the outdated lockfile the wiki knows."""
    learn_from(workspace, "13-other-command-pnpm.json")
    known = {
        "hook_event_name": "PostToolUseFailure",
        "session_id": "s-known",
        "tool_name": "Bash",
        "tool_input": {"command": "pnpm install --frozen-lockfile"},
        "error": "Exit code 1\n ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with"
        ' "frozen-lockfile" because pnpm-lock.yaml is not up to date with package.json',
    }
    assert "build/pnpm#" in context_of(
        deliver(workspace, isolated_env, known)[0], known["hook_event_name"]
    )  # type: ignore[arg-type]
    assert deliver(workspace, isolated_env, failure("pnpm-other-4")) == ("", "")


def test_a_launcher_needs_more_of_the_errors_words_and_another_tool_gets_nothing(
    workspace: Path, isolated_env: Path
) -> None:
    """A command that runs another program (`poetry run flask db upgrade`) gets a lesson of a
    tool it never names only on three runs of three of the entry's error words (alembic-same-1
    has them, above); two are not enough, and a program that runs nothing else (`bin/rails`)
    gets nothing even on the whole error."""
    learn_from(workspace, "17-other-command-alembic.json")
    short = failure("alembic-same-1")
    short["error"] = 'Exit code 1\nOperationalError: connection to server at "localhost" failed'
    assert deliver(workspace, isolated_env, short) == ("", "")
    rails = failure("alembic-same-1", "bin/rails db:migrate")
    assert deliver(workspace, isolated_env, rails) == ("", "")


def test_the_same_kind_of_failure_needs_the_same_subject(
    workspace: Path, isolated_env: Path
) -> None:
    """A file missing from the build context is the lesson's failure only when it is the file
    the lesson is about (`dist`), not another one (`config.yml`)."""
    learn_from(workspace, "20-other-command-docker.json")
    other = failure("docker-same-2")
    other["error"] = (
        "Exit code 1\nStep 8/11 : COPY config.yml /app/config.yml\n"
        "COPY failed: stat /var/lib/docker/tmp/docker-builder779780846/config.yml: no such file"
        " or directory"
    )
    assert deliver(workspace, isolated_env, other) == ("", "")
    assert kinds("COPY failed: stat /x/dist: no such file or directory") == {"missing"}
    assert kinds('failed to calculate checksum of ref 4f1c: "/dist": not found') == {"missing"}
    assert kinds("listen EADDRINUSE: address already in use :::4010") == {"in use"}


def test_what_a_command_launches() -> None:
    assert launches("poetry run flask db upgrade") and launches("cd web && npm run build")
    assert launches("pnpm testheadless") and launches("make test") and launches("bundle exec rspec")
    assert not launches("cargo build") and not launches("npm ci") and not launches("bun install")
    assert not launches("docker-compose build") and not launches("uv pip install x")


def test_a_package_script_runs_the_program_its_package_json_names(
    workspace: Path, isolated_env: Path
) -> None:
    """`npm test` failing with part of jest's port clash gets the jest lesson when package.json
    says the test script is jest, and nothing when it does not say so (two runs of three of
    the error's words are enough for the tool itself, not for a program it never names)."""
    learn_from(workspace, "34-stopgap-for-now.json")
    data = failure("jest-same-2")
    data["error"] = "Exit code 1\nError: EADDRINUSE: address already in use"
    assert deliver(workspace, isolated_env, data) == ("", "")
    (workspace / "package.json").write_text('{"scripts": {"test": "jest --ci"}}')
    data["session_id"] = "s-again"
    assert "testing/jest#" in context_of(
        deliver(workspace, isolated_env, data)[0], "PostToolUseFailure"
    )


def test_what_a_command_line_runs(tmp_path: Path) -> None:
    assert programs("tf plan") == ["terraform"]
    assert programs("uv run pytest -x") == ["uv"]  # the launched tool: by its page, below
    web = tmp_path / "web"
    web.mkdir()
    (web / "package.json").write_text(
        '{"scripts": {"test": "vitest run", "lint": "eslint . && tsc --noEmit"}}'
    )
    assert script_programs("cd web && npm test", tmp_path) == ["vitest"]
    assert script_programs("cd web && pnpm run lint", tmp_path) == ["eslint", "tsc"]
    assert script_programs("cd web && yarn lint", tmp_path) == ["eslint", "tsc"]
    assert script_programs("cd web && npm ci", tmp_path) == []  # npm's own command
    assert script_programs("npm test", tmp_path) == []  # no package.json here
    (tmp_path / "package.json").write_text("{not json")
    assert script_programs("npm test", tmp_path) == []


def test_package_json_is_read_only_as_a_small_regular_file_inside_the_folder(
    tmp_path: Path,
) -> None:
    """The hook runs in the agent's loop: a pipe, a device or a huge file in the place of
    `package.json` is not read, nor a `package.json` outside the folder the command ran in."""
    import os

    inside = tmp_path / "ws"
    outside = tmp_path / "other"
    inside.mkdir()
    outside.mkdir()
    (outside / "package.json").write_text('{"scripts": {"test": "jest"}}')
    assert script_programs("cd ../other && npm test", inside) == []
    assert script_programs(f"cd {outside} && npm test", inside) == []
    os.mkfifo(inside / "package.json")  # would block a reader for ever
    assert script_programs("npm test", inside) == []
    (inside / "package.json").unlink()
    (inside / "package.json").symlink_to("/dev/zero")  # endless
    assert script_programs("npm test", inside) == []
    (inside / "package.json").unlink()
    (inside / "package.json").write_text("[" * 100_000 + "]" * 100_000)  # too deep to parse
    assert script_programs("npm test", inside) == []


def test_a_path_part_is_not_a_tool(workspace: Path, isolated_env: Path) -> None:
    """A `python -m app` lesson files its page as `app`: an error quoting `/app/main.py` does
    not name that tool, so its entries are not another failure's fix."""
    from tests.test_deliver import learn_from as learn

    learn(workspace, "25-module-dateutil.json", "24-module-requests.json")
    data = {
        "hook_event_name": "PostToolUseFailure",
        "session_id": "s-app",
        "tool_name": "Bash",
        "tool_input": {"command": "docker compose run web"},
        "error": 'Exit code 1\n  File "/app/main.py", line 1, in <module>\n'
        "    import flask\nModuleNotFoundError: No module named 'flask'",
    }
    assert deliver(workspace, isolated_env, data) == ("", "")


def test_the_variants_file_is_well_formed() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(VARIANTS.with_name("check.py"))], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_entry_quoting_no_output_needs_a_run_of_the_errors_words(tmp_path: Path) -> None:
    """A note about docker that quotes no output holds many words: three of a long error's,
    scattered through it, are no symptom; a run of three is."""
    wiki = tmp_path / "wiki"
    note = (
        "Docker images here are built in CI. The registry keeps a cache of each layer, and the"
        " context directory is trimmed by .dockerignore so the build stays small."
    )
    write_leaf(wiki, "deploy/docker", "Docker", "Images.", [("Docker builds in CI", note)])
    index = tmp_path / "search.sqlite"
    with SearchIndex(wiki, index) as search:
        search.refresh()
    scattered = "ERROR: cache for layer sha256:1f2e not in registry; context directory unreadable"
    assert failure_entries(index, "docker build .", scattered) == []
    run = "ERROR: the context directory is trimmed by .dockerignore; nothing to build"
    assert [f.ref for f in failure_entries(index, "docker build .", run)] == [
        "deploy/docker#docker-builds-in-ci"
    ]
