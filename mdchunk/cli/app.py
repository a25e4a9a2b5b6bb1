"""The ``mdchunk`` command: the Typer app, its commands in the order help lists them, and
:func:`main`, which quiets the model and Milvus libraries' logging before it runs the app."""

from __future__ import annotations

import logging
import os
from typing import Annotated

import typer

from .. import __version__
from .chunk_commands import chunk, inspect, show_config
from .eval_command import evaluate
from .help import PlainHelp
from .index_commands import index, search
from .serve_commands import mcp, serve

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Chunk Markdown and text knowledge bases, embed them, search them.")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mdchunk {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """Options of ``mdchunk`` itself, before the command."""


# every command shows plain metavars (INTEGER, PATH) in its help
for _command, _name in ((chunk, None), (inspect, None), (show_config, "config"), (index, None),
                        (search, None), (evaluate, "eval"), (serve, None), (mcp, None)):
    app.command(cls=PlainHelp, name=_name)(_command)


def configure_logging() -> logging.Handler:
    """Our own warnings as "mdchunk: …" lines on stderr, and the one notice of a first run that
    exports the model to ONNX (it takes seconds); the model libraries' chatter (progress bars,
    revision notes, jieba's dictionary messages) only when it is an error. Returns the handler."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("mdchunk: %(message)s"))
    logging.getLogger("mdchunk").addHandler(handler)
    logging.getLogger("mdchunk").setLevel(logging.WARNING)
    logging.getLogger("mdchunk").propagate = False
    logging.getLogger("mdchunk.embedding.onnx_export").setLevel(logging.INFO)
    for noisy in ("sentence_transformers", "transformers", "huggingface_hub"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    # Milvus clients log a failure with its traceback before raising it; the error they raise
    # becomes our one line.
    for client in ("pymilvus", "milvus_lite"):
        logging.getLogger(client).setLevel(logging.CRITICAL)
    # jieba (Milvus Lite's Chinese analyzer) sets its logger's level to DEBUG when it is
    # imported, which would undo a level set here; a filter on the logger outlasts that, and
    # jieba is imported only by a search or run that needs its dictionary, not by every command.
    logging.getLogger("jieba").addFilter(_errors_only)
    return handler


def _errors_only(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.ERROR


def main() -> None:
    configure_logging()
    # The model libraries' progress bars (transformers' "Loading weights", hub downloads) have
    # no per-call switch, only these process-wide ones, read when the libraries are imported:
    # the command line owns its process and sets them before anything imports them; the
    # library, a guest in its caller's process, leaves them to the caller.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    app()
