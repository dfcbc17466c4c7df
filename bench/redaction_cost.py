"""Cost of redaction per megabyte on three kinds of text, in MB/s of CPU time (best of N).

    python -m bench.redaction_cost [--repeat 3] [--without-vendored]

- log: the corpus contexts (tests/data/redaction) between plain log lines, 1 MB;
- base64: random base64 lines (the entropy detector's worst case), 1 MB;
- code: this project's Python and Markdown files, whole.
`--without-vendored` leaves gitleaks' rules out (the cost before they were added).
"""

from __future__ import annotations

import base64
import json
import random
import sys
import time
from pathlib import Path

from wikimem.redaction import redact as redact_module

ROOT = Path(__file__).resolve().parent.parent


def texts() -> dict[str, str]:
    rows = []
    for name in ("secrets.jsonl", "benign.jsonl"):
        with (ROOT / "tests" / "data" / "redaction" / name).open(encoding="utf-8") as handle:
            rows += [json.loads(line)["context"] for line in handle if line.strip()]
    log_line = "2024-05-14T10:22:31Z INFO GET /v1/items/3f2c9a8b 200 request_id=7d9f8c2a\n"
    chunk = "".join(log_line * 8 + context + "\n" for context in rows)
    rng = random.Random(7)
    b64 = "".join(
        base64.b64encode(rng.randbytes(57)).decode() + "\n" for _ in range(1_000_000 // 77)
    )
    code = "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for pattern in ("wikimem/**/*.py", "tests/*.py", "*.md", "docs/*.md")
        for p in sorted(ROOT.glob(pattern))
        if "vendored_rules" not in p.name
    )
    return {"log": (chunk * (1_000_000 // len(chunk) + 1))[:1_000_000], "base64": b64, "code": code}


def main(argv: list[str]) -> int:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 3
    if "--without-vendored" in argv:
        redact_module._FINDERS[:] = [
            f for f in redact_module._FINDERS if f[1].__name__ != "scan_vendored"
        ]
    for name, text in texts().items():
        best = float("inf")
        for _ in range(repeat):
            t0 = time.process_time()
            redact_module.redact(text)
            best = min(best, time.process_time() - t0)
        size = len(text.encode("utf-8")) / 1e6
        print(f"{name}: {size:.2f} MB in {best:.3f} s CPU = {size / best:.2f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
