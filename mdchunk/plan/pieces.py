"""Pieces: the spans a packer fills chunks with (a block, or an item, row, line, sentence, word
or run of tokens of one), and how one that does not fit is cut one seam finer. A :class:`Group`
is the pieces of the chunk a packer is filling."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace

from ..formats.blocks import Block, kinds_of, line_start
from ..formats.kinds import SEAMS, SeamName, kind, merge_kinds
from ..text import SentenceIndex, line_spans, word_spans
from ..text.inline import destinations, merged_words
from ..tokens import SpanCounts

__all__ = ["Group", "Piece", "PieceCutter", "block_piece", "heading_piece"]

_WORD_CHARACTER = re.compile(r"\w")
_LIST_MARKER = re.compile(r"[-*+]|[0-9]{1,9}[.)]")
#: Quote markers and blanks (never a line break: the run stops at its line's end).
_MARKER_RUN = re.compile(r"[ \t>]*")
#: How far back a seam's run of markers and blanks is scanned before the line's own run is
#: looked up (:meth:`_LineMarkers.back_over`): far enough for the end of an HTML line or a
#: sentence's blanks, never a quote nested thousands deep.
_SHORT_RUN = 16


@dataclass(slots=True)
class Piece:
    """A span that is packed whole or cut further at ``seam``."""

    start: int
    end: int
    kinds: tuple[str, ...]
    #: How to cut it: between the children of ``block``, or by lines, sentences, words, tokens.
    seam: SeamName
    block: Block | None = None
    #: Repeated in ``embed_text`` when a chunk starts at a continuation of the cut block.
    prefix: str = ""
    continues: bool = False
    #: Must not end a chunk: headings, a table's header row.
    glue: bool = False
    #: Must not start a chunk: an empty section's heading folded onto the text before it.
    tail: bool = False
    #: An empty section's heading leading the next section: glue, but it may be shed into a
    #: chunk of its own when it and the next section's first content cannot fit together.
    spare: bool = False
    #: The top-level paragraph this piece is (part of): the only text overlap may repeat.
    paragraph: tuple[int, int] | None = None
    #: A whole atomic block: ``oversized="keep"`` keeps it whole when it does not fit.
    atomic: bool = False
    #: The span whose exact count is the piece's cost: the piece plus the blank that joins it
    #: to a neighbour, where that blank is a joint at which exact counts add up.
    cost: tuple[int, int] | None = None
    #: That count, once known (-1 before): a piece is weighed at every step that meets it.
    tokens: int = -1
    #: Cut from lines of code (or another block cut by lines): its brackets, stars and
    #: backticks are text, not inline constructs whose words stay together.
    verbatim: bool = False


@dataclass(slots=True)
class Group:
    """The pieces of the chunk being filled, with what they cost."""

    pieces: list[Piece] = field(default_factory=list)
    tokens: int = 0
    prefix: str = ""
    prefix_tokens: int = 0
    overlap_start: int | None = None
    overlap_tokens: int = 0
    #: The breadcrumb's cap when a block needs the rest of the chunk (guarantee 2 before the
    #: breadcrumb); ``None`` for the usual sixteenth of the budget.
    crumb_room: int | None = None

    @property
    def used(self) -> int:
        return self.tokens + self.prefix_tokens + self.overlap_tokens

    @property
    def has_content(self) -> bool:
        return any(not p.glue for p in self.pieces)


def _seam_of(block: Block) -> SeamName:
    return "children" if block.children else kind(block.kind).seam


def heading_piece(block: Block, spare: bool) -> Piece:
    """A heading leading its section's text: glue, cut (if ever) only between words."""
    return Piece(block.start, block.end, (block.kind,), "words", block, glue=True, spare=spare)


def block_piece(block: Block) -> Piece:
    """A block of a section's text (a heading among them is an empty section's, folded on); the
    rest of a block a coarser level cut (``continued``) repeats its header or fence."""
    row = kind(block.kind)
    return Piece(block.start, block.end, kinds_of(block), _seam_of(block), block,
                 prefix=block.prefix if block.continued else "", continues=block.continued,
                 tail=row.heads,
                 paragraph=(block.start, block.end) if block.kind == "paragraph" else None,
                 atomic=row.atomic)


class _LineMarkers:
    """The container markers each line of ``source`` opens with, found once per line: a quote
    nested 10,000 deep puts 20,000 marker characters before every seam of its lines, and
    scanning them again for each seam made such a page a hundred times slower."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._lead: dict[int, tuple[int, bool]] = {}  # line start -> (markers' end, any ``>``)

    def lead(self, line: int) -> tuple[int, bool]:
        """Where the run of quote markers and blanks ``line`` opens with ends, and whether it
        holds a ``>``."""
        if line not in self._lead:
            found = _MARKER_RUN.match(self.source, line)  # always (it may be empty)
            end = found.end() if found else line
            self._lead[line] = (end, self.source.find(">", line, end) != -1)
        return self._lead[line]

    def back_over(self, at: int) -> tuple[int, bool]:
        """Where the run of quote markers and blanks that ends at ``at`` starts (never before
        its line), and whether it holds a ``>``."""
        source = self.source
        if at > 0 and source[at - 1] not in " \t>\r\n":
            return at, False  # text right before it (most seams): no run of markers ends here
        start = at
        while start > 0 and at - start < _SHORT_RUN and source[start - 1] in " \t>":
            start -= 1
        if start > 0 and source[start - 1] not in " \t>\r\n":
            # a short run after text on its line (the ``>`` ending an HTML line, a sentence's
            # blank): the line's leading markers end before that text
            return start, ">" in source[start:at]
        line = line_start(source, at)
        lead, quoted = self.lead(line)
        if at <= lead:
            return line, quoted and self.source.find(">", line, at) != -1
        start = at
        while start > lead and self.source[start - 1] in " \t>":
            start -= 1
        return start, ">" in self.source[start:at]

    def markers_line(self, end: int, start: int) -> int | None:
        """The start of the line holding ``end`` when only container markers precede ``end``
        on it (a quote's ``>``, or the list marker a part of an item starts with, at
        ``start``)."""
        at, marker = self.back_over(end)
        if not marker and start < at <= start + 10 and _LIST_MARKER.fullmatch(
                self.source[start:at]):
            at, marker = self.back_over(start)[0], True
        return at if marker and (at == 0 or self.source[at - 1] in "\r\n") else None


def _markers_with_their_lines(source: str, spans: list[tuple[int, int]], start: int
                              ) -> list[tuple[int, int]]:
    """``spans`` with no end right after a line's container markers: those start the next span
    instead, so that a quote's ``>`` never ends one chunk while its line's text starts the next
    (a seam at the line's start, not after its marker)."""
    markers = _LineMarkers(source)
    out: list[tuple[int, int]] = []
    carried: int | None = None  # where markers carried over to the next span start
    for i, (first, b) in enumerate(spans):
        a = first if carried is None else carried
        carried = None
        line = markers.markers_line(b, start) if i + 1 < len(spans) else None
        text_end = a + len(source[a:line].rstrip()) if line is not None else b
        if line is None:
            out.append((a, b))
        elif text_end > a:  # text, then the next line's markers: end before them
            out.append((a, text_end))
            carried = line
        else:  # markers alone
            carried = a
    return out


def _before_construct(constructs: list[tuple[int, int]], start: int, cut: int) -> int:
    """The size of the part ``[start, cut)``, its end moved back to the start of the inline
    construct it falls inside (``0`` when that construct opens the part)."""
    k = bisect_right(constructs, (cut, cut)) - 1
    if k >= 0 and constructs[k][0] < cut < constructs[k][1] and constructs[k][0] >= start:
        return constructs[k][0] - start
    return cut - start


def _split_at(words: list[tuple[int, int]], cuts: list[int]) -> list[tuple[int, int]]:
    """``words`` with each one that ``cuts`` fall strictly inside cut there."""
    if not cuts:
        return words
    out: list[tuple[int, int]] = []
    for a, b in words:
        bounds = [a, *sorted(c for c in cuts if a < c < b), b]
        out += zip(bounds, bounds[1:])
    return out


def _with_words(groups: list[tuple[int, int]], words: list[tuple[int, int]]
                ) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Each of ``groups`` (words made one, in order) with the ``words`` it holds."""
    out = []
    k = 0
    for a, b in groups:
        inner = []
        while k < len(words) and words[k][0] < b:
            inner.append(words[k])
            k += 1
        out.append((a, b, inner))
    return out


def _prefix(piece: Piece) -> str:
    """What a chunk that starts inside ``piece`` repeats: its block's header or fence, else
    what it inherited; both when it inherited a tab's label (a code block in a tab)."""
    own = piece.block.prefix if piece.block is not None else ""
    if not own or own == piece.prefix:
        return piece.prefix
    if not piece.prefix:
        return own
    if piece.prefix.endswith("\n" + own):
        return piece.prefix
    return piece.prefix + "\n" + own


class PieceCutter:
    """Cuts a piece one seam finer; every cut keeps all non-blank text (guarantee 4)."""

    def __init__(self, counts: SpanCounts, sentences: SentenceIndex) -> None:
        self.counts = counts
        self.source = counts.source
        self.sentences = sentences

    def prefix_tokens(self, prefix: str) -> int:
        """What repeating ``prefix`` (a table header, a fence) at a chunk's start costs."""
        return self.counts.count_small(prefix + "\n") if prefix else 0

    def cut(self, piece: Piece, room: int, fresh_room: int, company: bool = False
            ) -> list[Piece]:
        """The parts of ``piece`` at the first seam on its ladder that cuts it; none if none
        does. ``room`` is what is left in the chunk being filled, ``fresh_room`` what a new chunk
        offers: a last-resort cut by tokens makes its first part ``room`` big (``company``: only
        headings are in the chunk, and it may cut inside an inline construct for them), the
        others ``fresh_room``."""
        head = piece.kinds[:1]
        # What a chunk starting inside this piece repeats: its own header or fence, else its
        # ancestors'; a tab's label, and then its block's own. A whole block never repeats its
        # own prefix: it starts with it.
        prefix = _prefix(piece)
        # the first part starts with the block's own header or fence: it repeats only what the
        # block inherited (a tab's label)
        first_prefix = piece.prefix if piece.prefix and prefix != piece.prefix and \
            piece.block is not None and not piece.block.continued else prefix
        if piece.seam == "children" and piece.block is not None:
            block = piece.block
            # a tab's first block starts with the tab's tag, which shows its label
            continues = block.continued if block.kind == "tab" else piece.continues
            # a tab repeats its own label, and only when a coarser level cut into it: a whole
            # one starts with its tag
            parts = [Piece(child.start, child.end, merge_kinds([head, kinds_of(child)]),
                           _seam_of(child), child,
                           prefix=(child.prefix if child.continued else "") if child.kind == "tab"
                           else first_prefix if i == 0 else prefix,
                           continues=child.continued if child.kind == "tab" else continues or i > 0,
                           # a table's header, and a heading nested in a tab, quote or item:
                           # never the last of a chunk while what it heads starts the next
                           glue=i + 1 < len(block.children) and (
                               (block.kind == "table" and i == 0) or kind(child.kind).heads),
                           atomic=kind(child.kind).atomic)  # a list nested in an item
                     for i, child in enumerate(block.children)]
            return self._tile(piece, parts)
        rung = SEAMS.get(piece.seam, SEAMS["tokens"])
        spans = self._spans(piece, room, fresh_room, company)
        # after headings alone (``company``), a first part of markers alone is all that fits:
        # the budget comes first, and a marker ends their chunk rather than a header being cut
        kept = spans[:1] if company else []
        joined = [*kept, *_markers_with_their_lines(self.source, spans[len(kept):], piece.start)]
        if len(joined) > 1 or rung.finer is not None:  # markers alone over the budget: the
            spans = joined  # last seam cuts between them (guarantee 1)
        if len(spans) <= 1:  # nothing to cut at this seam: try the next finer one
            if rung.finer is None:
                return []
            return self.cut(replace(piece, seam=rung.finer,
                                    verbatim=piece.verbatim or piece.seam == "lines"),
                            room, fresh_room, company)
        # Text-level parts keep the piece's kinds and paragraph; built directly, as a long
        # paragraph has thousands of sentences (dataclasses.replace is slow).
        kinds, paragraph = piece.kinds, piece.paragraph
        tail, continues = piece.tail, piece.continues
        verbatim = piece.verbatim or piece.seam == "lines"
        parts = [Piece(a, b, kinds, rung.parts, prefix=first_prefix if i == 0 else prefix,
                       continues=continues or i > 0,
                       tail=tail, spare=piece.spare, paragraph=paragraph, verbatim=verbatim)
                 for i, (a, b) in enumerate(spans)]
        return self._tile(piece, parts)

    def _spans(self, piece: Piece, room: int, fresh_room: int, company: bool
               ) -> list[tuple[int, int]]:
        source = self.source
        if piece.seam == "lines":
            lines = line_spans(source, piece.start, piece.end)
            block = piece.block
            if block is None or block.kind != "code" or not block.prefix:
                return lines
            # keep each fence on its neighbour line (a part a coarser level cut may lack one)
            fence = block.prefix.lstrip()[:3]
            if len(lines) >= 2 and not block.continued:
                lines = [(lines[0][0], lines[1][1]), *lines[2:]]
            if len(lines) >= 3 and source[lines[-1][0]:lines[-1][1]].lstrip().startswith(fence):
                lines[-2:] = [(lines[-2][0], lines[-1][1])]
            return lines
        if piece.seam == "sentences":
            return self.sentences.spans(piece.start, piece.end)
        if piece.seam == "words":
            words = word_spans(source, piece.start, piece.end)
            if piece.verbatim:
                return words  # a line of code: its brackets and stars are code
            return self._whole_constructs(piece, words, fresh_room)
        return self._token_spans(piece, room, fresh_room, company)

    def _whole_constructs(self, piece: Piece, words: list[tuple[int, int]], fresh_room: int
                          ) -> list[tuple[int, int]]:
        """``words`` of prose with the words of each inline construct (a link, an image, a code
        span, emphasis, an HTML element) made one, but for a construct that alone exceeds what
        a fresh chunk holds: its words stay apart, its link destinations whole."""
        source = self.source
        spans = self.sentences.inline(piece.start, piece.end)
        merged = merged_words(source, words, spans)
        if len(merged) == len(words):
            return words
        prefix = self.prefix_tokens(_prefix(piece))  # repeated unless it eats half the room
        budget = fresh_room - (prefix if 2 * prefix <= fresh_room else 0)
        out: list[tuple[int, int]] = []
        for a, b, inner in _with_words(merged, words):
            if len(inner) == 1 or self.counts.count_span(a, b) <= budget:
                out.append((a, b))
                continue
            # too long as one: only the constructs inside that fit stay whole
            fitting = [(x, y) for x, y in spans if a <= x and y <= b
                       and self.counts.count_span(x, y) <= budget]
            kept = sorted([*fitting, *destinations(source, a, b)])
            pieces = _split_at(inner, [x for span in fitting for x in span])  # `a`|`b`: two
            for c, d, words_in in _with_words(merged_words(source, pieces, kept), pieces):
                if len(words_in) > 1 and self.counts.count_span(c, d) > budget:
                    out += merged_words(source, words_in, destinations(source, c, d))
                else:
                    out.append((c, d))
        return out

    def _token_spans(self, piece: Piece, room: int, fresh_room: int, company: bool
                     ) -> list[tuple[int, int]]:
        """The last resort: spans of a token count; the first fills ``room``, the rest fill
        fresh chunks."""
        prefix = self.prefix_tokens(piece.prefix)  # repeated unless it eats half the room
        limit = max(1, fresh_room - (prefix if 2 * prefix <= fresh_room else 0) - 2)
        spans, pos = [], piece.start
        text = self.source
        prefix_within = self.counts.counter.prefix_within
        size_limit = max(1, min(room - 2, limit))
        constructs = [] if piece.verbatim else self.sentences.inline(piece.start, piece.end)
        while pos < piece.end:
            size = prefix_within(text, size_limit, pos, piece.end)
            if size == 0 and size_limit < limit:  # not even one token fits here: start afresh
                size_limit = limit
                continue
            size = max(1, size)
            if constructs:  # no cut inside an inline construct
                before = _before_construct(constructs, pos, pos + size)
                if before == 0 and size_limit < limit and not company:  # it opens the part:
                    size_limit = limit  # start afresh
                    continue
                size = before or size  # a construct alone too long for a chunk: cut inside
            spans.append((pos, pos + size))
            pos += size
            size_limit = limit
        return spans

    def _tile(self, piece: Piece, parts: list[Piece]) -> list[Piece]:
        """Stretch the parts so that, blanks aside, they cover their piece: no cut between them
        drops text (guarantee 4)."""
        if parts:
            source = self.source
            # the first part takes a list marker or a quote's ">" before it, but not mere
            # indentation: that is no text to keep, and a part that fits without it must not
            # be cut for it (guarantee 2)
            if source[piece.start:parts[0].start].strip():
                parts[0].start = piece.start
            last = parts[-1]
            if piece.end > last.end and (
                    _WORD_CHARACTER.search(source, last.end, piece.end)
                    or (last.atomic and source[last.end:piece.end].strip())):
                # text after the last part (link definitions tile() gave the block, a
                # container's closing ``:::``) is a part of its own: a nested block before it
                # must not grow past what fits (guarantee 2)
                start = last.end + len(source[last.end:piece.end]) - len(
                    source[last.end:piece.end].lstrip())
                parts.append(Piece(start, piece.end, piece.kinds[:1], "lines", prefix=last.prefix,
                                   continues=True))
            parts[-1].end = max(parts[-1].end, piece.end)
            for prev, part in zip(parts, parts[1:]):
                gap = source[prev.end:part.start]
                if gap.strip():
                    part.start = prev.end + len(gap) - len(gap.lstrip())
            self._join_costs(parts)
        return parts

    def _join_costs(self, parts: list[Piece]) -> None:
        """Where the blank between two parts is a joint at which exact counts add up, register
        it and let each part's cost include the blank; chunks then sum parts, not re-encode."""
        counts = self.counts
        if not counts.counter.line_additive:
            return
        found = counts.joints_before([(prev.end, part.start)
                                      for prev, part in zip(parts, parts[1:])])
        for prev, part, joint in zip(parts, parts[1:], found):
            if joint is None:
                continue
            prev.cost = ((prev.cost or (prev.start, prev.end))[0], joint)
            part.cost = (joint, part.end)
        for part in parts:  # a part with a blank on neither side keeps the "+1" estimate
            if part.cost == (part.start, part.end):
                part.cost = None
