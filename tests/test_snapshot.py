"""The snapshot of a huge text: only its two ends are redacted, and what is kept is exactly what
redacting it whole would keep; a secret anywhere never reaches the snapshot in part."""

from __future__ import annotations

import random
import re
import string

import pytest

from wikimem.intake import snapshot
from wikimem.intake.record import normalise
from wikimem.intake.snapshot import ENDS, GUARD, ends_bounded, take


def token(rng: random.Random) -> str:
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def log_with(secrets_at: dict[int, str], size: int) -> str:
    """A build log of `size` characters with each secret placed at its offset."""
    line = "compiling module 0042 of the workspace ... ok\n"
    text = list((line * (size // len(line) + 1))[:size])
    for offset, secret in secrets_at.items():
        text[offset : offset + len(secret)] = secret
    return "".join(text)[:size]


def run_with(output: str) -> dict[str, object]:
    return {
        "task": "build it",
        "evidence": [{"kind": "command", "command": "make", "exit_code": 1, "output": output}],
    }


def whole(record: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> tuple[object, list[str]]:
    """The snapshot as redacting every text whole would make it."""
    with monkeypatch.context() as patched:
        patched.setattr(snapshot, "ENDS", 10**12)
        return take(normalise(record))


def test_a_huge_output_keeps_what_whole_redaction_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    size = 3 * ENDS + 5000
    secrets = {
        100: token(rng),  # in the kept head
        ENDS - 20: token(rng),  # straddles where the head end is cut
        ENDS + 900: token(rng),  # in the middle, never read
        size - ENDS - 10: token(rng),  # straddles where the tail end starts
        size - 300: token(rng),  # in the kept tail
    }
    record = run_with(log_with(secrets, size))
    fast, fast_kinds = take(normalise(record))
    slow, slow_kinds = whole(record, monkeypatch)
    output = fast.evidence[0].output
    # the same text kept; the counts differ by what redacting the middle shortened it by
    count = re.compile(r"\[\.\.\. \d+ characters cut")
    assert count.sub("", output) == count.sub("", slow.evidence[0].output)  # type: ignore[attr-defined]
    assert "[REDACTED:" in output and "characters cut" in output
    for secret in secrets.values():
        for piece in (secret[:12], secret[12:24], secret[-12:]):
            assert piece not in output
    assert len(fast_kinds) >= 2 and set(fast_kinds) <= set(slow_kinds)


def test_an_end_that_redaction_shrinks_falls_back_to_the_whole_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(11)
    size = 2 * ENDS + 10
    # the head end is nearly all secrets: redacted, it is far shorter than head + GUARD
    packed = {offset: token(rng) for offset in range(0, ENDS - GUARD // 2, 41)}
    text = log_with(packed, size)
    first, _ = snapshot.redact(text[:ENDS])
    assert len(first) < 2000 + GUARD
    assert ends_bounded(text, 2000, 2000) is None
    record = run_with(text)
    assert take(normalise(record)) == whole(record, monkeypatch)


def test_short_texts_are_redacted_whole() -> None:
    assert ends_bounded("x" * (2 * ENDS), 10, 10) is None


def test_the_cut_marker_counts_every_character_cut() -> None:
    size = 4 * ENDS
    bounded = ends_bounded("a" * size, 2000, 2000)
    assert bounded is not None
    text, kinds = bounded
    assert kinds == [] and text == "a" * 2000 + f"\n[... {size - 4000} characters cut ...]\n" + (
        "a" * 2000
    )


def test_every_bounded_field_of_a_huge_run_is_taken_from_its_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(3)
    secret = token(rng)
    big = log_with({50: secret}, 3 * ENDS)
    record = {
        "task": big,
        "result": big,
        "evidence": [
            {"kind": "command", "command": "make", "exit_code": 1, "output": big},
            {"kind": "file", "path": "a.txt", "diff": big},
        ],
        "memory": [{"path": "build/make", "type": "procedural", "title": "t", "content": big}],
    }
    fast, kinds = take(normalise(record))
    assert fast == whole(record, monkeypatch)[0]
    assert secret[:12] not in repr(fast) and len(kinds) == 5
