"""`wikimem export` / `wikimem import`: JSON lines out, merged back in without duplicates."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.recall_support import BUN, CACHE, PYTEST, learn, setup

TOKEN = "ghp_" + "R8kq2Lw9ZtY3xVb7NcM1pQ4sD6fG0hJ5aE2u"


def commits(wiki: Path) -> int:
    return int(git("rev-list", "--count", "HEAD", cwd=wiki))


def content(out: str) -> list[dict]:
    """Exported lines without their provenance (another repository, other commits)."""
    return [
        {k: v for k, v in json.loads(line).items() if k != "provenance"}
        for line in out.splitlines()
    ]


def test_export_then_import_into_another_workspace(tmp_path: Path, cli) -> None:
    source, target = tmp_path / "a", tmp_path / "b"
    source.mkdir()
    target.mkdir()
    places, settings = setup(source)
    learn(places, settings, "run-1", BUN, CACHE, PYTEST)
    exported = cli("export", "-C", str(source))
    lines = [json.loads(line) for line in exported.out.splitlines()]
    assert [(x["path"], x["entry"]) for x in lines] == [
        ("build/bun", "lockfile-drift-on-ci"),
        ("build/bun", "cache-key"),
        ("testing/pytest", "parallel-sqlite-locks"),
    ]
    first = lines[0]
    assert first["schema"] == 1 and first["type"] == "procedural"
    assert first["title"] == "Lockfile drift on CI" and first["body"] == BUN[2]
    head = git("rev-parse", "HEAD", cwd=places.wiki).strip()
    assert first["provenance"]["commit"] == head

    dump = tmp_path / "memory.jsonl"
    assert cli("export", "-C", str(source), "-o", str(dump)).code == 0
    assert dump.read_text() == exported.out
    done = cli("import", "-C", str(target), str(dump), "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert (report["added"], report["updated"], report["unchanged"]) == (3, 0, 0)
    wiki_b = target / ".clarvis" / "memory"
    assert "Cache key" in (wiki_b / "build" / "bun" / "MEMORY.md").read_text()
    assert "testing/TOPIC.md" in (wiki_b / "PROFILE.md").read_text()
    assert git("status", "--porcelain", cwd=wiki_b) == ""
    assert content(cli("export", "-C", str(target)).out) == content(exported.out)

    before = commits(wiki_b)
    again = json.loads(cli("import", "-C", str(target), str(dump), "--json").out)
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 3)
    assert again["commit"] is None and commits(wiki_b) == before


def test_import_updates_changed_bodies_redacts_and_rejects_bad_paths(workspace: Path, cli) -> None:
    places, settings = setup(workspace)
    learn(places, settings, "run-1", BUN, CACHE)
    lines = [json.loads(x) for x in cli("export").out.splitlines()]
    lines[1]["body"] = (
        f"The cache key is per OS and per lockfile hash; restore it before "
        f"`bun install` or the build starts cold. Token: {TOKEN}"
    )
    lines.append({"schema": 1, "path": "../../etc", "entry": "x", "title": "X", "body": "y"})
    lines.append(
        {
            "schema": 1,
            "path": "Deploy/Cloud_Run",
            "entry": "port",
            "title": "Port",
            "type": "semantic",
            "body": "Listen on $PORT.",
        }
    )
    file = workspace / "in.jsonl"
    file.write_text("".join(json.dumps(x) + "\n" for x in lines) + "\n")
    before = commits(places.wiki)
    done = cli("import", str(file))
    assert done.code == 0, done.err
    assert done.out.startswith("added 1, updated 1, unchanged 1, rejected 1, secrets redacted 1")
    assert "line 3: ../../etc#x: path '../../etc' leaves its folder" in done.err
    assert commits(places.wiki) == before + 1
    leaf = (places.wiki / "build" / "bun" / "MEMORY.md").read_text()
    assert "per OS" in leaf and TOKEN not in leaf and "[REDACTED:" in leaf
    assert (places.wiki / "deploy" / "cloud-run" / "MEMORY.md").is_file()
    assert "Wikimem-Action: import" in git("log", "-1", "--format=%B", cwd=places.wiki)


def test_import_refuses_a_newer_schema_and_bad_json_without_writing(workspace: Path, cli) -> None:
    places, _ = setup(workspace)
    before = commits(places.wiki)
    newer = workspace / "newer.jsonl"
    newer.write_text(
        json.dumps({"schema": 99, "path": "a/b", "entry": "c", "title": "C", "body": "d"}) + "\n"
    )
    refused = cli("import", str(newer))
    assert refused.code == 1
    assert refused.err == (
        "wikimem: error: line 1 was written by a newer wikimem (schema 99; "
        "this one reads up to 1): upgrade wikimem to import it\n"
    )
    broken = workspace / "broken.jsonl"
    broken.write_text('{"schema": 1, "path": "a/b"}\n{not json\n')
    assert "line 2 is not JSON" in cli("import", str(broken)).err
    assert cli("import", str(workspace / "missing.jsonl")).code == 1
    assert commits(places.wiki) == before


def test_import_keeps_entry_dates_so_expired_memory_stays_expired(tmp_path: Path, cli) -> None:
    target = tmp_path / "b"
    target.mkdir()
    setup(target)
    line = {
        "schema": 1,
        "path": "ops/node",
        "entry": "node-18-eol",
        "title": "Node 18 EOL",
        "type": "semantic",
        "body": "Node 18 reached end of life; upgrade runners to 22.",
        "meta": {"review-by": "2026-01-01", "expires": "2026-06-30", "evil": "x -->"},
    }
    file = tmp_path / "in.jsonl"
    file.write_text(json.dumps(line) + "\n")
    assert cli("import", "-C", str(target), str(file)).code == 0
    page = (target / ".clarvis/memory/ops/node/MEMORY.md").read_text()
    assert "<!-- wikimem: expires=2026-06-30 review-by=2026-01-01 -->" in page
    assert "evil" not in page
    exported = json.loads(cli("export", "-C", str(target)).out.splitlines()[0])
    assert exported["meta"] == {"expires": "2026-06-30", "review-by": "2026-01-01"}
