"""The shape of the package: no import cycles, few top-level modules, no long modules or
classes.

The layers and the numba contracts are ``lint-imports``' (``[tool.importlinter]`` in
``pyproject.toml``); its ``acyclic_siblings`` contract compares a package's children, so a
cycle through a package's own ``__init__`` escapes it: this test looks at single modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import grimp
import pytest

import sidebet

PACKAGE = Path(sidebet.__file__).parent
MAX_TOP_LEVEL_MODULES = 4
MAX_LINES = 700
MAX_CLASS_LINES = 500
LONG_BY_DESIGN = {"sim/kernels.py", "sim/steps.py"}  # the round kernel and its steps


@pytest.fixture(scope="module")
def imports() -> dict[str, set[str]]:
    """Every module of sidebet and the sidebet modules it imports, lazy imports inside
    functions and ``if TYPE_CHECKING:`` imports included."""
    graph = grimp.build_graph("sidebet", exclude_type_checking_imports=False, cache_dir=None)
    return {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}


def strongly_connected(edges: Mapping[str, set[str]]) -> Iterator[list[str]]:
    """Tarjan's components of the graph ``edges``, without recursion.

    >>> sorted(sorted(c) for c in strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}))
    [['a', 'b'], ['c']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
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
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                yield component


def cycle_in(component: list[str], edges: Mapping[str, set[str]]) -> list[str]:
    """One cycle through the first module of ``component`` (a component of size > 1),
    as the modules in import order, the first repeated at the end."""
    members = set(component)
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:  # breadth first: the shortest way round
        following: list[str] = []
        for node in frontier:
            for child in sorted(edges[node] & members):
                if child == start:
                    return [*paths[node], start]
                if child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def test_graph_includes_lazy_and_type_checking_imports(imports: dict[str, set[str]]) -> None:
    # sidebet/__init__.py imports the PAR sheet only under TYPE_CHECKING; the simulator's
    # dispatcher imports its JIT kernels inside a function.
    assert "sidebet.exact.par" in imports["sidebet"]
    assert "sidebet.sim.kernels" in imports["sidebet.sim.compiled"]


def test_no_import_cycles(imports: dict[str, set[str]]) -> None:
    cycles = [
        f"{' -> '.join(cycle_in(c, imports))} (the cycles join {', '.join(sorted(c))})"
        for c in strongly_connected(imports)
        if len(c) > 1
    ]
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


def test_few_top_level_modules() -> None:
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, modules


def test_no_long_modules() -> None:
    long = {
        rel: lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (rel := path.relative_to(PACKAGE).as_posix()) not in LONG_BY_DESIGN
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_long_classes() -> None:
    long = {
        f"{rel}:{node.name}": lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (rel := path.relative_to(PACKAGE).as_posix()) not in LONG_BY_DESIGN
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_CLASS_LINES
    }
    assert not long, f"classes over {MAX_CLASS_LINES} lines: {long}"
