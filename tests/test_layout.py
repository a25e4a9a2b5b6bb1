"""Data flows one way: a module imports only from its own stage or the stages before it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mdchunk"

#: The pipeline, in order (docs/architecture.md). ``errors`` is shared by every stage.
STAGES = ["errors", "formats", "text", "tokens", "config", "plan", "chunks", "audit", "sources",
          "index", "integrations", "cli"]


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
