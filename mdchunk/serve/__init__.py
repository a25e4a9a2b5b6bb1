"""``mdchunk serve``: the retrieval path as a service, for backends in other languages, agents
and a browser (``pip install 'mdchunk[serve]'``).

``config`` (:class:`ServeConfig`, what a server is started with), ``service`` (the warm
embedder and open store, one per server, doing each endpoint's work through the library),
``api`` and ``models`` (the ``/v1`` endpoints and their JSON), ``guard`` (token, body size,
admission and the request's deadline), ``admission`` (the bounded wait queue), ``deadline``
(when a request's work stops), ``batching`` (concurrent requests' texts in one model call),
``metrics``, ``jobs`` (indexing as a job), ``page`` (the search
page), ``mcp_tools`` (the Model Context Protocol server), ``app`` (:func:`create_app`), and
``runner`` (a process that serves: its address on stdout, its parent watched, SIGTERM
drained). Importing this package loads neither FastAPI nor a model.
"""

from .config import LOOPBACK, TOKEN_ENV, ServeConfig, is_loopback, read_token

__all__ = ["LOOPBACK", "TOKEN_ENV", "ServeConfig", "is_loopback", "read_token"]
