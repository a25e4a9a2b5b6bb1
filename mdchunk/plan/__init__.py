"""Plan: a document's blocks → drafts of chunks under the token budget. ``sections`` nests blocks
under headings, ``section_packer`` walks the tree and hands each run of pieces to a boundary
strategy, which packs it with ``piece_packer`` under ``rules``; ``hierarchy`` packs coarser
levels first and each finer one inside its parents."""

from .drafts import Draft, Tiling
from .hierarchy import Node, plan_hierarchy
from .kit import PackingKit
from .section_packer import SectionPacker
from .sections import Section, build_sections
from .strategies import BoundaryStrategy, GreedyStrategy, Run

__all__ = ["BoundaryStrategy", "Draft", "GreedyStrategy", "Node", "PackingKit", "Run", "Section",
           "SectionPacker", "Tiling", "build_sections", "plan_hierarchy"]
