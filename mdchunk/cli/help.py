"""Plain metavars in help: ``INTEGER``, ``TEXT``, ``PATH``, as Click prints them, instead of
the ``<int>``, ``<list[Path]>``, ``<bool>`` that this Typer shows. Flags show none."""

from __future__ import annotations

import re
from typing import Any

from typer.core import TyperArgument, TyperCommand

__all__ = ["PlainHelp", "plain_metavar"]

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
    """A Typer command whose help shows plain metavars (set where a parameter has none)."""

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
