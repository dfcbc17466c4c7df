"""Cost of redaction per megabyte on three kinds of text, in MB/s of CPU time (best of N).

    python -m bench.redaction_cost [--repeat 3] [--without-vendored] [--only NAME,...]

- log: the corpus contexts (tests/data/redaction) between plain log lines, 1 MB;
- base64: random base64 lines (the entropy detector's worst case), 1 MB;
- code: this project's Python and Markdown files, whole;
- packed: 2,000 secrets in 200 KB, one per line (tokens, flags, env and JSON pairs, URLs);
- packed-line: the same 2,000 secrets on one line, as minified JSON or a joined log holds them.
`--without-vendored` leaves gitleaks' rules out (the cost before they were added).
"""

from __future__ import annotations

import base64
import json
import random
import string
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
    packed = _packed(rng)
    return {
        "log": (chunk * (1_000_000 // len(chunk) + 1))[:1_000_000],
        "base64": b64,
        "code": code,
        "packed": "\n".join(packed),
        "packed-line": " ".join(packed),
    }


def _packed(rng: random.Random, count: int = 2000, size: int = 200_000) -> list[str]:
    """`count` lines of about `size / count` characters, each holding one secret."""
    alphabet = string.ascii_letters + string.digits

    def token(n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    shapes = (
        lambda: f"export SERVICE_{rng.randrange(10**4)}_API_TOKEN={token(32)}",
        lambda: f"mysql -h db{rng.randrange(99)} -u app --password={token(16)} -e 'select 1'",
        lambda: f'{{"name": "svc{rng.randrange(10**4)}", "client_secret": "{token(40)}"}}',
        lambda: f"git clone https://deploy:{token(20)}@git.internal/team/repo{rng.randrange(99)}",
        lambda: f"INFO auth ok token=ghp_{token(36)} user=build",
        lambda: f"curl -H 'Authorization: Bearer {token(48)}' https://api.internal/v1",
    )
    lines = []
    for _ in range(count):
        line = rng.choice(shapes)()
        padding = f" request_id={token(8)} status=200 bytes=512" * 4
        lines.append((line + padding)[: max(size // count - 1, len(line))])
    return lines


def main(argv: list[str]) -> int:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 3
    if "--without-vendored" in argv:
        redact_module._FINDERS[:] = [
            f for f in redact_module._FINDERS if f[1].__name__ != "scan_vendored"
        ]
    only = argv[argv.index("--only") + 1].split(",") if "--only" in argv else None
    for name, text in texts().items():
        if only and name not in only:
            continue
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
