"""The OpenAPI schema of ``/v1``, as committed in ``docs/openapi.json`` (a test fails when the
two drift). Regenerate it with ``python -m mdchunk.serve.schema > docs/openapi.json``."""

from __future__ import annotations

import json
import sys
from typing import Any

from .app import create_app
from .config import ServeConfig

__all__ = ["openapi_schema", "openapi_text"]


def openapi_schema() -> dict[str, Any]:
    """The schema of a server with the default config (no service is opened)."""
    return create_app(ServeConfig()).openapi()


def openapi_text() -> str:
    """The schema as committed: indented, keys in order, one trailing newline."""
    return json.dumps(openapi_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(openapi_text())
