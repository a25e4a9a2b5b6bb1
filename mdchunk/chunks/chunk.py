"""What the chunker emits: :class:`Chunk`, a verbatim slice of a document with its provenance."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Chunk", "ChunkList", "chunk_id", "json_ready"]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A verbatim slice of a document plus what an embedder should see of it.

    ``text == source[start:end]`` always; ``embed_text`` adds the breadcrumb and any repeated
    table header or reopened code fence to the text after hygiene, and ``token_count`` counts
    ``embed_text``. ``headings`` may begin with the page title from front matter: then ``title``
    holds it; when ``title`` is ``None``, every heading in ``headings`` is a heading of the text."""

    id: str
    doc_id: str
    index: int
    level: int
    parent_id: str | None
    text: str
    start: int
    end: int
    line_start: int
    line_end: int
    headings: list[str]
    section_path: str
    embed_text: str
    token_count: int
    kinds: list[str]
    metadata: dict[str, Any] = field(default_factory=dict)
    oversized: bool = False
    #: The id of the deepest heading of ``headings`` on the rendered page: its explicit
    #: ``{#id}``, else the slug the ``site`` generator gives it; ``None`` without a heading.
    anchor: str | None = None
    #: The page's URL under the config's ``base_url``, plus ``#anchor`` when there is one.
    url: str | None = None
    #: The page title at the root of ``headings`` (front matter ``title``, ``sidebar_label``…,
    #: for a page without a ``#`` heading); ``None`` when ``headings`` holds none.
    title: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """All fields as JSON-ready values (lists and dicts are copies)."""
        return asdict(self)


class ChunkList(list[Chunk]):
    """The chunks of a call made with ``llm=``: a list, plus what happened to the proposals:
    ``llm_sections`` runs asked, ``llm_fallbacks`` replies not used (cut by the semantic scorer
    instead); ``events`` has every count, the fallbacks also by reason."""

    def __init__(self, chunks: Iterable[Chunk] = (), events: Mapping[str, int] | None = None
                 ) -> None:
        super().__init__(chunks)
        self.events: dict[str, int] = dict(events or {})

    @property
    def llm_sections(self) -> int:
        return self.events.get("llm_sections", 0)

    @property
    def llm_fallbacks(self) -> int:
        return self.events.get("llm_fallbacks", 0)


def chunk_id(doc_id: str, level: int, span: tuple[int, int], text: str, embed_text: str,
             fingerprint: str, parent_id: str | None = None, salt: str = "") -> str:
    """Stable id: same document, level, span, text and shaping config give the same id. In a
    hierarchy the parent counts too: overlap can give two parents a child of the same span.
    ``salt`` tells apart chunks of one span that differ elsewhere (the pieces of an included
    file, which all have its reference as their span); without one, ids are as they were."""
    h = hashlib.blake2b(digest_size=16)
    start, end = span
    parts: tuple[str, ...] = (doc_id, str(level), str(start), str(end), fingerprint, text,
                              embed_text)
    if parent_id is not None:
        parts = (*parts, parent_id)
    # each part followed by a NUL, encoded and hashed in one go (the same bytes as part by part)
    h.update(("\x00".join((*parts, salt) if salt else parts) + "\x00")
             .encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def json_ready(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata with values JSON can carry (dates from YAML front matter become ISO strings):
    a copy, through JSON only when it holds more than JSON's own types (most pages' front
    matter is strings and numbers, and a round trip through JSON cost a twentieth of chunking
    a short page)."""
    if not metadata:
        return {}
    plain = _json_copy(dict(metadata))
    if isinstance(plain, dict):
        return plain
    return json.loads(json.dumps(dict(metadata), default=str))  # type: ignore[no-any-return]


#: Values that come back from a JSON round trip as they went in.
_JSON_SCALARS = (str, int, float, bool, type(None))


def _json_copy(value: Any) -> Any:
    """A copy of ``value`` as a JSON round trip returns it (tuples become lists), or
    ``_NOT_JSON`` when it holds anything else (a date, a key that is not a string, a
    subclass of a JSON type), which the round trip turns into something else."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is list or kind is tuple:
        items = [_json_copy(item) for item in value]
        return _NOT_JSON if any(item is _NOT_JSON for item in items) else items
    if kind is dict:
        if any(type(key) is not str for key in value):
            return _NOT_JSON
        copy = {key: _json_copy(item) for key, item in value.items()}
        return _NOT_JSON if any(item is _NOT_JSON for item in copy.values()) else copy
    return _NOT_JSON


_NOT_JSON = object()
