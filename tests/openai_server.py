"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks.

It speaks just enough of the Chat Completions API for the real `openai` client: POST
`.../chat/completions` answers with the next scripted `Reply` (or `server.default` when the
script is empty) and GET `.../models` lists `server.models`. Every request is recorded.
Invariant: `stop()` returns promptly and releases every handler, hanging ones included.

    with serve() as server:                     # or the `openai_server` pytest fixture
        server.script(Reply.error(429, headers={"retry-after-ms": "1"}), Reply.plan(plan))
        ...  # point ModelSettings(base_url=server.base_url) at it
        assert server.requests[0]["model"] == "gpt-test"

`python -m tests.openai_server` serves the default reply until interrupted.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

NO_CHANGE = {"summary": "no change", "edits": []}

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a chat completion request.

    usage: True estimates tokens from lengths, False leaves `usage` out, (prompt, completion)
    reports exactly that. reject_response_format: True rejects `json_schema`; a collection
    names the response_format types to reject. A rejecting reply answers 400 and stays
    queued, like a server that never supports the format.
    """

    content: str = ""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None
    hang: bool = False
    refusal: str | None = None
    usage: tuple[int, int] | bool = True
    finish_reason: str = "stop"
    reject_response_format: bool | Collection[str] = False
    gate: threading.Event | None = None  # answered only once the test sets it

    @classmethod
    def plan(cls, plan: Mapping[str, Any], **fields: Any) -> Reply:
        return cls(content=json.dumps(plan), **fields)

    @classmethod
    def error(cls, status: int, message: str = "", **fields: Any) -> Reply:
        """An OpenAI-style error body; `message` defaults to the HTTP reason phrase."""
        return cls(content=message or HTTPStatus(status).phrase, status=status, **fields)

    def rejected_formats(self) -> frozenset[str]:
        if self.reject_response_format is True:
            return frozenset({"json_schema"})
        if not self.reject_response_format:
            return frozenset()
        return frozenset(self.reject_response_format)


@dataclass(frozen=True)
class Request:
    """One received request; indexing reads the JSON body (`request["model"]`)."""

    method: str
    path: str
    headers: Mapping[str, str]  # lower-cased names
    body: Mapping[str, Any] | None
    received: float  # time.monotonic()

    def __getitem__(self, key: str) -> Any:
        return (self.body or {})[key]

    def get(self, key: str, default: Any = None) -> Any:
        return (self.body or {}).get(key, default)

    @property
    def response_format_type(self) -> str | None:
        fmt = self.get("response_format")
        return fmt.get("type") if isinstance(fmt, Mapping) else None


class OpenAIServer:
    """The scripted server; start with `start()` or `serve()`, stop with `stop()`."""

    def __init__(self) -> None:
        self.default = Reply.plan(NO_CHANGE)
        self.models: list[str] = ["test-model"]
        self._script: deque[Reply] = deque()
        self._requests: list[Request] = []
        self._changed = threading.Condition()
        self._stopped = threading.Event()
        # Hanging handlers select() on the read end; one byte on the write end wakes them all.
        self._wake_read, self._wake_write = socket.socketpair()
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="openai-server",
            daemon=True,
        )

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[Request]:
        with self._changed:
            return list(self._requests)

    @property
    def completions(self) -> list[Request]:
        """Only the chat completion requests."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def script(self, *replies: Reply) -> None:
        with self._changed:
            self._script.extend(replies)

    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._changed:
            return len(self._script)

    def reset(self) -> None:
        with self._changed:
            self._script.clear()
            self._requests.clear()

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[Request]:
        """Block until at least `count` requests arrived; raises TimeoutError otherwise."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._requests) >= count, timeout):
                raise TimeoutError(f"{len(self._requests)} of {count} requests arrived")
            return list(self._requests)

    def start(self) -> OpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._wake_write.send(b"x")
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()  # joins handler threads, now all released
        self._wake_read.close()
        self._wake_write.close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, request: Request) -> None:
        with self._changed:
            self._requests.append(request)
            self._changed.notify_all()

    def _next_reply(self, request: Request) -> Reply:
        with self._changed:
            reply = self._script[0] if self._script else self.default
            if request.response_format_type in reply.rejected_formats():
                return _rejection(request.response_format_type or "")
            if self._script:
                self._script.popleft()
            return reply

    def _hang(self, connection: socket.socket) -> None:
        """Wait, without spinning, until the server stops or the client goes away."""
        if not self._stopped.is_set():
            select.select([connection, self._wake_read], [], [])


def _rejection(kind: str) -> Reply:
    return Reply.error(400, f"response_format type {kind!r} is not supported by this server")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = False  # so server_close() joins handlers and nothing outlives stop()
    block_on_close = True

    def __init__(self, address: tuple[str, int], handler: type, owner: OpenAIServer) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    timeout = 10  # a client that connects and never sends must not block stop() forever
    # HTTP/1.0: one request per connection, so no idle keep-alive handler outlives a test.
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        owner = self.server.owner
        owner._record(self._request(None))
        if self.path.rstrip("/").endswith("/models"):
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "tests"}
                for m in owner.models
            ]
            self._send_json(200, {"object": "list", "data": data}, {})
        else:
            self._send_json(404, _error_body(404, f"no route for {self.path}"), {})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = self._request(body if isinstance(body, dict) else None)
        owner._record(request)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, _error_body(404, f"no route for {self.path}"), {})
            return
        reply = owner._next_reply(request)
        if reply.gate is not None:
            reply.gate.wait(60)  # the test holds the client mid-call (a pass holding its lock)
        if reply.hang:
            owner._hang(self.connection)
            self.close_connection = True
            return
        if reply.body is not None:
            self._send(
                reply.status, reply.body, {"Content-Type": "application/json", **reply.headers}
            )
        elif reply.status >= 400:
            self._send_json(reply.status, _error_body(reply.status, reply.content), reply.headers)
        else:
            self._send_json(reply.status, _completion(request, reply), reply.headers)

    def _request(self, body: dict[str, Any] | None) -> Request:
        headers = {name.lower(): value for name, value in self.headers.items()}
        return Request(self.command, self.path, headers, body, time.monotonic())

    def _send_json(self, status: int, payload: Any, headers: Mapping[str, str]) -> None:
        data = json.dumps(payload).encode()
        self._send(status, data, {"Content-Type": "application/json", **headers})

    def _send(self, status: int, data: bytes, headers: Mapping[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        # The client may have given up first (a timeout test); there is nobody left to tell.
        with suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    param = "response_format" if "response_format" in message else None
    return {"error": {"message": message, "type": kind, "param": param, "code": None}}


def _completion(request: Request, reply: Reply) -> dict[str, Any]:
    completion: dict[str, Any] = {
        "id": f"chatcmpl-{int(request.received * 1e6)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or "test-model",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": reply.content or None,
                    "refusal": reply.refusal,
                },
                "finish_reason": reply.finish_reason,
                "logprobs": None,
            }
        ],
    }
    if reply.usage is not False:
        prompt, answer = (
            reply.usage if isinstance(reply.usage, tuple) else _estimate(request, reply)
        )
        completion["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": answer,
            "total_tokens": prompt + answer,
        }
    return completion


def _estimate(request: Request, reply: Reply) -> tuple[int, int]:
    """About four characters a token, like the usual rule of thumb."""
    messages = request.get("messages") or []
    chars = sum(len(str(m.get("content", ""))) for m in messages if isinstance(m, dict))
    return chars // 4 + 1, len(reply.content or reply.refusal or "") // 4 + 1


@contextmanager
def serve() -> Iterator[OpenAIServer]:
    """A running server for the duration of the block."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    with serve() as server:
        yield server


def main() -> None:
    with serve() as server:
        print(server.base_url, flush=True)
        with suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
