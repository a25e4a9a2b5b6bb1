"""``python -m mdchunk.cli``: the same as the ``mdchunk`` command."""

from .app import main

main()
