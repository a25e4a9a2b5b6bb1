"""Plan: a document's blocks → drafts of chunks under the token budget.

``sections`` nests blocks under their headings; ``section_packer`` walks that tree and hands
each run of pieces to a boundary strategy (``strategies``: greedy by default), which packs it
with ``piece_packer`` under the named ``rules``; ``pieces`` cuts what does not fit one seam
finer, ``overlap`` repeats whole sentences, ``drafts`` and ``breadcrumbs`` build and count what
the model sees. ``kit`` bundles one document's counts and caches for all of them.
``hierarchy`` packs coarser levels first and each finer one inside its parents.
"""

from .drafts import Draft, Tiling
from .hierarchy import Node, plan_hierarchy
from .kit import PackingKit
from .section_packer import SectionPacker
from .sections import Section, build_sections
from .strategies import BoundaryStrategy, Run
from .strategies.greedy import GreedyStrategy

__all__ = ["BoundaryStrategy", "Draft", "GreedyStrategy", "Node", "PackingKit", "Run", "Section",
           "SectionPacker", "Tiling", "build_sections", "plan_hierarchy"]
