"""``GET /metrics``: requests, latency, errors and requests in flight; the admission queue
(requests answered and waiting now, seconds waited for a slot), work abandoned (past its time,
or its client gone) and the model calls that batched requests' texts; in Prometheus text
format, each server with a registry of its own (two apps in one process count apart)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["CONTENT_TYPE", "Metrics", "route_of"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Paths with an id in them, counted under their template (a label per id would grow forever).
_TEMPLATES = (("/v1/chunks/", "/v1/chunks/{id}"), ("/v1/jobs/", "/v1/jobs/{id}"),
              ("/mcp", "/mcp"))
_KNOWN = frozenset({"/", "/healthz", "/readyz", "/metrics", "/v1/chunk", "/v1/embed",
                    "/v1/search", "/v1/collections", "/v1/index", "/openapi.json", "/docs"})


def route_of(path: str) -> str:
    """The label a request's path is counted under.

    >>> route_of("/v1/chunks/abc"), route_of("/v1/search"), route_of("/wp-admin")
    ('/v1/chunks/{id}', '/v1/search', 'other')
    """
    if path in _KNOWN:
        return path
    for prefix, template in _TEMPLATES:
        if path.startswith(prefix):
            return template
    return "other"


class Metrics:
    """The server's counters, histogram and gauge."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("mdchunk_requests", "Requests answered.",
                                ["method", "route", "status"], registry=self.registry)
        self.latency = Histogram("mdchunk_request_seconds", "Seconds to answer a request.",
                                 ["route"], registry=self.registry,
                                 buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30))
        self.errors = Counter("mdchunk_errors", "Requests answered with an error, by code.",
                              ["code"], registry=self.registry)
        self.in_flight = Gauge("mdchunk_in_flight", "Requests being answered now.",
                               registry=self.registry)
        self.running = Gauge("mdchunk_running", "Requests holding a slot now.",
                             registry=self.registry)
        self.queue_depth = Gauge("mdchunk_queue_depth", "Requests waiting for a slot now.",
                                 registry=self.registry)
        self.queue_wait = Histogram("mdchunk_queue_wait_seconds",
                                    "Seconds a request waited for a slot (0: none).",
                                    registry=self.registry,
                                    buckets=(0, .001, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30))
        self.abandoned = Counter("mdchunk_abandoned", "Requests whose work was told to stop.",
                                 ["reason"], registry=self.registry)
        self.batch_texts = Histogram("mdchunk_embed_batch_texts",
                                     "Texts of concurrent requests embedded by one model call.",
                                     registry=self.registry,
                                     buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512))

    def observe(self, method: str, path: str, status: int, seconds: float) -> None:
        route = route_of(path)
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(route).observe(seconds)

    def text(self) -> bytes:
        return generate_latest(self.registry)
