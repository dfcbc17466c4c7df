"""Which vendored gitleaks rules add something: samples generated from each rule's own pattern,
redacted by wikimem's table without the vendored rules and with them.

    python -m bench.gitleaks_overlap [--samples 5] [--seed 1] [-v]

A sample is a random string the rule's pattern matches (repeats drawn between their bounds,
capped at 40 over the minimum); its secret is the rule's secret group. A rule whose samples the
table alone already removes adds nothing but cost. These are synthetic shapes from gitleaks'
patterns, not a held-apart measure of recall.
"""

from __future__ import annotations

import random
import re
import string
import sys
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

from wikimem.redaction import redact as redact_module
from wikimem.redaction import vendored
from wikimem.redaction.vendored_rules import RULES

_PRINTABLE = string.ascii_letters + string.digits + "_-.+/="


class _Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.out: list[str] = []
        self.groups: dict[int, tuple[int, int]] = {}

    def text(self) -> str:
        return "".join(self.out)

    def pos(self) -> int:
        return sum(map(len, self.out))

    def run(self, items, icase: bool) -> None:  # type: ignore[no-untyped-def]
        for op, av in items:
            self.one(op, av, icase)

    def one(self, op, av, icase: bool) -> None:  # type: ignore[no-untyped-def]
        rng = self.rng
        if op is C.LITERAL:
            c = chr(av)
            self.out.append(c.swapcase() if icase and rng.random() < 0.5 else c)
        elif op is C.NOT_LITERAL:
            self.out.append(rng.choice([c for c in _PRINTABLE if ord(c) != av]))
        elif op is C.ANY:
            self.out.append(rng.choice(string.ascii_letters + string.digits))
        elif op is C.IN:
            self.out.append(self.pick(av, icase))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            high = min(high, low + 40) if high is not C.MAXREPEAT else low + 40
            for _ in range(rng.randint(low, high)):
                self.run(sub, icase)
        elif op is C.SUBPATTERN:
            group, add, delete, sub = av
            flagged = (icase or bool(add & re.I)) and not delete & re.I
            start = self.pos()
            self.run(sub, flagged)
            if group:
                self.groups[group] = (start, self.pos())
        elif op is C.BRANCH:
            self.run(rng.choice(av[1]), icase)
        elif op is C.GROUPREF:
            a, b = self.groups.get(av, (0, 0))
            self.out.append(self.text()[a:b])
        elif op is C.CATEGORY:
            self.out.append(self.category(av))
        # AT, ASSERT, ASSERT_NOT: nothing to emit

    def category(self, av) -> str:  # type: ignore[no-untyped-def]
        if av is C.CATEGORY_DIGIT:
            return self.rng.choice(string.digits)
        if av is C.CATEGORY_SPACE:
            return " "
        if av is C.CATEGORY_WORD:
            return self.rng.choice(string.ascii_letters + string.digits + "_")
        return self.rng.choice(string.ascii_letters)

    def pick(self, items, icase: bool) -> str:  # type: ignore[no-untyped-def]
        chars: set[str] = set()
        negate = False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                chars.add(chr(av))
            elif op is C.RANGE:
                chars.update(chr(c) for c in range(av[0], min(av[1], av[0] + 200) + 1))
            elif op is C.CATEGORY:
                chars.update(
                    {
                        C.CATEGORY_DIGIT: string.digits,
                        C.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
                        C.CATEGORY_SPACE: " ",
                    }.get(av, "")
                )
        if negate:
            pool = [c for c in _PRINTABLE if c not in chars]
        else:
            pool = sorted(c for c in chars if c.isprintable()) or [" "]
        c = self.rng.choice(pool)
        return c.swapcase() if icase and self.rng.random() < 0.3 else c


def sample(source: str, group: int, rng: random.Random) -> tuple[str, str] | None:
    """A string `source` matches and the secret in it, or None when generation fails."""
    pattern = re.compile(source)
    for _ in range(20):
        gen = _Gen(rng)
        parsed = _parser.parse(source)
        gen.run(parsed, bool(parsed.state.flags & re.I))
        text = gen.text()
        m = pattern.search(text)
        if not m:
            continue
        span = (
            m.span(group)
            if group
            else next((m.span(i) for i in range(1, len(m.groups()) + 1) if m.group(i)), m.span())
        )
        if span[1] - span[0] >= 8:
            return text, text[span[0] : span[1]]
    return None


def main(argv: list[str]) -> int:
    n = int(argv[argv.index("--samples") + 1]) if "--samples" in argv else 5
    rng = random.Random(int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1)
    table = [f for f in redact_module._FINDERS if f[1] is not vendored.scan_vendored]
    full = list(redact_module._FINDERS)
    adds: list[str] = []
    redundant: list[str] = []
    ungenerated: list[str] = []
    caught_table = caught_full = total = 0
    for kind, source, _keywords, group, _entropy, _allows in RULES:
        samples = [s for s in (sample(source, group, rng) for _ in range(n)) if s]
        if not samples:
            ungenerated.append(kind)
            continue
        redact_module._FINDERS[:] = table
        by_table = sum(secret not in redact_module.redact(text)[0] for text, secret in samples)
        redact_module._FINDERS[:] = full
        by_full = sum(secret not in redact_module.redact(text)[0] for text, secret in samples)
        total += len(samples)
        caught_table += by_table
        caught_full += by_full
        (redundant if by_table == len(samples) else adds).append(kind)
        if "-v" in argv and by_table < len(samples):
            print(f"{kind}: table {by_table}/{len(samples)}, vendored {by_full}: {samples[0][0]!r}")
    print(f"{len(RULES)} rules, {total} samples: table alone {caught_table}, all {caught_full}")
    print(f"rules the table already covers: {len(redundant)}; rules that add: {len(adds)}")
    print(f"no sample generated: {len(ungenerated)} {' '.join(ungenerated)}")
    if "--list" in argv:
        print("redundant:", " ".join(redundant))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
