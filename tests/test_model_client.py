"""The model client is kept for the process, one per endpoint, key, timeout and retries."""

# Test parameters named after the imported fixture look like redefinitions to ruff.
# ruff: noqa: F811

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.openai_server import OpenAIServer, Reply, openai_server  # noqa: F401
from wikimem.config import ModelSettings
from wikimem.indexing import model

PLAN = {"summary": "s", "edits": []}
MESSAGES = [{"role": "user", "content": "x"}]


def ask(server: OpenAIServer, **changes: Any) -> dict:
    values: dict[str, Any] = {
        "model": "m",
        "base_url": server.base_url,
        "api_key": "sk-one-key",
        "timeout": 2.0,
        "max_retries": 0,
        **changes,
    }
    server.script(Reply.plan(PLAN))
    return model.complete_json(ModelSettings(**values), MESSAGES, {}, lambda o: o)[1]


def test_one_client_per_endpoint_key_timeout_and_retries(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    model.forget_clients()
    built: list[object] = []
    real = openai.OpenAI

    def counting(*args: Any, **kwargs: Any) -> openai.OpenAI:
        client = real(*args, **kwargs)
        built.append(client)
        return client

    monkeypatch.setattr(model.openai, "OpenAI", counting)
    assert ask(openai_server) == PLAN
    assert ask(openai_server) == PLAN
    assert len(built) == 1
    ask(openai_server, api_key="sk-another-key")
    ask(openai_server, timeout=3.0)
    assert len(built) == 3
    keys = [r.headers.get("authorization") for r in openai_server.requests][-4:]
    assert keys == [
        "Bearer sk-one-key",
        "Bearer sk-one-key",
        "Bearer sk-another-key",
        "Bearer sk-one-key",
    ]
    model.forget_clients()
    ask(openai_server)
    assert len(built) == 4
