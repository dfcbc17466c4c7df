"""Matching a failed shell command against the failure symptoms the wiki's entries hold.

An entry holds a symptom when it names the failing program and quotes (or paraphrases) the
error: `bun install --frozen-lockfile` failing with `lockfile had changes` matches the entry
that says so, in its title or the output it quotes (the words of its fix are not a symptom).
Lexical and deterministic: the command's program must be in the entry (not as a file's name:
`mix.exs` does not name `mix`), and the error must share
with it a run of three words or at least three telling words (COMMON words such as "error" or
"failed" never count), so an error the wiki does not know gets nothing.

Invariant: no entry without the program's name; best first, ties on path and entry id.
"""

from __future__ import annotations

import os
import re
import sqlite3

from wikimem.recall.cues import (
    COMMON,
    Found,
    candidates,
    open_index,
    quoted,
    rarest,
    shared,
    telling,
    words,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# What stands before the program in a command line: variables, wrappers, `cd x &&`.
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
WRAPPERS = frozenset({"sudo", "env", "time", "nice", "command", "exec", "npx", "bunx", "uv"})
# Programs that carry another's output or set the scene: never the one that failed.
PLUMBING = frozenset(
    {"cd", "echo", "true", "set", "export", "source", ".", "tee", "head", "tail", "cat", "grep"}
    | {"sort", "xargs", "less", "wc", "sed", "awk", "printf", "test", "["}
)
SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
EXIT_LINE = re.compile(r"^\s*(?:Exit code:?|Process exited with code)\s*-?\d+\s*$", re.I | re.M)
FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
# A file's name (`mix.exs`, `assets/build.js`, `package.json`): naming it is not naming the
# program its first part spells (a note citing `mix.exs` is not about running `mix`).
FILE_NAME = re.compile(r"[\w./-]*[\w-]\.[A-Za-z][\w]*\b")
ERROR_TERMS = 10
LOOKED = 40  # of the error's telling words, and of the command's, counted in the index
CLOSE = 0.5  # a match scoring under this share of the best one is a weaker lead: left out


def programs(command: str) -> list[str]:
    """The programs a command line runs, in order (`cd web && bun install` -> ["bun"])."""
    found = []
    for part in SEPARATORS.split(command):
        for word in part.split():
            word = word.strip("'\"()")
            if not word or ASSIGNMENT.match(word) or word in WRAPPERS or word.startswith("-"):
                continue
            name = os.path.basename(word).lower()
            if name and name not in PLUMBING:
                found.append(name)
            break
    return list(dict.fromkeys(found))


def trigrams(text: str) -> set[tuple[str, str, str]]:
    seq = words(text)
    return {
        (a, b, c)
        for a, b, c in zip(seq, seq[1:], seq[2:], strict=False)
        if not {a, b, c} <= COMMON  # "error command failed" says nothing
    }


def failure_entries(index_file: Path, command: str, error: str, limit: int = 2) -> list[Found]:
    """The entries whose symptom this failure shows, best first."""
    names = [p for p in programs(command) if len(p) >= 2]
    error = EXIT_LINE.sub("", error)
    said = [t for t in telling(error) if t not in names]
    asked = [t for t in telling(command) if t not in names]
    if not names or not said:
        return []
    db = open_index(index_file)
    if db is None:
        return []
    try:
        # The error's last telling words (where its telling lines are), and the command's.
        looked = list(dict.fromkeys(said[-LOOKED:] + asked[:LOOKED]))
        focus = rarest(db, looked, ERROR_TERMS)
        if not set(focus) & set(said):
            return []  # the error's words are nowhere in the wiki: an unknown failure
        program = " OR ".join(f'"{n}"' for n in names)
        expression = f"({program}) AND ({quoted(focus, 'OR')})"
        items = candidates(db, expression)
    except sqlite3.Error:
        return []
    finally:
        db.close()
    found = score(items, names, said, asked, trigrams(error))
    found.sort(key=lambda f: (-f.score, f.path, f.entry))
    return [f for f in found if f.score >= found[0].score * CLOSE][:limit]


def score(
    items: list[Found],
    names: list[str],
    said: list[str],
    asked: list[str],
    runs: set[tuple[str, str, str]],
) -> list[Found]:
    """The candidates that show the symptom: the program named, and the error's own words
    (a run of three, or three words, or two with the command's arguments) in the entry's title
    or the output it quotes (its fenced blocks; its whole body when it quotes none)."""
    kept = []
    for item in items:
        text = f"{item.title}\n{item.body}"
        if not set(names) & set(words(FILE_NAME.sub(" ", text))):
            continue  # the leaf's name, or a file's, is not a symptom: the entry must say it
        quoted_error = FENCE.findall(item.body)  # the error it quotes, not its fix's words
        symptom = f"{item.title}\n" + "\n".join(quoted_error) if quoted_error else text
        common_runs = len(runs & trigrams(symptom))
        error_words = shared(said, symptom)
        command_words = shared(asked, text)
        if common_runs or len(error_words) >= 3 or (len(error_words) >= 2 and command_words):
            item.score = 2.0 * common_runs + len(error_words) + 0.5 * len(command_words)
            kept.append(item)
    return kept
