"""A process that serves: :func:`serve` binds the address (port 0: any free one), prints it as
one JSON line on stdout once the server accepts connections (what a parent process reads),
and runs until told to stop: SIGTERM or SIGINT (in-flight requests are answered first, then
exit status 0), its parent's death (``parent_pid``), or its stdin closing
(``exit_on_stdin_eof``), each noticed within a second."""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import IO, Any

from .config import ServeConfig

__all__ = ["WATCH_SECONDS", "bound_socket", "serve"]

#: How often the parent is looked for.
WATCH_SECONDS = 0.5


def bound_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port the system picks).

    Made with ``IPPROTO_TCP`` named: asyncio turns Nagle's algorithm off only on sockets that
    say so, and with it on, a response written in two parts (headers, body) waits for the
    client's delayed ACK, about 40 ms a request."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(config: ServeConfig, *, parent_pid: int | None = None, exit_on_stdin_eof: bool = False,
          announce: IO[str] | None = None) -> int:
    """Serve ``config`` until stopped; the exit status (0 after a graceful stop)."""
    import uvicorn

    from .app import create_app
    from .service import open_reranker

    for chatty in ("mcp", "faiss", "httpx"):  # their INFO lines would drown the server's own
        logging.getLogger(chatty).setLevel(logging.WARNING)
    # loaded before the address is bound: one that cannot be is refused now, in one line
    open_reranker(config.rerank, config.warm_query)
    sock = bound_socket(config.host, config.port)
    host, port = sock.getsockname()[:2]
    address = {"host": host, "port": port, "pid": os.getpid(),
               "url": f"http://{f'[{host}]' if ':' in host else host}:{port}"}
    server = _Server(uvicorn.Config(create_app(config), log_level="warning", access_log=False,
                                    timeout_graceful_shutdown=max(math.ceil(config.timeout), 1),
                                    timeout_keep_alive=5),
                     lambda: _say(announce or sys.stdout, address))
    if parent_pid is not None:
        _watch(_parent_gone(parent_pid), server, "parent")
    if exit_on_stdin_eof:  # a read blocks until there is input; empty: the pipe is closed
        stdin = sys.stdin.fileno() if sys.stdin is not None else -1
        _watch(lambda: stdin < 0 or not os.read(stdin, 65536), server, "stdin")
    server.run(sockets=[sock])
    return 0 if server.started else 1


class _Server:
    """uvicorn's server, announcing its address once it accepts connections, and stopping on
    SIGTERM without re-raising the signal afterwards (uvicorn would, and the exit status
    would then be the signal's, not 0)."""

    def __new__(cls, config: Any, on_started: Callable[[], None]) -> Any:
        import uvicorn

        class Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets)
                if self.started:
                    on_started()

            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                if sig == signal.SIGTERM:
                    self.should_exit = True  # drained, then exit 0
                    return
                super().handle_exit(sig, frame)

        return Server(config)


def _say(out: IO[str], address: dict[str, Any]) -> None:
    out.write(json.dumps(address) + "\n")
    out.flush()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def _parent_gone(pid: int) -> Callable[[], bool]:
    """Whether process ``pid`` has ended; when it is this process's parent, being handed to
    another parent says so too (a pid can be reused, a parent cannot come back)."""
    direct = pid == os.getppid()
    return lambda: not _alive(pid) or (direct and os.getppid() != pid)


def _watch(gone: Callable[[], bool], server: Any, what: str) -> None:
    """Stop ``server`` once ``gone()`` says so (checked every :data:`WATCH_SECONDS`)."""
    def watch() -> None:
        while not server.should_exit:
            if gone():
                server.should_exit = True
                return
            time.sleep(WATCH_SECONDS)

    threading.Thread(target=watch, name=f"mdchunk-serve-{what}", daemon=True).start()
