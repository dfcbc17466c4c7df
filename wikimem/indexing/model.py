"""The model seam: the only module that imports `openai`.

`complete_json` asks an OpenAI-compatible Chat Completions endpoint for one JSON object, walks
down the response_format ladder (json_schema, json_object, none) on servers that reject a
format, retries an unusable answer once, then tries the fallback models in order.
Invariant: whatever happens on the wire, callers see a `Completion` or a one-line
`ModelError` that never carries the API key; no openai exception escapes.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import openai

from wikimem.config import ModelSettings
from wikimem.errors import ModelError, PlanError
from wikimem.indexing import answer

T = TypeVar("T")

log = logging.getLogger(__name__)

FORMATS = ("json_schema", "json_object", "none")
ANSWER_TRIES = 2  # an unusable answer is asked again once before the next model
LINE_MAX = 160

# (base_url, model) -> index in FORMATS that the server last accepted in this process.
_accepted_format: dict[tuple[str, str], int] = {}
_accepted_lock = threading.Lock()
# (base_url, api key, timeout, retries) -> the client kept for them (see _client).
_clients: dict[tuple[str | None, str | None, float, int], openai.OpenAI] = {}
_clients_lock = threading.Lock()


@dataclass(frozen=True)
class Completion:
    content: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: tuple[str, ...]


class _ModelGaveUp(Exception):
    """This model is done for this call; `line` says why."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


class _Unusable(Exception):
    """The server answered, but not with something `accept` took."""


@dataclass
class _Tally:
    """What every attempt of one call left behind, across models."""

    secret: str | None
    attempts: list[str] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def failed(self, model: str, why: str) -> str:
        line = _one_line(why, self.secret)
        self.attempts.append(f"{model}: {line}")
        log.info("model attempt failed: %s: %s", model, line)
        return line

    def count(self, usage: Any) -> None:
        prompt = getattr(usage, "prompt_tokens", None)
        answer = getattr(usage, "completion_tokens", None)
        if isinstance(prompt, int):
            self.prompt_tokens = (self.prompt_tokens or 0) + prompt
        if isinstance(answer, int):
            self.completion_tokens = (self.completion_tokens or 0) + answer


def complete_json(
    settings: ModelSettings,
    messages: list[dict[str, str]],
    schema: dict,
    accept: Callable[[dict], T],
    *,
    schema_name: str = "edit_plan",
) -> tuple[Completion, T]:
    """Ask the configured model, then each fallback, for a JSON object that `accept` takes.

    `accept` turns the object into the caller's value and raises PlanError when the object
    does not fit; any other exception from it is the caller's own and propagates.
    """
    if not settings.model:
        raise ModelError("no model configured")
    models = list(dict.fromkeys((settings.model, *settings.fallbacks)))
    messages = [{k: well_formed(v) for k, v in m.items()} for m in messages]
    tally = _Tally(secret=settings.api_key)
    gave_up: list[str] = []
    client = _client(settings)
    for model in models:
        try:
            content, value = _ask(
                client, settings, model, messages, schema, schema_name, accept, tally
            )
        except _ModelGaveUp as exc:
            gave_up.append(f"{model}: {exc.line}")
            continue
        completion = Completion(
            content=content,
            model=model,
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            attempts=tuple(tally.attempts),
        )
        return completion, value
    raise ModelError(
        _one_line(
            "model request failed: " + "; ".join(gave_up),
            settings.api_key,
            limit=LINE_MAX * len(models),
        )
    )


_SURROGATES = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """`text` as UTF-8 can carry it: a page's undecodable bytes, read losslessly as
    surrogate escapes, become U+FFFD in what is sent (the page itself keeps them); the HTTP
    client refuses a body with surrogates, which failed every pass over such a page."""
    return _SURROGATES.sub("\ufffd", text)


def _client(settings: ModelSettings) -> openai.OpenAI:
    """One client per endpoint, key, timeout and retry count for the life of the process:
    building one loads the CA bundle into a new SSL context (50-100 ms), and a queue drain or
    `wikimem eval` asks the same endpoint again and again. The client is thread-safe."""
    key = (settings.base_url, settings.api_key, settings.timeout, settings.max_retries)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            try:
                client = openai.OpenAI(
                    base_url=settings.base_url,
                    api_key=settings.api_key or "not-needed",
                    timeout=settings.timeout,
                    max_retries=settings.max_retries,
                )
            except (openai.OpenAIError, ValueError, TypeError) as exc:
                raise ModelError(
                    _one_line(f"cannot set up the model client: {exc}", settings.api_key)
                ) from None
            _clients[key] = client
        return client


def forget_clients() -> None:
    """Close and drop the kept clients (tests, or a process that reconfigures its model)."""
    with _clients_lock:
        for client in _clients.values():
            client.close()
        _clients.clear()


def forget_accepted_formats() -> None:
    """Start every endpoint at json_schema again (tests, or after reconfiguring a server)."""
    with _accepted_lock:
        _accepted_format.clear()


def _ask(
    client: openai.OpenAI,
    settings: ModelSettings,
    model: str,
    messages: list[dict[str, str]],
    schema: dict,
    schema_name: str,
    accept: Callable[[dict], T],
    tally: _Tally,
) -> tuple[str, T]:
    """One model: climb down the format ladder, ask again once after an unusable answer."""
    key = (settings.base_url or "", model)
    with _accepted_lock:
        level = _accepted_format.get(key, 0)
    unusable = 0
    while True:
        try:
            response = client.chat.completions.create(
                model=model,
                messages=cast(Any, messages),
                temperature=0,
                **_response_format(level, schema, schema_name),
            )
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if level + 1 < len(FORMATS) and _rejects_format(exc):
                tally.failed(
                    model,
                    f"{FORMATS[level]} rejected ({_status_line(exc)}); trying {FORMATS[level + 1]}",
                )
                level += 1
                continue
            raise _ModelGaveUp(tally.failed(model, _status_line(exc))) from None
        except Exception as exc:  # the SDK also lets a non-JSON body's ValueError through
            raise _ModelGaveUp(tally.failed(model, _describe(exc, settings))) from None
        with _accepted_lock:
            _accepted_format[key] = level
        tally.count(getattr(response, "usage", None))
        try:
            content = _content(response)
            return content, _accept(content, accept, _finish_reason(response))
        except (_Unusable, PlanError) as exc:
            line = tally.failed(model, str(exc))
            unusable += 1
            if unusable >= ANSWER_TRIES:
                raise _ModelGaveUp(line) from None


def _response_format(level: int, schema: dict, name: str) -> dict[str, Any]:
    if FORMATS[level] == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": False},
            }
        }
    if FORMATS[level] == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def _rejects_format(exc: openai.APIStatusError) -> bool:
    """Any 400 may be a server refusing response_format; a 422 only if it says so."""
    if exc.status_code == 400:
        return True
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _content(response: Any) -> str:
    """The assistant message's text; a refusal or an empty or malformed answer is unusable."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, TypeError):
        raise _Unusable("malformed response: no choices[0].message") from None
    refusal = getattr(message, "refusal", None)
    if refusal:
        raise _Unusable(f"refused: {refusal}")
    content = getattr(message, "content", None)
    if not isinstance(content, str) or not content.strip():
        raise _Unusable("empty answer")
    return content


def _finish_reason(response: Any) -> str | None:
    try:
        return cast(str | None, response.choices[0].finish_reason)
    except (AttributeError, IndexError, TypeError):
        return None


def _accept(content: str, accept: Callable[[dict], T], finish_reason: str | None) -> T:
    obj = parse_json_object(content, truncated=finish_reason == "length")
    try:
        return accept(obj)
    except PlanError as exc:
        raise _Unusable(f"answer does not fit the schema: {exc}") from None


# A fence is unwrapped only when it wraps the whole answer: a plan whose body holds a fenced
# command snippet is JSON with fences inside, and must be parsed as the JSON it is.
WHOLE_FENCE = re.compile(r"\A\s*```(?:json|JSON)?[ \t]*\n(?P<inner>.*)\n[ \t]*```\s*\Z", re.DOTALL)
ANSWER_MAX = 512 * 1024  # characters; a plan is at most 20 edits of 4,000 characters


def parse_json_object(text: str, *, truncated: bool = False) -> dict:
    """The JSON object in a model's answer: the whole answer parsed as JSON first, then the
    inside of a fence that wraps the whole answer, then the first object in prose around it.

    Raises PlanError when the answer is over `ANSWER_MAX` characters (before any parsing) or
    holds no whole JSON object. Values past the reader's bounds (depth, number length, lone
    surrogates) come back as `answer.Malformed` markers for the plan to reject one by one.
    """
    if len(text) > ANSWER_MAX:
        raise PlanError(f"answer of {len(text)} characters is over the {ANSWER_MAX} limit")
    try:
        whole = answer.loads(text)
    except json.JSONDecodeError:
        whole = None
    else:
        if not isinstance(whole, dict):
            raise PlanError("answer is not a JSON object")
        return whole
    fenced = WHOLE_FENCE.match(text)
    candidate = fenced.group("inner") if fenced else text
    start = candidate.find("{")
    if start < 0:
        raise PlanError(
            "truncated answer: no JSON object" if truncated else "no JSON object in answer"
        )
    body = candidate[start:]
    try:
        obj, _ = answer.raw_decode(body)
    except json.JSONDecodeError as exc:
        end = body.rfind("}")
        try:
            obj = answer.loads(body[: end + 1]) if end > 0 else None
        except json.JSONDecodeError:
            obj = None
        if obj is None:
            if truncated or exc.pos >= len(body.rstrip()):
                raise PlanError(f"truncated JSON ({len(body)} characters)") from None
            raise PlanError(f"invalid JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(obj, dict):
        raise PlanError("answer is not a JSON object")
    return obj


def _status_line(exc: openai.APIStatusError) -> str:
    status = exc.status_code
    if status == 401:
        return "401 authentication failed"  # never echo a server's view of the key
    if status == 403:
        return "403 permission denied"
    if status == 429:
        return "429 rate limited"
    detail = _server_message(exc)
    if status == 404:
        return f"404 not found (unknown model or wrong base URL){': ' + detail if detail else ''}"
    if status >= 500:
        return f"{status} server error{': ' + detail if detail else ''}"
    return f"{status}{' ' + detail if detail else ''}"


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    if isinstance(body, str):
        return body
    return ""


def _describe(exc: Exception, settings: ModelSettings) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out after {settings.timeout:g}s"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        return f"cannot connect ({cause or exc.message})"
    if isinstance(exc, openai.APIStatusError):
        return _status_line(exc)
    if isinstance(exc, ValueError):
        return f"malformed response: {exc}"
    return f"{type(exc).__name__}: {exc}"


def _one_line(text: str, secret: str | None, limit: int = LINE_MAX) -> str:
    # Redacting a key of a few characters would shred ordinary words and protect nothing.
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
