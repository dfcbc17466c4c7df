"""Command adapter: real child processes, output relayed whole, a bounded copy recorded."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from wikimem.runners.command import BoundedCopy, run_and_record

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_success_relays_both_streams_and_records_them(capfd: pytest.CaptureFixture) -> None:
    argv = python("import sys; print('built 3 pages'); print('warn: slow', file=sys.stderr)")

    status, record = run_and_record(argv, "Build the docs")

    out, err = capfd.readouterr()
    assert status == 0
    assert out == "built 3 pages\n" and err == "warn: slow\n"
    assert STAMP.match(record.pop("started_at")) and STAMP.match(record.pop("ended_at"))
    [item] = record.pop("evidence")
    assert sorted(item["output"].splitlines()) == ["built 3 pages", "warn: slow"]
    assert item == {
        "kind": "command",
        "command": shlex.join(argv),
        "exit_code": 0,
        "output": item["output"],
    }
    assert record == {"task": "Build the docs", "status": "succeeded"}


def test_failure_keeps_the_exit_status(capfd: pytest.CaptureFixture) -> None:
    argv = python("import sys; print('E   assert 1 == 2'); sys.exit(3)")

    status, record = run_and_record(argv, None)

    assert status == 3
    assert record["status"] == "failed"
    assert record["task"] == f"Run `{shlex.join(argv)}`"
    assert record["evidence"][0]["exit_code"] == 3
    assert record["evidence"][0]["output"] == "E   assert 1 == 2\n"
    assert capfd.readouterr().out == "E   assert 1 == 2\n"


def test_killed_by_a_signal_follows_the_shell_convention() -> None:
    status, record = run_and_record(
        python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)"), "t"
    )

    assert status == 128 + 15
    assert record["evidence"][0]["exit_code"] == 143


def test_missing_executable_is_127_and_noted(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    missing = str(tmp_path / "no-such-agent")

    status, record = run_and_record([missing, "--run"], "Ask the agent")

    assert status == 127
    assert record["status"] == "failed"
    assert record["evidence"] == [
        {
            "kind": "command",
            "command": f"{missing} --run",
            "exit_code": 127,
            "output": f"command not found: {missing}",
        }
    ]
    assert f"command not found: {missing}" in capfd.readouterr().err


def test_not_executable_is_126(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)

    status, record = run_and_record([str(script)], None)

    assert status == 126
    assert record["evidence"][0]["exit_code"] == 126


def test_large_output_passes_through_whole_and_is_kept_bounded(
    capfdbinary: pytest.CaptureFixture,
) -> None:
    code = (
        "import sys\nsys.stdout.write('HEAD\\n' + 'x' * 999 + '\\n')\n"
        "for i in range(2000): sys.stdout.write(f'line {i:05d} ' + 'y' * 500 + '\\n')\n"
        "sys.stdout.write('TAIL\\n')"
    )

    status, record = run_and_record(python(code), "Print a lot", limit=4000)

    out = capfdbinary.readouterr().out
    assert status == 0
    assert len(out) > 1_000_000 and out.startswith(b"HEAD\n") and out.endswith(b"TAIL\n")
    kept = record["evidence"][0]["output"]
    assert kept.startswith("HEAD\n") and kept.endswith("TAIL\n")
    assert "bytes omitted" in kept
    assert len(kept) < 4100


def test_bounded_copy_counts_what_it_drops() -> None:
    copy = BoundedCopy(10)
    for chunk in (b"abc", b"defgh", b"ijklmnopqrstuv", b"wxyz"):
        copy.add(chunk)

    assert copy.text() == "abcde\n[... 16 bytes omitted ...]\nvwxyz"
    small = BoundedCopy(100)
    small.add(b"ok\n")
    assert small.text() == "ok\n"


@pytest.mark.parametrize(
    "args",
    [
        ["--from-command", "--task", "nightly e2e", "--", "npm", "test"],
        ["--task", "nightly e2e", "--from-command", "--", "npm", "test"],
        ["--from-command", "--task", "nightly e2e", "npm", "test"],
    ],
)
def test_hook_options_may_come_before_or_after_from_command(args: list[str]) -> None:
    from wikimem.cli.hook import parse_args

    parsed = parse_args(args)
    assert parsed.task == "nightly e2e" and parsed.command == ["npm", "test"]


@pytest.mark.parametrize("args", [["--from-command"], ["--", "true"]])
def test_hook_command_flags_must_come_together(args: list[str]) -> None:
    from wikimem.cli.hook import parse_args

    with pytest.raises(ValueError):
        parse_args(args)
