"""The import graph of every module: one-way layers and no import cycles.

Every ``.py`` file of ``go_env``, ``agents`` and ``tuning`` is parsed (AST, nothing is
imported) and every ``import`` statement is read, at module level and inside functions,
classes and ``try`` blocks alike. The layers (README.md, "Layout") are checked on all of them:

* ``go_env`` imports neither ``agents`` nor ``tuning``; ``agents`` does not import ``tuning``;
* ``torch`` is imported only under ``agents/nets`` (and by the noise-aware GP sampler of the
  studies); ``optuna`` only under ``tuning``.

Imports by name count as imports: ``importlib.import_module("pkg.mod")`` is an import of
``pkg.mod``; a module that calls ``import_module`` with a computed name imports every module of
the three packages that it names in a string constant (a table of lazily loaded names, say).
The shims of moved modules (:mod:`agents._moved`) are the one exception: they import an old
name's new module only when a caller asks for the old name.

Cycles are checked twice: on the imports that run, and on every import including those under
``if TYPE_CHECKING:`` (a cycle of type-only imports still ties two modules together for a
reader and for the type checker). Each time the module graph, and the graph of subpackages,
must have no strongly connected component.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("go_env", "agents", "tuning")

# Which top-level names each layer must not import.
FORBIDDEN = {
    "go_env": ("agents", "tuning"),
    "agents": ("tuning",),
    "tuning": (),
}
# Third-party packages confined to one subpackage: name -> the module prefix allowed to use it.
CONFINED: dict[str, tuple[str, ...]] = {
    # Networks live in agents.nets; the one other user is the noise-aware GP sampler of the
    # studies (BoTorch is built on torch; docs/decisions/016-noise-aware-gp.md).
    "torch": ("agents.nets", "tuning.samplers.noisy_gp"),
    "optuna": ("tuning",),
    # Ray (the optional `cluster` extra) is behind one Executor (docs/decisions/017).
    "ray": ("agents.matches.ray_pool",),
}


@dataclass(frozen=True)
class Import:
    """One imported module, as written in ``source`` at ``line``."""

    source: str
    target: str
    line: int
    type_checking: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[module_name(path)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, type_checking: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement under ``node``, with whether it sits under ``if TYPE_CHECKING``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, type_checking
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk_stmt(stmt, True)
            for stmt in child.orelse:
                yield from _walk_stmt(stmt, type_checking)
        else:
            yield from _walk(child, type_checking)


def _walk_stmt(stmt: ast.stmt, type_checking: bool) -> Iterator[tuple[ast.stmt, bool]]:
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        yield stmt, type_checking
    else:
        yield from _walk(stmt, type_checking)


# Modules whose computed ``import_module`` names are not imports of their own (see above).
DYNAMIC_IMPORTERS_EXEMPT = {"agents._moved"}


def _is_import_module(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )


def dynamic_imports_of(name: str, tree: ast.Module, modules: dict[str, Path]) -> list[Import]:
    """The modules ``name`` imports by name through ``importlib.import_module``."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_import_module(n)]
    found = []
    computed = False
    for call in calls:
        arg = call.args[0] if call.args else None
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.append(Import(name, arg.value, call.lineno, False))
        else:
            computed = True
    if computed and name not in DYNAMIC_IMPORTERS_EXEMPT:
        for node in ast.walk(tree):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and value in modules and value != name:
                found.append(Import(name, value, node.lineno, False))
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The modules ``name`` imports; ``from pkg import sub`` counts as importing ``pkg.sub``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found = dynamic_imports_of(name, tree, modules)
    for stmt, type_checking in _walk(tree):
        if isinstance(stmt, ast.Import):
            targets = [alias.name for alias in stmt.names]
        else:
            assert isinstance(stmt, ast.ImportFrom)
            base = stmt.module or ""
            if stmt.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (stmt.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = []
            for alias in stmt.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        found += [Import(name, target, stmt.lineno, type_checking) for target in targets]
    return found


@pytest.fixture(scope="module")
def graph() -> list[Import]:
    modules = all_modules()
    edges = []
    for name, path in modules.items():
        edges += imports_of(name, path, modules)
    return edges


def _top(name: str) -> str:
    return name.partition(".")[0]


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_walk_sees_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    """The reader itself: imports inside functions, methods, try blocks and TYPE_CHECKING."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    path = pkg / "mod.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import a.typed\n"
        "class C:\n    def f(self):\n        try:\n            from b import c\n"
        "        except ImportError:\n            import d\n"
        "from . import sibling\n",
        encoding="utf-8",
    )
    found = imports_of("pkg.mod", path, {"b.c": path, "pkg.sibling": path})
    got = {(i.target, i.type_checking) for i in found}
    assert got == {
        ("typing", False),
        ("a.typed", True),
        ("b.c", False),
        ("d", False),
        ("pkg.sibling", False),
    }


def test_the_walk_sees_imports_by_name(tmp_path: Path) -> None:
    """``import_module("x")`` imports x; a computed name imports the modules named in strings."""
    path = tmp_path / "mod.py"
    path.write_text(
        "import importlib\n"
        "def f():\n    return importlib.import_module('pkg.lazy')\n"
        "_WHERE = {'name': 'pkg.table'}\n"
        "def g(n):\n    return importlib.import_module(_WHERE[n])\n"
        "TEXT = 'not.a.module'\n",
        encoding="utf-8",
    )
    modules = {"pkg.lazy": path, "pkg.table": path, "pkg.mod": path}
    got = {(i.target, i.type_checking) for i in imports_of("pkg.mod", path, modules)}
    assert got == {("importlib", False), ("pkg.lazy", False), ("pkg.table", False)}


def test_every_package_module_is_walked(graph: list[Import]) -> None:
    sources = {edge.source for edge in graph}
    # Modules that import nothing of their own are fine, but the walk must reach all layers.
    for package in PACKAGES:
        assert any(_under(source, package) for source in sources), package
    assert "agents.matches.arena" in sources and "agents.nets.training.selfplay" in sources


def test_layers_point_one_way(graph: list[Import]) -> None:
    bad = [
        f"{edge.source}:{edge.line} imports {edge.target} (layer {_top(edge.source)} must not "
        f"import {', '.join(FORBIDDEN[_top(edge.source)])})"
        for edge in graph
        if _top(edge.target) in FORBIDDEN[_top(edge.source)]
    ]
    assert not bad, "imports against the layers go_env <- agents <- tuning:\n" + "\n".join(bad)


@pytest.mark.parametrize(("library", "home"), sorted(CONFINED.items()))
def test_heavy_libraries_stay_in_their_package(
    graph: list[Import], library: str, home: tuple[str, ...]
) -> None:
    bad = [
        f"{edge.source}:{edge.line} imports {edge.target}"
        for edge in graph
        if _top(edge.target) == library and not any(_under(edge.source, h) for h in home)
    ]
    assert not bad, f"{library} may be imported only under {home}:\n" + "\n".join(bad)


def runtime_graph(graph: list[Import], *, type_checking: bool = False) -> dict[str, set[str]]:
    """The module graph of the imports that run (with ``type_checking``: of all imports)."""
    modules = set(all_modules())
    adjacency: dict[str, set[str]] = {name: set() for name in modules}
    for edge in graph:
        if edge.type_checking and not type_checking:
            continue
        if edge.target in modules and edge.target != edge.source:
            adjacency[edge.source].add(edge.target)
    return adjacency


def unit_of(module: str) -> str:
    """A subpackage of a layer (``agents.mcts``, ``go_env._core``), else the module itself."""
    parts = module.split(".")
    if len(parts) >= 2 and (ROOT / parts[0] / parts[1] / "__init__.py").exists():
        return ".".join(parts[:2])
    return module


def package_graph(adjacency: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph with every subpackage of a layer merged into one node."""
    merged: dict[str, set[str]] = {}
    for source, targets in adjacency.items():
        unit = unit_of(source)
        merged.setdefault(unit, set()).update(unit_of(t) for t in targets)
    for unit, targets in merged.items():
        targets.discard(unit)
    return merged


def strongly_connected(adjacency: dict[str, set[str]]) -> list[frozenset[str]]:
    """Tarjan's strongly connected components with more than one module (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    counter = 0
    for root in sorted(adjacency):
        if root in index:
            continue
        work = [(root, iter(sorted(adjacency[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adjacency[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(frozenset(component))
    return components


def a_cycle(adjacency: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """One concrete cycle inside ``component``, for the failure message."""
    start = min(component)
    path, seen = [start], {start}
    while True:
        nxt = sorted(adjacency[path[-1]] & component)
        back = [n for n in nxt if n in seen]
        if back:
            return [*path[path.index(back[0]) :], back[0]]
        path.append(nxt[0])
        seen.add(nxt[0])


def test_tarjan_finds_cycles() -> None:
    adjacency = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(adjacency) == [frozenset("abc")]
    assert a_cycle(adjacency, frozenset("abc")) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("type_checking", [False, True], ids=["runtime", "type-checking"])
def test_no_import_cycles(graph: list[Import], type_checking: bool) -> None:
    adjacency = runtime_graph(graph, type_checking=type_checking)
    new = strongly_connected(adjacency)
    assert not new, "import cycles:\n" + "\n".join(
        " -> ".join(a_cycle(adjacency, c)) + f"  (modules {sorted(c)})" for c in new
    )


@pytest.mark.parametrize("type_checking", [False, True], ids=["runtime", "type-checking"])
def test_no_cycles_between_subpackages(graph: list[Import], type_checking: bool) -> None:
    """Between subpackages of a layer (``agents.mcts``, ``agents.nets``, ...; a module outside
    a subpackage is its own unit). ``agents.nets`` imports ``agents.matches`` (the self-play
    gate and ``gomcts book`` run the arena's code), so the arena takes network values from its
    caller and never imports ``agents.nets``."""
    adjacency = package_graph(runtime_graph(graph, type_checking=type_checking))
    new = strongly_connected(adjacency)
    assert not new, "import cycles between subpackages:\n" + "\n".join(
        " -> ".join(a_cycle(adjacency, c)) + f"  (units {sorted(c)})" for c in new
    )
