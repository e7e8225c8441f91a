"""The layout's rules, read from the code's imports (docs/architecture.md, "Layers").

Imports point one way: cli -> engine -> agents -> calls -> adapters, with records, schemas and
errors at the bottom; reporting, review, calibration and export read records and never drive the
engine. No module imports itself back through others (no circles), `src/medeval` keeps at most six
modules beside its layer folders, and no source file passes 420 lines. Every import counts, including
one inside a function or under TYPE_CHECKING: a circle hidden in a function is still a circle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "medeval"

#: Rank of each layer: a module may import its own layer or a lower rank, never a higher one.
RANKS: dict[str, int] = {
    "errors": 0,
    "schemas": 0,
    "data": 0,
    "templates": 0,
    "records": 1,
    "prompts": 1,
    "adapters": 2,
    "calls": 3,
    "agents": 4,
    "scenarios": 5,
    "fakes": 5,
    "engine": 7,
    "study": 8,
    "cli": 9,
    "api": 9,
    "__main__": 9,
    "testing": 9,
    "": 0,  # medeval/__init__.py: the version only
}
#: The readers sit beside the engine: they may import records, schemas, errors, scenarios and the
#: readers before them in this order, and nothing that calls a model or drives a run.
READERS = ("review", "calibration", "export", "reporting")
READER_MAY_IMPORT = {"errors", "schemas", "data", "templates", "records", "prompts", "scenarios"}
MAX_TOP_LEVEL_MODULES = 6
MAX_LINES = 420


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def imported(path: Path, known: set[str]) -> Iterator[str]:
    """The medeval modules a file imports: a submodule where `from package import submodule` names
    one, else the module named."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "medeval")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "medeval":
                continue
            subs = [f"{node.module}.{alias.name}" for alias in node.names]
            named = [sub for sub in subs if sub in known]
            yield from named
            if len(named) < len(subs):
                yield node.module


def graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    known = set(mods)
    return {
        name: {m for m in imported(path, known) if m != name and m in known} for name, path in mods.items()
    }


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def may_import(importer: str, imported_module: str) -> bool:
    a, b = layer(importer), layer(imported_module)
    if a == b:
        return True
    if a in READERS:
        return b in READER_MAY_IMPORT or (b in READERS and READERS.index(b) < READERS.index(a))
    if b in READERS:
        # Only the engine's calibration run (it reads the reference set) and the commands above it.
        return RANKS[a] >= RANKS["engine"]
    return RANKS[b] <= RANKS[a]


def layering_violations(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets if not may_import(a, b))


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
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
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_layer_is_ranked() -> None:
    unranked = {layer(m) for m in modules()} - set(RANKS) - set(READERS)
    assert not unranked, f"give these layers a place in RANKS or READERS: {sorted(unranked)}"


def test_imports_point_one_way() -> None:
    assert layering_violations(graph(modules())) == []


def test_no_import_circles() -> None:
    assert circles(graph(modules())) == []


def test_the_rules_catch_a_circle_and_an_upward_import() -> None:
    # The checks themselves can fail: a circle through two layers, and an adapter importing an agent.
    edges = {
        "medeval.engine.trial": {"medeval.engine.judging"},
        "medeval.engine.judging": {"medeval.engine.trial"},
        "medeval.adapters.fake": {"medeval.agents.rules"},
        "medeval.agents.rules": set(),
        "medeval.reporting.build": {"medeval.engine.orchestrator"},
        "medeval.engine.orchestrator": set(),
    }
    assert circles(edges) == [["medeval.engine.judging", "medeval.engine.trial"]]
    assert layering_violations(edges) == [
        "medeval.adapters.fake -> medeval.agents.rules",
        "medeval.reporting.build -> medeval.engine.orchestrator",
    ]


def test_the_top_of_the_package_is_layers() -> None:
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_modules_stay_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC)} has {lines} lines; split it by job"
