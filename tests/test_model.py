"""The model seam, through the real openai client against the loopback server."""

# Test parameters named after the imported fixture look like redefinitions to ruff.
# ruff: noqa: F811

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.openai_server import OpenAIServer, Reply, openai_server, serve  # noqa: F401
from wikimem.config import ModelSettings
from wikimem.errors import ModelError, PlanError
from wikimem.indexing.model import complete_json, forget_accepted_formats, parse_json_object

PLAN = {
    "summary": "Record the lockfile fix",
    "edits": [
        {
            "action": "add",
            "leaf": "build/bun",
            "entry": "lockfile-drift",
            "title": "Lockfile drift",
            "type": "procedural",
            "body": "Run `bun install` and commit bun.lockb.",
            "reason": "recurs",
        }
    ],
}
SCHEMA = {
    "type": "object",
    "required": ["summary", "edits"],
    "properties": {"summary": {"type": "string"}, "edits": {"type": "array"}},
}
MESSAGES = [
    {"role": "system", "content": "Answer with one JSON edit plan."},
    {"role": "user", "content": "The run fixed a lockfile drift."},
]
FAST_RETRY = {"retry-after-ms": "5"}  # the SDK waits at least 0.375 s for "Retry-After: 0"


@pytest.fixture(autouse=True)
def fresh_formats() -> Iterator[None]:
    forget_accepted_formats()
    yield
    forget_accepted_formats()


def settings(server: OpenAIServer, *fallbacks: str, **changes: Any) -> ModelSettings:
    values: dict[str, Any] = {
        "model": "gpt-main",
        "base_url": server.base_url,
        "api_key": "sk-test-key",
        "fallbacks": fallbacks,
        "timeout": 2.0,
        "max_retries": 0,
    }
    values.update(changes)
    return ModelSettings(**values)


def accept_plan(obj: dict) -> dict:
    if not isinstance(obj.get("summary"), str) or not isinstance(obj.get("edits"), list):
        raise PlanError("a plan needs a summary string and an edits list")
    return obj


def ask(server_settings: ModelSettings) -> tuple[Any, dict]:
    return complete_json(server_settings, MESSAGES, SCHEMA, accept_plan)


def test_scripted_plan_is_accepted(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply.plan(PLAN))
    completion, plan = ask(settings(openai_server))
    assert plan == PLAN
    assert json.loads(completion.content) == PLAN
    assert completion.model == "gpt-main"
    assert completion.attempts == ()
    [request] = openai_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-key"
    assert request["model"] == "gpt-main"
    assert request["messages"] == MESSAGES
    assert request["temperature"] == 0
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "edit_plan", "schema": SCHEMA, "strict": False},
    }


def test_missing_key_sends_a_placeholder(openai_server: OpenAIServer) -> None:
    ask(settings(openai_server, api_key=None))
    assert openai_server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_no_model_configured() -> None:
    with pytest.raises(ModelError, match="^no model configured$"):
        complete_json(ModelSettings(model=None), MESSAGES, SCHEMA, accept_plan)


@pytest.mark.parametrize("status", [429, 500, 503])
def test_client_retries_rate_limits_and_server_errors(
    openai_server: OpenAIServer, status: int
) -> None:
    openai_server.script(Reply.error(status, headers=FAST_RETRY), Reply.plan(PLAN))
    completion, plan = ask(settings(openai_server, max_retries=2))
    assert plan == PLAN
    assert completion.model == "gpt-main"
    first, second = openai_server.requests
    assert second.body == first.body
    assert completion.attempts == ()  # the client retried on its own; nothing failed for us


def test_rate_limit_after_retries_moves_to_fallback(openai_server: OpenAIServer) -> None:
    limited = Reply.error(429, "slow down", headers={"Retry-After": "0.01"})
    openai_server.script(limited, limited, Reply.plan(PLAN))
    completion, _ = ask(settings(openai_server, "gpt-spare", max_retries=1))
    assert completion.model == "gpt-spare"
    assert completion.attempts == ("gpt-main: 429 rate limited",)
    assert [r["model"] for r in openai_server.requests] == ["gpt-main", "gpt-main", "gpt-spare"]


def test_timeout_moves_to_fallback(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(hang=True), Reply.plan(PLAN))
    started = time.monotonic()
    completion, plan = ask(settings(openai_server, "gpt-spare", timeout=0.5))
    assert time.monotonic() - started < 2.0
    assert plan == PLAN
    assert completion.model == "gpt-spare"
    assert completion.attempts == ("gpt-main: timed out after 0.5s",)


def test_connection_refused_is_one_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = ModelSettings(
        model="gpt-main",
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key="sk-test-key",
        fallbacks=("gpt-spare",),
        timeout=1.0,
        max_retries=0,
    )
    with pytest.raises(ModelError) as caught:
        ask(closed)
    message = str(caught.value)
    assert message.startswith("model request failed: gpt-main: cannot connect")
    assert "; gpt-spare: cannot connect" in message
    assert "\n" not in message
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_malformed_json_is_asked_again_then_falls_back(openai_server: OpenAIServer) -> None:
    openai_server.script(
        Reply('{"summary": "x", "edits": [}'), Reply("not json at all"), Reply.plan(PLAN)
    )
    completion, plan = ask(settings(openai_server, "gpt-spare"))
    assert plan == PLAN
    assert completion.model == "gpt-spare"
    assert completion.attempts == (
        "gpt-main: invalid JSON: Expecting value at character 27",
        "gpt-main: no JSON object in answer",
    )


def test_truncated_json_is_asked_again(openai_server: OpenAIServer) -> None:
    cut = json.dumps(PLAN)[:60]
    openai_server.script(Reply(cut, finish_reason="length"), Reply.plan(PLAN))
    completion, plan = ask(settings(openai_server, "gpt-spare"))
    assert plan == PLAN
    assert completion.model == "gpt-main"
    [attempt] = completion.attempts
    assert attempt.startswith("gpt-main: truncated JSON")


def test_truncated_json_is_recognised_without_finish_reason() -> None:
    with pytest.raises(PlanError, match="truncated JSON"):
        parse_json_object('{"summary": "x", "edits": [{"action": "add"')


def test_schema_violation_is_retried_then_falls_back(openai_server: OpenAIServer) -> None:
    wrong = Reply.plan({"summary": "x", "edits": "none"})
    openai_server.script(wrong, wrong, Reply.plan(PLAN))
    completion, plan = ask(settings(openai_server, "gpt-spare"))
    assert plan == PLAN
    assert completion.model == "gpt-spare"
    assert (
        completion.attempts
        == (
            "gpt-main: answer does not fit the schema: a plan needs a summary string and an edits "
            "list",
        )
        * 2
    )


def test_refusal_is_a_failed_attempt(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(refusal="I can't help with that."), Reply("   "), Reply.plan(PLAN))
    completion, _ = ask(settings(openai_server, "gpt-spare"))
    assert completion.model == "gpt-spare"
    assert completion.attempts == (
        "gpt-main: refused: I can't help with that.",
        "gpt-main: empty answer",
    )


def test_rejected_json_schema_falls_back_to_json_object(openai_server: OpenAIServer) -> None:
    openai_server.default = Reply.plan(PLAN, reject_response_format=True)
    completion, plan = ask(settings(openai_server))
    assert plan == PLAN
    assert [r.response_format_type for r in openai_server.requests] == [
        "json_schema",
        "json_object",
    ]
    assert completion.attempts[0].startswith("gpt-main: json_schema rejected (400 ")
    ask(settings(openai_server))  # later calls start where the server said yes
    assert [r.response_format_type for r in openai_server.requests][2:] == ["json_object"]


def test_server_without_any_response_format(openai_server: OpenAIServer) -> None:
    openai_server.default = Reply.plan(PLAN, reject_response_format={"json_schema", "json_object"})
    _, plan = ask(settings(openai_server))
    assert plan == PLAN
    assert [r.response_format_type for r in openai_server.requests] == [
        "json_schema",
        "json_object",
        None,
    ]
    assert "response_format" not in (openai_server.requests[-1].body or {})


def test_unrelated_422_does_not_step_down_the_ladder(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply.error(422, "messages too long"))
    with pytest.raises(ModelError, match="^model request failed: gpt-main: 422 messages too long$"):
        ask(settings(openai_server))
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize(
    "content",
    [
        "```json\n{body}\n```",
        "Here is the plan:\n```\n{body}\n```\nLet me know if you need more.",
        "Sure. {body} That is all.",
    ],
)
def test_fenced_json_and_prose_are_tolerated(openai_server: OpenAIServer, content: str) -> None:
    openai_server.script(Reply(content.replace("{body}", json.dumps(PLAN, indent=2))))
    completion, plan = ask(settings(openai_server))
    assert plan == PLAN
    assert completion.attempts == ()


def test_usage_is_summed_over_attempts(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply("oops", usage=(100, 3)), Reply.plan(PLAN, usage=(120, 40)))
    completion, _ = ask(settings(openai_server))
    assert (completion.prompt_tokens, completion.completion_tokens) == (220, 43)


def test_usage_absent_is_none(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply.plan(PLAN, usage=False))
    completion, _ = ask(settings(openai_server))
    assert completion.prompt_tokens is None and completion.completion_tokens is None


def test_api_key_never_appears_in_errors(openai_server: OpenAIServer) -> None:
    key = "sk-live-0123456789abcdef"
    openai_server.script(
        Reply.error(401, f"Incorrect API key provided: {key}"),
        Reply.error(404, f"model gpt-spare unknown for key {key}"),
    )
    with pytest.raises(ModelError) as caught:
        ask(settings(openai_server, "gpt-spare", api_key=key))
    message = str(caught.value)
    assert key not in message
    assert message == (
        "model request failed: gpt-main: 401 authentication failed; gpt-spare: "
        "404 not found (unknown model or wrong base URL): model gpt-spare unknown"
        " for key ***"
    )


def test_every_model_failing_raises_one_line(openai_server: OpenAIServer) -> None:
    openai_server.default = Reply.error(500, "upstream exploded\nat line 2")
    with pytest.raises(ModelError) as caught:
        ask(settings(openai_server, "gpt-spare", "gpt-last"))
    assert str(caught.value) == (
        "model request failed: gpt-main: 500 server error: upstream exploded at line 2; "
        "gpt-spare: 500 server error: upstream exploded at line 2; "
        "gpt-last: 500 server error: upstream exploded at line 2"
    )
    assert [r["model"] for r in openai_server.requests] == ["gpt-main", "gpt-spare", "gpt-last"]


def test_malformed_response_body_is_a_failed_attempt(openai_server: OpenAIServer) -> None:
    openai_server.script(
        Reply(body=b"<html>gateway</html>"), Reply(body=b'{"id": "x"}'), Reply.plan(PLAN)
    )
    completion, _ = ask(settings(openai_server, "gpt-spare"))
    assert completion.model == "gpt-spare"
    assert completion.attempts[0].startswith("gpt-main: malformed response")
    assert completion.attempts[1].startswith("gpt-spare: malformed response")


def test_server_lists_models_and_stops_promptly() -> None:
    outcome: list[str] = []

    def hang_until_stopped(base_url: str) -> None:
        client = openai.OpenAI(base_url=base_url, api_key="k", timeout=30, max_retries=0)
        try:
            client.chat.completions.create(model="m", messages=[])
        except openai.APIConnectionError as exc:
            outcome.append(type(exc).__name__)

    with serve() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        assert [m.id for m in client.models.list()] == ["test-model"]
        server.default = Reply(hang=True)
        caller = threading.Thread(target=hang_until_stopped, args=(server.base_url,))
        caller.start()
        server.wait_for_requests(2)
        stopping = time.monotonic()
    caller.join(5)
    assert time.monotonic() - stopping < 1.0
    assert outcome == ["APIConnectionError"]


FENCED_BODY_PLAN = {
    "summary": "Record the lockfile fix",
    "edits": [
        {
            "action": "add",
            "leaf": "build/bun",
            "entry": "lockfile",
            "title": "Lockfile",
            "body": "Run:\n\n```sh\nbun install\ngit add bun.lockb\n```\n\nthen commit.",
            "reason": "verified",
        }
    ],
}


def test_a_plan_whose_body_holds_a_fence_is_parsed_as_the_json_it_is() -> None:
    text = json.dumps(FENCED_BODY_PLAN, indent=2)
    assert parse_json_object(text) == FENCED_BODY_PLAN
    assert parse_json_object(f"```json\n{text}\n```") == FENCED_BODY_PLAN
    assert parse_json_object(f"Here is the plan:\n{text}\nDone.") == FENCED_BODY_PLAN


def test_a_fence_is_unwrapped_only_when_it_wraps_the_whole_answer() -> None:
    # A fence inside prose is not the answer: the object in the text is.
    inner = json.dumps({"summary": "inner", "edits": []})
    outer = json.dumps({"summary": "outer", "edits": [], "note": f"```json\n{inner}\n```"})
    assert parse_json_object(outer)["summary"] == "outer"


def test_an_oversized_answer_is_refused_before_parsing(openai_server: OpenAIServer) -> None:
    from wikimem.indexing.model import ANSWER_MAX

    huge = json.dumps({"summary": "x", "edits": [], "pad": "y" * ANSWER_MAX})
    with pytest.raises(PlanError, match="over the"):
        parse_json_object(huge)
    openai_server.script(Reply(huge), Reply(huge), Reply.plan(PLAN))
    completion, plan = ask(settings(openai_server, "gpt-spare"))
    assert plan == PLAN and completion.model == "gpt-spare"
    assert all("over the" in a for a in completion.attempts)
