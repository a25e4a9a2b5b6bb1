"""The ``mdchunk`` command (Typer): chunk, inspect, index, search."""

from .app import app, main

__all__ = ["app", "main"]
