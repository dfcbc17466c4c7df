"""Opt-in: a deliberately weak real model (SmolLM2-135M-Instruct, served by
bench/weak_model_server.mjs through node-llama-cpp with a JSON-schema grammar) answers eval
cases, and the validator must let none of its junk become a wrong write (errors are not
writes; the eval counts them as failures).

Run with WIKIMEM_WEAK_MODEL_URL=http://127.0.0.1:PORT/v1 (the server prints it). A case takes
about 30 s on an idle 2-core machine with two threads (minutes on a busy one), so
WIKIMEM_WEAK_MODEL_CASES bounds how many (default 10; `all` for the whole corpus), and
WIKIMEM_WEAK_MODEL_LOG names a file that gets one JSON line per case as it finishes, so an
hours-long run that is cut short still leaves its figures; WIKIMEM_WEAK_MODEL_SKIP names a file of
case ids (one per line, such a log's ids) to leave out, so a later run measures the rest;
WIKIMEM_WEAK_MODEL_TIMEOUT is the seconds a case may take (default 300). The server drops the
answer a client gave up on, so one timeout does not make the cases queued behind it time out."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from wikimem.config import ModelSettings
from wikimem.indexing import eval as harness

URL = os.environ.get("WIKIMEM_WEAK_MODEL_URL", "")

pytestmark = pytest.mark.skipif(
    not URL, reason="set WIKIMEM_WEAK_MODEL_URL to a running bench/weak_model_server.mjs"
)


def test_a_weak_model_makes_no_wrong_write() -> None:
    cases = [*harness.load_cases(corpus="real"), *harness.load_cases()]
    skip = os.environ.get("WIKIMEM_WEAK_MODEL_SKIP", "")
    if skip:
        done = set(Path(skip).read_text(encoding="utf-8").split())
        cases = [c for c in cases if c.id not in done]
    wanted = os.environ.get("WIKIMEM_WEAK_MODEL_CASES", "10")
    count = len(cases) if wanted == "all" else int(wanted)
    chosen = cases[:: max(1, len(cases) // count)][:count]
    model = ModelSettings(
        model="smollm2-135m",
        base_url=URL,
        api_key="sk-local-0000",
        max_retries=0,
        # seconds a case may take; raise it on a busy machine rather than count timeouts
        timeout=float(os.environ.get("WIKIMEM_WEAK_MODEL_TIMEOUT", "300")),
    )
    log = os.environ.get("WIKIMEM_WEAK_MODEL_LOG", "")

    def logged(result: harness.CaseResult) -> None:
        if log:
            with open(log, "a", encoding="utf-8") as out:
                out.write(json.dumps(asdict(result)) + "\n")

    report = harness.evaluate(chosen, model, progress=logged)

    wrong = [r.id for r in report.results if r.wrong_write]
    print(harness.format_table(report))
    assert wrong == [], wrong
