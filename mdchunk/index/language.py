"""What a corpus is written in, and what that chooses: the BM25 analyzer and, for
``model="auto"``, the embedding model. Both are chosen once, when a collection is created,
from a sample of every document, and recorded: a collection never changes model or analyzer
because its documents changed.

From :data:`CJK_SHARE` of CJK characters on, the corpus "has Chinese in it": BM25 uses
``jieba`` (the standard analyzer makes a CJK run one token) and ``auto`` embeds with USE
multilingual (all-MiniLM-L6-v2 reads no Chinese). The threshold is low on purpose: a CJK
character carries about a word, so 2% of the characters is about a tenth of the words."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..embedding import DEFAULT_MODEL, USE_MODEL
from ..sources import Source
from ..text.scripts import CJK

__all__ = ["AUTO", "CJK_SHARE", "SAMPLE_BYTES", "Language", "cjk_share", "document_language",
           "survey"]

log = logging.getLogger(__name__)

#: The model spec that asks for the choice below.
AUTO = "auto"
#: From this share of CJK characters (among non-blank ones) a corpus counts as Chinese.
CJK_SHARE = 0.02
#: Bytes read from the start of each document for the share.
SAMPLE_BYTES = 64 * 1024
_CJK = re.compile(f"[{CJK}]")
_BLANK = re.compile(r"\s+")


def cjk_share(sources: Sequence[Source]) -> float:
    """CJK characters over non-blank characters in the sample of every document."""
    cjk = total = 0
    for source in sources:
        try:
            with source.file.open("rb") as fh:
                sample = fh.read(SAMPLE_BYTES).decode("utf-8", "ignore")
        except OSError:
            continue  # reported by name when the run reads it
        cjk += len(_CJK.findall(sample))
        total += len(_BLANK.sub("", sample))
    return cjk / total if total else 0.0


@dataclass(frozen=True, slots=True)
class Language:
    """A corpus's CJK share and what it chooses."""

    share: float

    @property
    def chinese(self) -> bool:
        return self.share >= CJK_SHARE

    @property
    def analyzer(self) -> str:
        return "jieba" if self.chinese else "standard"

    @property
    def model(self) -> str:
        """The model ``auto`` stands for."""
        return USE_MODEL if self.chinese else DEFAULT_MODEL


def survey(sources: Sequence[Source]) -> Language:
    """The :class:`Language` of ``sources``, logged once."""
    language = Language(cjk_share(sources))
    log.info("CJK share of the corpus %.1f%%: BM25 analyzer %s, auto model %s",
             100 * language.share, language.analyzer, language.model)
    return language


def document_language(source: Source) -> str:
    """The language a document is stored with, for a search to filter by (``lang``): ``zh``
    when its sample has Chinese in it by the corpus's rule (:data:`CJK_SHARE` of CJK
    characters, kana and hangul counting too), ``en`` otherwise: the survey tells Chinese
    from the rest, not one Latin-script language from another."""
    return "zh" if Language(cjk_share([source])).chinese else "en"
