"""The prompt hook on a person's own words: real issue titles (tests/data/replay_prompts/,
with their sources) submitted as a session's first prompt through the installed command under
`env -i`, against a wiki an offline pass learned from the lessons they describe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_deliver import context_of, deliver, learn_from

PROMPTS = Path(__file__).parent / "data" / "replay_prompts" / "prompts.jsonl"
ROWS = {
    row["id"]: row
    for row in map(json.loads, PROMPTS.read_text(encoding="utf-8").splitlines())
    if row
}
LESSONS = ("01-bun-lockfile.json", "13-other-command-pnpm.json", "34-stopgap-for-now.json")


def prompt(row_id: str) -> dict[str, object]:
    return {
        "hook_event_name": "UserPromptSubmit",
        "session_id": f"s-{row_id}",
        "prompt": ROWS[row_id]["prompt"],
    }


@pytest.fixture
def wiki(workspace: Path, isolated_env: Path) -> Path:
    learn_from(workspace, *LESSONS)
    return workspace


@pytest.mark.parametrize(
    ("row_id", "entry"),
    [
        # the error pasted as the title: its code's parts are one name, not three words
        ("13-same-1", "build/pnpm#pnpm-install-fails-err_pnpm_outdated_lockfile"),
        ("01-same-1", "build/bun#bun-install-fails-lockfile-had-changes"),
    ],
)
def test_a_pasted_error_gets_the_entry_that_quotes_it(
    wiki: Path, isolated_env: Path, row_id: str, entry: str
) -> None:
    out, _ = deliver(wiki, isolated_env, prompt(row_id))
    text = context_of(out, "UserPromptSubmit")
    assert entry in text
    assert text.count("### ") == 1  # that entry alone


@pytest.mark.parametrize("row_id", sorted(r for r in ROWS if r.startswith("none-")))
def test_a_prompt_about_other_work_gets_nothing(
    wiki: Path, isolated_env: Path, row_id: str
) -> None:
    """Real titles of unrelated work (`check badges in README.md`)."""
    assert deliver(wiki, isolated_env, prompt(row_id)) == ("", "")


def test_the_wordings_file_is_well_formed() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(PROMPTS.with_name("check.py"))], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
