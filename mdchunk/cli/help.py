"""Plain metavars in help: ``INTEGER``, ``TEXT``, ``PATH``, as Click prints them, instead of
the ``<int>``, ``<list[Path]>``, ``<bool>`` that this Typer shows. Flags show none. And a bad
flag value said in our words: Typer checks values with pydantic and shows its messages
("Value error, …", "Input should be a valid integer…"); :func:`plain_error` rewords them."""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand

__all__ = ["PlainHelp", "plain_error", "plain_metavar"]

_PLAIN = {"int": "INTEGER", "str": "TEXT", "float": "FLOAT", "path": "PATH", "bool": "BOOLEAN"}


def plain_metavar(display: str, *, flag: bool = False, many: bool = False) -> str:
    """Click's metavar for Typer's type label ``display`` (``<int>``, ``<list[Path]>``…).

    >>> plain_metavar("<list[Path]>", many=True), plain_metavar("<int>")
    ('PATH...', 'INTEGER')
    >>> plain_metavar("<bool>", flag=True)
    ''
    """
    if flag:
        return ""
    label = display.strip("<>")
    inner = re.fullmatch(r"list\[(.+)\]", label)
    label = inner.group(1) if inner else label
    name = _PLAIN.get(label.lower(), f"[{label}]" if "|" in label else label.upper())
    return name + ("..." if many else "")


#: A pydantic error type (its public ``errors()`` records) and how the command line says it.
_SAID = {
    "int_parsing": "{input!r} is not an integer",
    "int_from_float": "{input!r} is not an integer",
    "float_parsing": "{input!r} is not a number",
    "bool_parsing": "{input!r} is not true or false",
    "greater_than_equal": "{input} must be at least {ge}",
    "greater_than": "{input} must be more than {gt}",
    "less_than_equal": "{input} must be at most {le}",
    "less_than": "{input} must be less than {lt}",
}


def plain_error(message: str, cause: BaseException | None) -> str:
    """A bad value's message in the command line's words, when pydantic's ``cause`` wrote it:
    the check's own words for a ``ValueError`` (a choice not among a literal's values), a
    sentence naming the value for a type or range error; ``message`` otherwise.

    >>> class Cause(Exception):
    ...     def errors(self): return [{"type": "int_parsing", "input": "abc", "ctx": {}}]
    >>> plain_error("Input should be a valid integer", Cause())
    "'abc' is not an integer"
    """
    errors = getattr(cause, "errors", None)
    if not callable(errors):
        return message
    first = (errors() or [{}])[0]
    kind, context = first.get("type"), first.get("ctx") or {}
    if kind == "value_error" and "error" in context:
        return str(context["error"]).rstrip(".")
    said = _SAID.get(str(kind))
    return message if said is None else said.format(input=first.get("input"), **context)


class _PlainArgument(TyperArgument):
    """An argument shown by its metavar alone: ``PATH...``, no type column beside it."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _rich_display_name(self) -> str:
        return str(self.metavar) + ("..." if self.nargs != 1 else "")

    def _usage_display_name(self) -> str:
        name = self._rich_display_name()
        return name if self.required else f"[{name}]"


class PlainHelp(TyperCommand):
    """A Typer command whose help shows plain metavars (set where a parameter has none) and
    whose bad values are said plainly (:func:`plain_error`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return list(super().parse_args(ctx, args))
        except typer.BadParameter as exc:
            exc.message = plain_error(exc.message, exc.__cause__)
            raise

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        for param in params:
            if isinstance(param, TyperArgument):
                if param.metavar is None:
                    param.metavar = plain_metavar(param.display_type(ctx))
                param.__class__ = _PlainArgument  # same object, plain display
            elif param.metavar is None:
                param.metavar = plain_metavar(param.display_type(ctx),
                                              flag=bool(getattr(param, "is_flag", False)),
                                              many=param.nargs != 1)
        return params
