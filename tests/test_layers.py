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
BASE = {
    "wikimem",
    "wikimem.errors",
    "wikimem.config",
    "wikimem.locate",
    "wikimem.fsio",
    "wikimem.trust",
    "wikimem.frozen",
}
BASE_MODULES = BASE | {"wikimem.pause", "wikimem.__main__"}
ALLOWED: dict[str, set[str]] = {
    "base": {"base"},
    "redaction": {"base"},
    "runners": {"base", "redaction"},
    "intake": {"base", "redaction", "runners"},
    "wiki": {"base", "redaction"},
    "indexing": {"base", "redaction", "runners", "intake", "wiki", "recall", "providers"},
    "recall": {"base", "redaction", "intake", "wiki"},
    # where memory goes: the wiki (read through recall, written through wiki) or another store
    "providers": {"base", "redaction", "intake", "wiki", "recall"},
    # lifecycle reads recall (compaction asks when entries were delivered or used, and when
    # they were written): recall only reads (the test below keeps it from any wiki writer),
    # and lifecycle already reached it through indexing
    "lifecycle": {"base", "redaction", "intake", "wiki", "indexing", "recall"},
    "app": {
        "base",
        "redaction",
        "runners",
        "intake",
        "wiki",
        "indexing",
        "recall",
        "lifecycle",
        "providers",
    },
}
ALLOWED["cli"] = ALLOWED["app"] | {"app"}  # the command line sits on everything
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


def imports_of(path: Path, typing_only: bool = True) -> set[str]:
    """Every wikimem module `path` imports, relative imports resolved, wherever they stand;
    without `typing_only`, less those under `if TYPE_CHECKING:` (never imported at run time)."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[ast.AST] = set()
    if not typing_only:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
                skipped.update(n for statement in node.body for n in ast.walk(statement))
    for node in ast.walk(tree):
        if node in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from wikimem.x import y` may name the module wikimem.x.y; the package itself
            # counts only when a name is not a module of it
            modules = {f"{target}.{alias.name}" for alias in node.names} & ALL_MODULES
            found.update(modules)
            if len(modules) < len(node.names):
                found.add(target)
    return {name for name in found if name == "wikimem" or name.startswith("wikimem.")}


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


ALL_MODULES = {module_name(path) for path in sources()}


def import_graph() -> dict[str, set[str]]:
    """Which wikimem modules each one imports at run time."""
    return {
        module_name(path): imports_of(path, typing_only=False) & ALL_MODULES for path in sources()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected components of more than one module
    (or a module importing itself), each sorted (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return sorted(found)


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


def test_no_import_cycle_anywhere_in_the_package() -> None:
    """Not even through an import inside a function: a cycle is two modules that cannot be
    understood (or moved to another layer) one without the other. Imports for type hints
    alone (`if TYPE_CHECKING:`) do not count."""
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "f": {"d"}}
    assert cycles(graph) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert "wikimem.cli.context" in import_graph()["wikimem.cli.pipeline"]


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


def test_the_lazy_command_table_names_every_command_where_it_is_defined() -> None:
    """The group imports a command's module only when it runs: a command missing from
    cli/context.py's table would vanish from help, one listed under the wrong module would fail."""
    import importlib

    from wikimem.cli.context import COMMANDS, SECTIONS, cli

    for name, (module, section) in COMMANDS.items():
        importlib.import_module(f"wikimem.cli.{module}")
        assert name in cli.commands, f"{name} is not defined in wikimem.cli.{module}"
        assert cli.commands[name].callback is not None
        assert cli.commands[name].callback.__module__ == f"wikimem.cli.{module}", name
        assert section in SECTIONS
    import wikimem.cli.app  # noqa: F401  (every command module)

    assert set(cli.commands) == set(COMMANDS), "add new commands to COMMANDS in cli/context.py"
