"""The word list of the wide-vocabulary distractors: real technical English, counted offline.

The words are those of the docstrings (module, class, function) of the running interpreter's
standard library, lower-cased, letters only, two letters or more; the commonest 8,000 go with
their counts to `bench/data/stdlib_words.tsv` (word, tab, count; by count, then word). The
generator reads that committed file, never the live standard library, so a wiki built from it
is the same on any interpreter.

    python -m bench.stdlib_words            # rewrites bench/data/stdlib_words.tsv

Invariant: the same interpreter gives the same file (modules and files are walked in order).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import sysconfig
import tokenize
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

TSV = Path(__file__).resolve().parent / "data" / "stdlib_words.tsv"
KEEP = 8000
# a word is letters alone: `os.path` gives two words, `get_docstring` and `utf8` none
WORD = re.compile(r"(?<![\w])[A-Za-z]{2,}(?![\w])")
# the test suites' docstrings describe tests, and some of their files are not Python 3
SKIP = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def sources(stdlib: Path) -> Iterator[Path]:
    """The .py files of the standard library's modules, in order."""
    for name in sorted(sys.stdlib_module_names):
        package, module = stdlib / name, stdlib / f"{name}.py"
        if module.is_file():
            yield module
        elif package.is_dir() and name not in SKIP:
            for path in sorted(package.rglob("*.py")):
                if not SKIP.intersection(path.relative_to(stdlib).parts):
                    yield path


def docstrings(path: Path) -> Iterator[str]:
    try:
        with tokenize.open(path) as handle:
            tree = ast.parse(handle.read(), str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node)
            if text:
                yield text


def count(stdlib: Path) -> Counter[str]:
    words: Counter[str] = Counter()
    for path in sources(stdlib):
        for text in docstrings(path):
            words.update(w.lower() for w in WORD.findall(text))
    return words


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=TSV)
    parser.add_argument("--keep", type=int, default=KEEP)
    args = parser.parse_args(argv)
    words = count(Path(sysconfig.get_paths()["stdlib"]))
    top = sorted(words.items(), key=lambda item: (-item[1], item[0]))[: args.keep]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(f"{w}\t{n}\n" for w, n in top), encoding="utf-8")
    print(f"{len(top)} of {len(words)} words, {sys.version.split()[0]} -> {args.out}")


if __name__ == "__main__":
    main()
