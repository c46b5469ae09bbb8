"""The code's shape: no module over 1,000 lines, no function over 80, no import cycle, no
generated code and no class swapping (``exec``, ``__class__`` assignment: issue 24).

No module or function is older than these rules any more (the last, load.py, became the
``wapctl.ingest`` package); a module or function that grows past them fails here.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parent.parent / "wapctl"
MAX_MODULE_LINES = 1000
MAX_FUNCTION_LINES = 80

# module -> lines it may have at most until it is split (none left)
OLDER_MODULES: dict[str, int] = {}
# (module, function) -> lines it may have at most until it is split (none left)
OLDER_FUNCTIONS: dict[tuple[str, str], int] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_no_module_over_the_limit() -> None:
    over = {}
    for path in _modules().values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        limit = OLDER_MODULES.get(_rel(path), MAX_MODULE_LINES)
        if lines > limit:
            over[_rel(path)] = (lines, limit)
    assert over == {}, f"modules over their limit (lines, limit): {over}"


def test_no_function_over_the_limit() -> None:
    over = {}
    for path in _modules().values():
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                key = (_rel(path), node.name)
                limit = OLDER_FUNCTIONS.get(key, MAX_FUNCTION_LINES)
                if lines > limit:
                    over[key] = (lines, limit)
    assert over == {}, f"functions over their limit (lines, limit): {over}"


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The wapctl modules ``module`` imports anywhere in its text (late imports too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in modules else base)
    return {m for m in out if m in modules and m != module}


@functools.cache
def _import_graph() -> nx.DiGraph[str]:
    modules = _modules()
    graph: nx.DiGraph[str] = nx.DiGraph()
    for module, path in modules.items():
        graph.add_edges_from((module, target) for target in _imports(module, path, modules))
    return graph


def test_no_import_cycle() -> None:
    cycles = {frozenset(c) for c in nx.simple_cycles(_import_graph())}
    assert cycles == set()


def test_the_import_graph_sees_a_late_import() -> None:
    # the check above is only worth something if it sees imports inside functions
    assert _import_graph().has_edge("wapctl.preemptor", "wapctl.selector")


def test_the_core_imports_nothing_from_the_cli() -> None:
    cli = ("wapctl.cli", "wapctl.commands", "wapctl.render", "wapctl.__main__")
    graph = _import_graph()
    offenders = sorted(
        (a, b) for a, b in graph.edges if not a.startswith(cli) and b.startswith(cli)
    )
    assert offenders == []


def _exec_or_class_swap(tree: ast.AST) -> list[int]:
    """Lines of ``tree`` that call ``exec`` (bare or as an attribute, ``builtins.exec``) or set
    an attribute ``__class__`` (an assignment, or ``setattr``/``__setattr__`` naming it)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = (f.id if isinstance(f, ast.Name)
                    else f.attr if isinstance(f, ast.Attribute) else "")
            if name == "exec" or (
                name in ("setattr", "__setattr__")
                and any(isinstance(a, ast.Constant) and a.value == "__class__" for a in node.args)
            ):
                lines.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute) and t.attr == "__class__":
                        lines.append(node.lineno)
    return sorted(lines)


def test_no_exec_and_no_class_swapping() -> None:
    found = {}
    for path in _modules().values():
        lines = _exec_or_class_swap(_tree(path))
        if lines:
            found[_rel(path)] = lines
    assert found == {}, f"exec or __class__ assignment (issue 24) at: {found}"


def test_the_exec_and_class_swap_check_sees_them() -> None:
    code = """
def f(o, ns):
    exec("x = 1", ns)
    builtins.exec("y = 2")
    o.__class__ = int
    a, o.__class__ = 1, int
    setattr(o, "__class__", int)
    object.__setattr__(o, "__class__", int)
    kind = o.__class__  # reading it is fine
    type(o).execute(o)  # so is a method with another name
"""
    assert _exec_or_class_swap(ast.parse(code)) == [3, 4, 5, 6, 7, 8]


def test_limits_are_read_where_they_are_applied() -> None:
    """``from wapctl.ingest.limits import MAX_DEPTH`` copies the value at import: lowering
    ``wapctl.ingest.limits.MAX_DEPTH`` afterwards would change nothing there. The code reads
    ``limits.NAME`` when it applies a limit (tests/test_reader_limits.py lowers them). The
    package's ``__init__`` re-exports their values, to read, and says so."""
    copied = []
    for path in _modules().values():
        if _rel(path) == "wapctl/ingest/__init__.py":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module == "wapctl.ingest.limits":
                copied += [(_rel(path), a.name) for a in node.names if a.name.isupper()]
    assert copied == []
