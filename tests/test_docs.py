"""The documentation names real tests and modules: a renamed test cannot leave a stale claim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "docs" / "guarantees.md", ROOT / "docs" / "architecture.md",
        ROOT / "docs" / "sites.md", ROOT / "docs" / "cli.md", ROOT / "docs" / "encodings.md",
        ROOT / "docs" / "plaintext.md", ROOT / "docs" / "ray.md", ROOT / "docs" / "contract.md",
        ROOT / "README.md"]


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_named_tests_and_modules_exist(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for file, name in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text):
        source = (ROOT / file).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.MULTILINE), f"{doc.name}: {file}::{name}"
    for module in re.findall(r"`(mdchunk/[\w/]+\.py)`", text):
        assert (ROOT / module).is_file(), f"{doc.name}: {module} does not exist"
