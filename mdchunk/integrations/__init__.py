"""Adapters to LangChain and LlamaIndex, each behind its own extra and imported by name, never by
``import mdchunk``; what they share is :mod:`mdchunk.integrations.common`."""

__all__: list[str] = []
