"""The committed OpenAPI schema (``docs/openapi.json``) is the one the server serves, and
requests generated from it (schemathesis) never get a 5xx or a traceback."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")

from mdchunk.serve.schema import openapi_text

from .conftest import ROOT

SCHEMA = ROOT / "docs" / "openapi.json"


def test_the_committed_schema_is_the_served_one() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == openapi_text(), (
        "docs/openapi.json drifted: python -m mdchunk.serve.schema > docs/openapi.json")


def test_the_schema_lists_every_endpoint() -> None:
    paths = json.loads(SCHEMA.read_text(encoding="utf-8"))["paths"]
    assert set(paths) == {"/v1/chunk", "/v1/embed", "/v1/search", "/v1/chunks/{chunk_id}",
                          "/v1/collections", "/v1/index", "/v1/jobs/{job_id}", "/healthz",
                          "/readyz", "/metrics"}


schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.specs.openapi.checks import ignored_auth  # noqa: E402, F401

from mdchunk.serve import ServeConfig  # noqa: E402
from mdchunk.serve.app import create_app  # noqa: E402
from tests.serve_fakes import fake_service  # noqa: E402

_CONFIG = ServeConfig(allow_index=False)
committed = schemathesis.openapi.from_path(SCHEMA)
committed.app = create_app(_CONFIG, fake_service(_CONFIG))


@committed.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_generated_requests_never_get_a_5xx(case) -> None:  # type: ignore[no-untyped-def]
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.text[:300])
    if response.status_code >= 400 and case.path != "/readyz":
        body = response.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        assert "Traceback" not in response.text
