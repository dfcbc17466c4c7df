"""Time expressions in a query: "last week", "april", "2026-04", "3 months ago", ISO dates.

Invariant: `split_when(text, today)` finds at most one time expression, returns the inclusive
day window it names and the query's other words unchanged in order; a query without one comes
back whole with no window. Nothing here reads a clock: `today` is given.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

MONTHS = {
    name: n
    for n in range(1, 13)
    for name in (calendar.month_name[n].lower(), calendar.month_abbr[n].lower())
}
MONTHS["sept"] = 9
AMBIGUOUS = frozenset({"may", "mar", "march"})
UNITS = {"day": "day", "week": "week", "month": "month", "year": "year"}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_UNIT = r"(day|week|month|year)s?"
_NUM = r"(\d{1,3}|a|an|one|two|three|four|five|six)"
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
# Longest forms first: "since 2026-04-01" before a bare ISO date, "april 2026" before "april".
PATTERNS: tuple[tuple[str, str], ...] = (
    ("range", r"(\d{4}-\d{2}-\d{2})\s*\.\.\s*(\d{4}-\d{2}-\d{2})"),
    ("since", r"since\s+(\d{4}-\d{2}-\d{2})"),
    ("day", r"(\d{4}-\d{2}-\d{2})"),
    ("month", r"(\d{4})-(\d{2})"),
    ("named", rf"(?:in\s+)?({_MONTH})\.?(?:\s+(\d{{4}}))?"),
    ("ago", rf"{_NUM}\s+{_UNIT}\s+ago"),
    ("past", rf"(?:in\s+the\s+)?(?:past|last)\s+{_NUM}\s+{_UNIT}"),
    ("relative", r"(today|yesterday|(?:this|last)\s+(?:week|month|year))"),
)
_COMPILED = tuple((kind, re.compile(rf"(?<![\w-]){rx}(?![\w-])", re.I)) for kind, rx in PATTERNS)


@dataclass(frozen=True)
class Window:
    """Days `start` through `end`, both included, and the words that named them."""

    start: dt.date
    end: dt.date
    said: str

    def holds(self, day: str | dt.date) -> bool:
        """Whether `day` (a date, or an ISO date or timestamp) falls in the window."""
        if isinstance(day, str):
            try:
                day = dt.date.fromisoformat(day[:10])
            except ValueError:
                return False
        return self.start <= day <= self.end

    def label(self) -> str:
        if self.start == self.end:
            return self.start.isoformat()
        return f"{self.start.isoformat()}..{self.end.isoformat()}"


def split_when(text: str, today: dt.date) -> tuple[Window | None, str]:
    """(the window of the first time expression in `text`, the rest of its words)."""
    for kind, pattern in _COMPILED:
        for found in pattern.finditer(text):
            window = _window(kind, found, today)
            if window is not None:
                rest = text[: found.start()] + " " + text[found.end() :]
                return window, " ".join(rest.split())
    return None, " ".join(text.split())


def _window(kind: str, m: re.Match[str], today: dt.date) -> Window | None:
    said = m.group(0).strip()
    try:
        if kind == "range":
            start, end = dt.date.fromisoformat(m.group(1)), dt.date.fromisoformat(m.group(2))
            return Window(min(start, end), max(start, end), said)
        if kind == "since":
            return Window(dt.date.fromisoformat(m.group(1)), today, said)
        if kind == "day":
            day = dt.date.fromisoformat(m.group(1))
            return Window(day, day, said)
        if kind == "month":
            return _month(int(m.group(1)), int(m.group(2)), said)
    except ValueError:
        return None  # 2026-13-45 is no date: leave the words to the search
    if kind == "named":
        name = m.group(1).lower()
        if name in AMBIGUOUS and not m.group(2) and not said.lower().startswith("in"):
            return None  # "the sync may fail" names no month; "in may" and "may 2026" do
        month = MONTHS[name]
        if m.group(2):
            return _month(int(m.group(2)), month, said)
        # a month without a year is the latest one that has begun: "april" in March is last year's
        year = today.year if month <= today.month else today.year - 1
        return _month(year, month, said)
    if kind in ("ago", "past"):
        count = NUMBERS.get(m.group(1).lower()) or int(m.group(1))
        unit = UNITS[m.group(2).lower()]
        if kind == "past":
            return Window(_back(today, unit, count), today, said)
        return _unit_at(_back(today, unit, count), unit, said)
    word = " ".join(m.group(1).lower().split())
    if word in ("today", "yesterday"):
        day = today - dt.timedelta(days=1 if word == "yesterday" else 0)
        return Window(day, day, said)
    which, unit = word.split()
    at = today if which == "this" else _back(today, unit, 1)
    window = _unit_at(at, unit, said)
    return Window(window.start, min(window.end, today), said)


def _back(today: dt.date, unit: str, count: int) -> dt.date:
    if unit == "day":
        return today - dt.timedelta(days=count)
    if unit == "week":
        return today - dt.timedelta(weeks=count)
    months = today.year * 12 + today.month - 1 - (count if unit == "month" else 12 * count)
    year, month = divmod(months, 12)
    day = min(today.day, calendar.monthrange(year, month + 1)[1])
    return dt.date(year, month + 1, day)


def _unit_at(day: dt.date, unit: str, said: str) -> Window:
    """The calendar day, week (Monday to Sunday), month or year holding `day`."""
    if unit == "day":
        return Window(day, day, said)
    if unit == "week":
        start = day - dt.timedelta(days=day.weekday())
        return Window(start, start + dt.timedelta(days=6), said)
    if unit == "month":
        return _month(day.year, day.month, said)
    return Window(dt.date(day.year, 1, 1), dt.date(day.year, 12, 31), said)


def _month(year: int, month: int, said: str) -> Window:
    last = calendar.monthrange(year, month)[1]  # raises ValueError on month 13
    return Window(dt.date(year, month, 1), dt.date(year, month, last), said)
