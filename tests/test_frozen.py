"""Frozen records (wikimem/frozen.py): what the settings, the edit and the wiki's page records
need from dataclasses, without loading it on the start-up of `show` and the hooks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wikimem.frozen import FrozenError, frozen, replace
from wikimem.wiki.edit import Edit


@frozen
class Point:
    x: int
    y: int = 0


def test_a_record_is_built_compared_hashed_and_shown_by_its_fields() -> None:
    assert Point(1) == Point(x=1, y=0) != Point(1, 2)
    assert len({Point(1), Point(1, 0), Point(2)}) == 2
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    with pytest.raises(TypeError, match="missing required arguments: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(FrozenError):
        Point(1).x = 3  # type: ignore[misc]


def test_replace_copies_a_record_with_some_fields_changed() -> None:
    edit = Edit("add", "build/bun", "lockfile", "Lockfile", "procedural", "Run bun install.")
    confirmed = replace(edit, reason="seen again", meta=(("confirmed", "2026-12-03"),))
    assert confirmed.reason == "seen again" and confirmed.body == edit.body
    assert edit.reason == "" and edit.meta == ()  # the original is untouched
    with pytest.raises(TypeError, match="no field 'colour'"):
        replace(edit, colour="red")


def test_show_loads_no_dataclasses(tmp_path: Path) -> None:
    """`wikimem show` should start as fast as click does: its page records are frozen records,
    since `dataclasses` builds each class with `exec` (click loads `inspect` itself)."""
    from wikimem import config
    from wikimem.wiki.workspace import init

    places = config.places(tmp_path, {})
    init(places, config.load(places, {}))
    code = (
        "import sys\nfrom wikimem.cli import main\n"
        "try:\n    main(['show', '-C', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m == 'dataclasses'),"
        " file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert out.stdout.startswith("---") or out.stdout.startswith("#"), out
    assert out.stderr.strip().splitlines()[-1] == "[]"
