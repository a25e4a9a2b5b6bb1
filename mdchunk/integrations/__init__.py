"""Adapters to the frameworks doc-site indexers are written on: LangChain and LlamaIndex.

Each adapter is its own module behind an optional extra (``mdchunk[langchain]``,
``mdchunk[llama-index]``) and is imported by name, never by ``import mdchunk``: a user of one
framework never loads the other, and a user of neither loads none. What both share, how a text
becomes chunks and what metadata a chunk carries into a framework, lives in
:mod:`mdchunk.integrations.common`.
"""

__all__: list[str] = []
