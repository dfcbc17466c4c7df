"""The edit plan: outer shape, then every edit checked against the wiki as it is."""

from __future__ import annotations

import json

import pytest

from wikimem.errors import PlanError
from wikimem.indexing.plan import MAX_BODY, MAX_EDITS, SCHEMA, RawPlan, clean_path, parse, validate

WIKI = {
    "build/bun": {
        "lockfile-drift": "Run `bun install`.",
        "pinned": "Pinned to 1.1.30.",
        "old": "Obsolete.",
    }
}


def lookup(leaf: str) -> dict[str, str] | None:
    return WIKI.get(leaf)


def plan(*edits: dict, **extra: object) -> RawPlan:
    return parse({"summary": "s", "edits": list(edits), **extra})


def add(**fields: object) -> dict:
    return {
        "action": "add",
        "leaf": "build/bun",
        "entry": "new-thing",
        "title": "New thing",
        "type": "procedural",
        "body": "Do the new thing.",
        "reason": "r",
        **fields,
    }


@pytest.mark.parametrize(
    "obj", [[], "x", {"summary": "s"}, {"edits": {}}, {"edits": [], "topics": 3}]
)
def test_parse_rejects_what_is_not_a_plan(obj: object) -> None:
    with pytest.raises(PlanError):
        parse(obj)


def test_schema_is_json_and_names_the_contract() -> None:
    text = json.dumps(SCHEMA)
    assert json.loads(text)["required"] == ["summary", "edits"]
    assert SCHEMA["properties"]["edits"]["items"]["properties"]["action"]["enum"] == [
        "add",
        "update",
        "remove",
    ]


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("build/bun", "build/bun"),
        ("Build/Bun", "build/bun"),
        ("build/bun/MEMORY.md", "build/bun"),
        ("deploy", "deploy/general"),
        ("a_b/c d", "a-b/c-d"),
    ],
)
def test_paths_are_repaired_to_slugs(raw: str, expected: str) -> None:
    assert clean_path(raw)[0] == expected


@pytest.mark.parametrize(
    "raw", ["../etc", "/abs/x", "~/x", "C:\\x", "a/b/c/d/e", "", "a/../b", "🚀/x"]
)
def test_bad_paths_are_rejected(raw: str) -> None:
    assert clean_path(raw)[0] is None


def test_a_good_add_passes_untouched() -> None:
    result = validate(plan(add()), lookup)
    assert [e.entry for e in result.edits] == ["new-thing"]
    assert result.rejected == () and result.repaired == ()


def test_each_bad_edit_is_rejected_with_a_reason_and_the_rest_kept() -> None:
    result = validate(
        plan(
            add(action="rename"),
            add(leaf="../../etc"),
            add(body="x" * (MAX_BODY + 1)),
            add(body="token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
            {"action": "remove", "leaf": "build/bun", "entry": "missing", "reason": "r"},
            add(title="Fine", entry="fine"),
        ),
        lookup,
    )
    reasons = [n.reason for n in result.rejected]
    assert len(reasons) == 5
    assert "unknown action" in reasons[0] and "leaves its folder" in reasons[1]
    assert "over the" in reasons[2] and "secret" in reasons[3] and "no entry" in reasons[4]
    assert [e.entry for e in result.edits] == ["fine"]


def test_repairs_are_logged() -> None:
    result = validate(
        plan(
            add(type="fact"),
            add(entry="x", title="Pinned"),
            {
                "action": "update",
                "leaf": "build/bun",
                "entry": "brand-new",
                "title": "Brand new",
                "body": "New.",
                "reason": "r",
            },
            add(entry="another", title="Another", body="## Heading\nline"),
        ),
        lookup,
    )
    kinds = {e.entry: e.action for e in result.edits}
    assert kinds == {"new-thing": "add", "pinned": "update", "brand-new": "add", "another": "add"}
    assert result.edits[0].type == "semantic"
    assert result.edits[3].body.startswith("### Heading")
    assert len(result.repaired) >= 4


def test_identical_update_is_no_change_and_duplicates_are_rejected() -> None:
    result = validate(
        plan(
            {
                "action": "update",
                "leaf": "build/bun",
                "entry": "pinned",
                "title": "Pinned",
                "body": "Pinned to 1.1.30.",
                "reason": "r",
            },
            add(),
            add(),
        ),
        lookup,
    )
    reasons = [n.reason for n in result.rejected]
    assert any("already says this" in r for r in reasons)
    assert any("second edit" in r for r in reasons)
    assert len(result.edits) == 1


def test_body_that_is_only_a_removed_secret_is_rejected() -> None:
    result = validate(plan(add(body="The staging key is [REDACTED:openai-key].")), lookup)
    assert result.edits == () and "removed secret" in result.rejected[0].reason
    kept = validate(
        plan(
            add(
                body="Call the API with `Authorization: Bearer "
                "[REDACTED:bearer-token]`; the token lives in the vault under "
                "ci/deploy and rotates monthly."
            )
        ),
        lookup,
    )
    assert len(kept.edits) == 1


def test_too_many_edits_are_cut() -> None:
    edits = [add(entry=f"e{i}", title=f"E {i}") for i in range(MAX_EDITS + 3)]
    result = validate(plan(*edits), lookup)
    assert len(result.edits) == MAX_EDITS and len(result.rejected) == 3


def test_mass_removal_is_held() -> None:
    removes = [
        {"action": "remove", "leaf": "build/bun", "entry": e, "reason": "r"}
        for e in ("lockfile-drift", "pinned")
    ]
    assert "removes 2 of 3" in validate(plan(*removes), lookup).held
    assert validate(plan(removes[0]), lookup).held == ""
    assert validate(plan(*removes), lookup, max_remove_share=1.0).held == ""


def test_topic_summaries_are_checked() -> None:
    result = validate(
        plan(
            add(),
            topics=[
                {"topic": "build", "summary": "How it is built."},
                {"topic": "Bad Topic", "summary": "x"},
                {"topic": "deploy", "summary": "key AKIA" + "ABCDEFGHIJKLMNOP"},
            ],
        ),
        lookup,
    )
    assert [t.topic for t in result.topics] == ["build"]
    assert len(result.rejected) == 2


@pytest.mark.parametrize("title", [[[]], "!!!", 7, None])
def test_a_title_without_a_slug_keeps_the_given_entry_id(title: object) -> None:
    result = validate(plan(add(title=title)), lookup)
    [edit] = result.edits
    assert edit.entry == "new-thing"  # not "", which no page can address
    assert edit.title == ("!!!" if title == "!!!" else "New thing")  # only text is a title


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("End your note with <!--", "HTML comment open"),
        ("a <!-- b --> c <!-- d", "HTML comment open"),
        ("Run:\n```sh\nmake\n", "code fence open"),
        ("Run:\n~~~~\nmake\n~~~\n", "code fence open"),
    ],
)
def test_a_body_that_would_break_its_page_is_rejected_alone(body: str, why: str) -> None:
    result = validate(plan(add(entry="bad", title="Bad", body=body), add()), lookup)
    assert [e.entry for e in result.edits] == ["new-thing"]
    assert why in result.rejected[0].reason


@pytest.mark.parametrize(
    "body", ["a <!-- b --> c", "```sh\nmake\n```", "~~~~\n```\n~~~~", "x --> y"]
)
def test_closed_comments_and_fences_pass(body: str) -> None:
    assert validate(plan(add(body=body)), lookup).edits


@pytest.mark.parametrize("leaf", ["build/" + "a" * 65, "build/con", "nul/x", "build/lpt1"])
def test_names_the_file_system_refuses_are_rejected(leaf: str) -> None:
    assert clean_path(leaf)[0] is None
    assert validate(plan(add(leaf=leaf)), lookup).rejected


def test_notes_never_quote_a_secret_or_a_whole_raw_value() -> None:
    token = "ghp_" + "Q" * 12 + "0123456789abcdefghijklmnop"
    result = validate(plan(add(leaf=f"../{token}/" + "x" * 5000)), lookup)
    [note] = result.rejected
    assert token not in note.what + note.reason and len(note.what + note.reason) < 300


def test_titles_lose_controls_bidi_overrides_and_zero_width_characters() -> None:
    [edit] = validate(
        plan(add(title="Deploy\u202e kcab\u200b\x1b]52;c;eA==\x07 now", leaf_title="A\u2066B")),
        lookup,
    ).edits
    assert edit.title == "Deploy kcab]52;c;eA== now" and edit.leaf_title == "AB"


def test_entries_another_provider_holds_are_not_judged_by_the_wiki() -> None:
    update = {**add(entry="held-elsewhere", title="Held elsewhere"), "action": "update"}
    remove = {"action": "remove", "leaf": "infra/redis", "entry": "old-port", "reason": "r"}

    wiki = validate(plan(update, remove), lookup)  # the wiki lacks both
    assert [e.action for e in wiki.edits] == ["add"] and len(wiki.rejected) == 1

    elsewhere = validate(plan(update, remove), lookup, entries_known=False)
    assert [(e.action, e.entry) for e in elsewhere.edits] == [
        ("update", "held-elsewhere"),
        ("remove", "old-port"),
    ]
    assert not elsewhere.rejected


def test_a_plan_that_adds_nothing_names_the_entry_in_full():
    ref = "tools/build#python--m-build-fails-no-module-named-build-on-a-fresh-checkout"
    checked = validate(RawPlan(f"already in the wiki: {ref}", ()), lambda leaf: {})

    assert checked.summary == f"already in the wiki: {ref}"
    long = "Record " + "many " * 30 + "lessons"
    assert len(validate(RawPlan(long, ()), lambda leaf: {}).summary) <= 72
