"""The import direction of the house style, checked on the package's own source.

Runners, redaction and intake sit below indexing; indexing and lifecycle write through the
wiki; recall reads the wiki and never writes; the CLI is on top; settings, places, file I/O
and errors are at the bottom. An import inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "wikimem"

# What each layer may import besides itself. The bottom layer is the package's own
# foundation; "app" holds the top-level modules that join stages (status, demo, settings_file).
BASE = {"wikimem", "wikimem.errors", "wikimem.config", "wikimem.locate", "wikimem.fsio"}
BASE_MODULES = BASE | {"wikimem.pause", "wikimem.__main__"}
ALLOWED: dict[str, set[str]] = {
    "base": {"base"},
    "redaction": {"base"},
    "runners": {"base", "redaction"},
    "intake": {"base", "redaction", "runners"},
    "wiki": {"base", "redaction"},
    "indexing": {"base", "redaction", "runners", "intake", "wiki", "recall"},
    "recall": {"base", "redaction", "intake", "wiki"},
    "lifecycle": {"base", "redaction", "intake", "wiki", "indexing"},
    "app": {"base", "redaction", "runners", "intake", "wiki", "indexing", "recall", "lifecycle"},
    "cli": {
        "base",
        "redaction",
        "runners",
        "intake",
        "wiki",
        "indexing",
        "recall",
        "lifecycle",
        "app",
    },
}
# Recall reads; these are the wiki's writers, which it must never reach.
WIKI_WRITERS = {"wikimem.wiki.change"}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if module in BASE_MODULES or module == "wikimem.__main__":
        return "base" if module != "wikimem.__main__" else "cli"
    if len(parts) >= 2 and parts[1] in ALLOWED:
        return parts[1]
    return "app"


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every wikimem module `path` imports, relative imports resolved, wherever they stand."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from wikimem.x import y` may name the module wikimem.x.y
            found.update(
                f"{target}.{alias.name}"
                for alias in node.names
                if (PACKAGE.parent / f"{target}.{alias.name}".replace(".", "/")).exists()
                or (PACKAGE.parent / (f"{target}.{alias.name}".replace(".", "/") + ".py")).exists()
            )
    return {name for name in found if name == "wikimem" or name.startswith("wikimem.")}


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_import_goes_down_the_layers() -> None:
    wrong = []
    for path in sources():
        me = module_name(path)
        mine = layer_of(me)
        for target in sorted(imports_of(path)):
            theirs = layer_of(target)
            if theirs != mine and theirs not in ALLOWED[mine]:
                wrong.append(f"{me} ({mine}) imports {target} ({theirs})")
    assert not wrong, "\n".join(wrong)


def test_recall_never_reaches_a_wiki_writer() -> None:
    wrong = [
        f"{module_name(path)} imports {target}"
        for path in sources()
        if module_name(path).startswith("wikimem.recall")
        for target in imports_of(path)
        if target in WIKI_WRITERS
    ]
    assert not wrong, "\n".join(wrong)


def test_every_stage_folder_says_what_it_is_for() -> None:
    for folder in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
        assert doc, f"{folder.name}/__init__.py has no docstring"


def test_the_checker_sees_a_wrong_import(tmp_path: Path) -> None:
    """The test above could pass by seeing nothing: it must flag an import that climbs."""
    climbing = PACKAGE / "wiki" / "markdown.py"
    names = imports_of(climbing)
    assert "wikimem.errors" in names
    assert layer_of("wikimem.indexing.plan") not in ALLOWED["wiki"]
    assert layer_of("wikimem.cli.app") == "cli"
    assert layer_of("wikimem.status") == "app"
    assert layer_of("wikimem.fsio") == "base"
