"""The API's reference at ``/docs``, rendered on the server from the app's OpenAPI schema. No
asset from elsewhere: FastAPI's own ``/docs`` and ``/redoc`` load theirs from a CDN, a blank page
offline. ``/redoc`` leads here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, RedirectResponse

from .page import template

__all__ = ["Field", "Operation", "add_docs", "operations", "type_of"]

#: The HTTP methods an OpenAPI path item may hold, in the order the page lists them.
_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True, slots=True)
class Field:
    """A parameter or a body field: its name, where it goes, its type, whether it must be
    given, its default and what it means."""

    name: str
    where: str
    type: str
    required: bool
    default: str
    description: str


@dataclass(frozen=True, slots=True)
class Operation:
    """One method on one path, as the page shows it."""

    method: str
    path: str
    summary: str
    description: str
    fields: list[Field]
    body: str
    answers: list[tuple[str, str, str]]  # status, description, schema


def type_of(schema: dict[str, Any]) -> str:
    """A schema's type in a few words: a model's name, ``list of X``, ``X or null``.

    >>> type_of({"anyOf": [{"type": "integer"}, {"type": "null"}]})
    'integer or null'
    >>> type_of({"type": "array", "items": {"$ref": "#/components/schemas/Hit"}})
    'list of Hit'
    >>> type_of({"enum": ["hybrid", "dense"], "type": "string"})
    'hybrid | dense'
    """
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "enum" in schema:
        return " | ".join(map(str, schema["enum"]))
    if "const" in schema:
        return repr(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(type_of(s) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {type_of(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return f"map of {type_of(extra)}" if isinstance(extra, dict) else "object"
    return str(kind)


def _fields(schema: dict[str, Any], components: dict[str, Any]) -> list[Field]:
    """The fields of a request body's model."""
    if "$ref" in schema:
        schema = components.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
    required = set(schema.get("required", ()))
    return [Field(name, "body", type_of(prop), name in required,
                  "" if "default" not in prop else json.dumps(prop["default"]),
                  str(prop.get("description", "")))
            for name, prop in schema.get("properties", {}).items()]


def operations(schema: dict[str, Any]) -> list[Operation]:
    """Every operation of an OpenAPI ``schema``, by path then method."""
    components = schema.get("components", {}).get("schemas", {})
    found = []
    for path, item in sorted(schema.get("paths", {}).items()):
        for method in (m for m in _METHODS if m in item):
            op = item[method]
            fields = [Field(p["name"], p.get("in", ""), type_of(p.get("schema", {})),
                            bool(p.get("required")),
                            "" if "default" not in p.get("schema", {})
                            else json.dumps(p["schema"]["default"]), str(p.get("description", "")))
                      for p in op.get("parameters", [])]
            content = op.get("requestBody", {}).get("content", {})
            body = ""
            for media, entry in content.items():
                body = f"{media}: {type_of(entry.get('schema', {}))}"
                fields += _fields(entry.get("schema", {}), components)
                break
            answers = [(status, str(answer.get("description", "")),
                        ", ".join(type_of(c.get("schema", {}))
                                  for c in answer.get("content", {}).values()))
                       for status, answer in op.get("responses", {}).items()]
            found.append(Operation(method.upper(), path, str(op.get("summary", "")),
                                   str(op.get("description", "")), fields, body, answers))
    return found


def add_docs(app: FastAPI) -> None:
    """``/docs`` (and ``/redoc``, leading to it) on ``app``, whose own are turned off."""

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def docs() -> HTMLResponse:
        schema = app.openapi()
        info = schema.get("info", {})
        return HTMLResponse(template("docs.html.j2").render(
            title=info.get("title", ""), version=info.get("version", ""),
            description=info.get("description", ""), operations=operations(schema)))

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> RedirectResponse:
        return RedirectResponse("/docs")
