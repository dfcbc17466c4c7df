"""Command adapter: run any command, pass its output through, and record the run.

For runners without hooks: `wikimem run -- <agent command>` behaves like the command itself
(same output, same exit status) and leaves a run record with one command evidence item.

Invariant: output is relayed as it arrives and only a bounded copy (head and tail) is kept,
so a command of any output size runs in constant memory; the exit status follows the shell's
conventions (127 not found, 126 not executable, 128+n killed by signal n).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import threading
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import IO, Any

from wikimem.runners.transcripts import OUTPUT_LIMIT

CHUNK = 65536


class BoundedCopy:
    """The first and last bytes of a stream, however long it is; safe across threads."""

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.lock = threading.Lock()

    def add(self, chunk: bytes) -> None:
        with self.lock:
            self.total += len(chunk)
            room = self.half - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            if len(self.tail) > 2 * self.half:  # trim rarely, not on every chunk
                del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        with self.lock:
            tail = self.tail[-self.half :]
            omitted = self.total - len(self.head) - len(tail)
            head = self.head.decode("utf-8", errors="replace")
            rest = bytes(tail).decode("utf-8", errors="replace")
        if omitted > 0:
            return f"{head}\n[... {omitted} bytes omitted ...]\n{rest}"
        return head + rest


def run_and_record(
    argv: Sequence[str], task: str | None, limit: int = OUTPUT_LIMIT
) -> tuple[int, dict[str, Any]]:
    """Run `argv`, relaying its stdout and stderr; return its exit status and a run record."""
    command = shlex.join(argv)
    started = _now()
    copy = BoundedCopy(limit)
    try:
        process = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        return _failed(127, f"command not found: {argv[0] if argv else ''}", command, task, started)
    except PermissionError:
        return _failed(126, f"permission denied: {argv[0]}", command, task, started)
    except OSError as exc:
        return _failed(126, f"cannot run {argv[0]}: {exc.strerror or exc}", command, task, started)
    relays = [
        threading.Thread(target=_relay, args=(pipe, sink, copy), daemon=True)
        for pipe, sink in ((process.stdout, sys.stdout), (process.stderr, sys.stderr))
    ]
    for relay in relays:
        relay.start()
    status = _wait(process)
    for relay in relays:
        relay.join()
    return status, _record(command, task, status, copy.text(), started)


def _relay(pipe: IO[bytes] | None, sink: IO[str], copy: BoundedCopy) -> None:
    """Copy one pipe to the caller's stream as chunks arrive, keeping the bounded copy."""
    if pipe is None:
        return
    out = getattr(sink, "buffer", None)
    partial = b""  # the copy takes whole lines, so stdout and stderr never splice mid-line
    with pipe:
        while chunk := pipe.read1(CHUNK):  # type: ignore[attr-defined]
            lines, cut, partial = (partial + chunk).rpartition(b"\n")
            if cut:
                copy.add(lines + cut)
            if len(partial) > CHUNK:  # a line without end (progress bars): keep it bounded
                copy.add(partial)
                partial = b""
            try:
                if out is not None:
                    out.write(chunk)
                else:
                    sink.write(chunk.decode("utf-8", errors="replace"))
                sink.flush()
            except (OSError, ValueError):
                pass  # the caller's stream closed; keep draining so the child never blocks
    if partial:
        copy.add(partial)


def _wait(process: subprocess.Popen[bytes]) -> int:
    """The exit status; Ctrl-C reaches the child too, so keep waiting for its verdict."""
    while True:
        try:
            code = process.wait()
            break
        except KeyboardInterrupt:
            continue
    return 128 - code if code < 0 else code


def _record(
    command: str, task: str | None, status: int, output: str, started: str
) -> dict[str, Any]:
    return {
        "task": task or f"Run `{command}`",
        "status": "succeeded" if status == 0 else "failed",
        "started_at": started,
        "ended_at": _now(),
        "evidence": [
            {"kind": "command", "command": command, "exit_code": status, "output": output}
        ],
    }


def _failed(
    status: int, message: str, command: str, task: str | None, started: str
) -> tuple[int, dict[str, Any]]:
    print(f"wikimem: {message}", file=sys.stderr)
    return status, _record(command, task, status, message, started)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
