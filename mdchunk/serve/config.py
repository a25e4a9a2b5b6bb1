"""What a server is configured with: one frozen :class:`ServeConfig`, checked once when it is
made, so that a server bound beyond this machine without a token never starts."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..config import ChunkerConfig
from ..embedding.rerankers import Reranker
from ..errors import ConfigError
from ..index.config import EmbedderConfig, StoreConfig

__all__ = ["LOOPBACK", "TOKEN_ENV", "ServeConfig", "is_loopback", "read_token"]

#: The address a server binds unless told otherwise: this machine only.
LOOPBACK = "127.0.0.1"
#: Where a bearer token may come from besides ``--token-file``.
TOKEN_ENV = "MDCHUNK_SERVE_TOKEN"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (``localhost``, 127.0.0.0/8, ::1).

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "10.0.0.5")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_token(token_file: str | os.PathLike[str] | None) -> str | None:
    """The bearer token: the first line of ``token_file``, else :data:`TOKEN_ENV`, else none.
    An empty token is refused rather than taken as "no token"."""
    if token_file is not None:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"{token_file}: cannot read the token file: "
                              f"{(exc.strerror or str(exc)).lower()}") from exc
        if not token:
            raise ConfigError(f"{token_file}: the token file is empty")
        return token
    return os.environ.get(TOKEN_ENV) or None


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """A server: the index it serves (``store``; its model from the collection, else ``embedder``),
    where it listens, and its bounds. A field is the ``mdchunk serve`` flag of its name (what each
    means: README.md, "Serve"; ``batch_wait`` in seconds, ``token`` never in a repr, ``rerank``
    none: a request asking for it gets 400); ``warm_query`` is embedded and searched at start."""

    store: StoreConfig = field(default_factory=StoreConfig)
    chunker: ChunkerConfig = field(default_factory=ChunkerConfig)
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    host: str = LOOPBACK
    port: int = 8765
    token: str | None = field(default=None, repr=False)
    max_concurrent: int = 16
    max_queue: int = 512
    queue_timeout: float = 30.0
    batch_texts: int = 64
    batch_wait: float = 0.002
    max_body_bytes: int = 8 * 1024 * 1024
    timeout: float = 30.0
    cors_origins: tuple[str, ...] = ()
    allow_index: bool = False
    index_roots: tuple[Path, ...] = ()
    warm_query: str = "warm-up"
    rerank: str | Reranker | None = None

    def __post_init__(self) -> None:
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(f"host={self.host} is beyond this machine: binding it needs a "
                              "bearer token: --token-file FILE or MDCHUNK_SERVE_TOKEN")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port={self.port} must be 0 (any free port) to 65535")
        for name in ("max_concurrent", "max_body_bytes", "batch_texts"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)} must be at least 1")
        if self.max_queue < 0:
            raise ConfigError(f"max_queue={self.max_queue} must be 0 (no queue) or more")
        for name in ("timeout", "queue_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name}={getattr(self, name)} must be a positive number of "
                                  "seconds")
        if not 0 <= self.batch_wait <= 1:
            raise ConfigError(f"batch_wait={self.batch_wait} must be 0 to 1 second")
        if self.allow_index and not self.index_roots:
            raise ConfigError("allow_index=True needs at least one root folder to index from "
                              "(--index-root)")
        object.__setattr__(self, "cors_origins", tuple(self.cors_origins))
        object.__setattr__(self, "index_roots",
                           tuple(Path(root).resolve() for root in self.index_roots))
