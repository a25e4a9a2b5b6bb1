"""Where a Milvus server keeps its indexes' write locks: the ``mdchunk_locks`` collection, one row
per locked collection (holder and heartbeat). How a lock is taken, kept and given back is
:class:`mdchunk.index.lock.ServerLock`'s; this is only its storage.
"""

from __future__ import annotations

from typing import Any

from .client import errors, race_expected
from .filters import equals

__all__ = ["LOCKS_COLLECTION", "MilvusLocks"]

#: The collection that holds the write locks of a server's indexes, one row per collection.
LOCKS_COLLECTION = "mdchunk_locks"


class MilvusLocks:
    """The lock rows of one server (a :class:`~mdchunk.index.lock.LockTable`)."""

    def __init__(self, client: Any, uri: str) -> None:
        self.client, self.uri = client, uri
        self.where = f"Milvus at {uri}"

    def prepare(self) -> None:
        """Create the collection and its index unless another run did (maybe just now)."""
        from pymilvus import DataType

        with errors(self.uri, f"create collection {LOCKS_COLLECTION!r}"):
            if not self.client.has_collection(LOCKS_COLLECTION):
                schema = self.client.create_schema(auto_id=False, enable_dynamic_field=False)
                schema.add_field("name", DataType.VARCHAR, is_primary=True, max_length=255)
                schema.add_field("owner", DataType.VARCHAR, max_length=512)
                schema.add_field("heartbeat", DataType.INT64)
                schema.add_field("dummy", DataType.FLOAT_VECTOR, dim=2)
                try:
                    with race_expected():
                        self.client.create_collection(LOCKS_COLLECTION, schema=schema)
                except Exception:  # another run created it first
                    if not self.client.has_collection(LOCKS_COLLECTION):
                        raise
            if "dummy" not in set(self.client.list_indexes(LOCKS_COLLECTION)):
                index = self.client.prepare_index_params()
                index.add_index("dummy", index_name="dummy", index_type="AUTOINDEX",
                                metric_type="L2")
                try:
                    with race_expected():
                        self.client.create_index(LOCKS_COLLECTION, index, sync=False)
                except Exception:  # another run created it first
                    if "dummy" not in set(self.client.list_indexes(LOCKS_COLLECTION)):
                        raise
            self.client.load_collection(LOCKS_COLLECTION)

    def read(self, name: str) -> dict[str, Any] | None:
        """The lock row of collection ``name`` (``owner``, ``heartbeat``), read strongly."""
        with errors(self.uri, "read the index's lock"):
            rows = self.client.query(LOCKS_COLLECTION, filter=equals("name", name),
                                     output_fields=["owner", "heartbeat"],
                                     consistency_level="Strong")
        return dict(rows[0]) if rows else None

    def write(self, name: str, owner: str, heartbeat: int) -> None:
        with errors(self.uri, "write the index's lock"):
            self.client.upsert(LOCKS_COLLECTION, [{"name": name, "owner": owner,
                                                   "heartbeat": heartbeat, "dummy": [0.0, 0.0]}])

    def delete(self, name: str) -> None:
        with errors(self.uri, "release the index's lock"):
            self.client.delete(LOCKS_COLLECTION, ids=[name])
