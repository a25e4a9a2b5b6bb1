"""``mdchunk serve``: the retrieval path as a service, for backends in other languages, agents
and a browser (``pip install 'mdchunk[serve]'``). Importing this package loads neither
FastAPI nor a model."""

from .config import LOOPBACK, TOKEN_ENV, ServeConfig, is_loopback, read_token

__all__ = ["LOOPBACK", "TOKEN_ENV", "ServeConfig", "is_loopback", "read_token"]
