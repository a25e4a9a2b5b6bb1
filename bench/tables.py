"""What the issue #17 benches share: save the figures as JSON, print them as a Markdown table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def save_and_print(out: Path, name: str, data: Any, header: Sequence[str],
                   lines: Sequence[Sequence[object]]) -> None:
    """Write ``data`` to ``out/name`` and print ``lines`` under ``header``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(json.dumps(data, indent=2) + "\n")
    print("| " + " | ".join(header) + " |\n" + "|---" * len(header) + "|")
    for line in lines:
        print("| " + " | ".join(map(str, line)) + " |")
