"""Decoding files (issue 15): BOMs, UTF-8, GB18030 by detection, and one-line refusals.

The encoding a file was read in is in every chunk's ``metadata["source_encoding"]``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mdchunk
from mdchunk.text import decode_document, document_text
from mdchunk.text.decode import decode_bytes

from .conftest import FIXTURES

MANUAL = ("第一章 概述\n\n本手册说明对象存储集群的日常运维方法，包括巡检、扩容、故障处理和数据修复。\n\n"
          "一、集群组成\n\n集群由元数据节点、数据节点和网关节点组成。\n")


@pytest.mark.parametrize("encoding,bom,codec", [
    ("utf-8", b"", "utf-8"),
    ("utf-8", b"\xef\xbb\xbf", "utf-8-sig"),
    ("utf-16-le", b"\xff\xfe", "utf-16-le"),
    ("utf-16-be", b"\xfe\xff", "utf-16-be"),
    ("utf-32-le", b"\xff\xfe\x00\x00", "utf-32-le"),
    ("utf-32-be", b"\x00\x00\xfe\xff", "utf-32-be"),
    ("gb18030", b"", "gb18030"),
])
def test_each_encoding_is_read_and_named_in_the_metadata(tmp_path: Path, encoding: str,
                                                         bom: bytes, codec: str) -> None:
    path = tmp_path / "manual.txt"
    path.write_bytes(bom + MANUAL.encode(encoding))
    decoded = decode_document(path)
    assert (decoded.text, decoded.encoding) == (MANUAL, codec)
    chunks = mdchunk.chunk_file(path, max_tokens=64, overlap_tokens=0)
    assert [c.metadata["source_encoding"] for c in chunks] == [codec] * len(chunks)
    assert chunks[0].headings == ["第一章 概述"]
    assert all(c.text == MANUAL[c.start:c.end] for c in chunks)


def test_the_callers_metadata_wins_over_the_encoding(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("Text.\n", encoding="utf-8")
    [chunk] = mdchunk.chunk_file(path, metadata={"source_encoding": "mine", "repo": "kb"})
    assert chunk.metadata == {"source_encoding": "mine", "repo": "kb"}


def test_gb18030_is_accepted_with_the_detectors_confidence() -> None:
    decoded = decode_bytes(MANUAL.encode("gb18030"), "m.txt")
    assert decoded.encoding == "gb18030" and decoded.confidence >= 0.8


@pytest.mark.parametrize("text,encoding", [
    ("第一章 概述\n本章介紹系統的安裝與設定。\n", "big5"),       # decodes as GB18030, as nonsense
    ("第一章 概要\nこの章ではシステムを紹介します。\n", "shift_jis"),
    ("Résumé: été à côté de la forêt. Problème réglé.\n", "latin-1"),
    ("caf\xe9t\xe9 na\xefve", "latin-1"),                      # decodes as GB18030: 'caf' + CJK
    # English with one accent before a letter: decodes as GB18030, one Han character in English
    ("# Redis mémoire\n\n" + "When Redis runs out of memory it evicts keys by policy. " * 20,
     "latin-1"),
])
def test_other_legacy_encodings_are_refused_in_one_line(text: str, encoding: str) -> None:
    with pytest.raises(mdchunk.InputError) as info:
        decode_bytes(text.encode(encoding), "docs/x.txt")
    message = str(info.value)
    assert message.startswith("docs/x.txt: not valid UTF-8 (line 1, column ")
    assert message.endswith("nor GB18030 Chinese; convert it, e.g. iconv -f <its encoding> "
                            "-t UTF-8") and "\n" not in message


def test_a_bad_byte_is_named_by_line_and_column_and_its_offset_in_the_file() -> None:
    """The column counts the characters before the bad byte on its own line (two bytes of
    ``é`` are one), the byte offset counts from the file's start (issue 43: it was given as if
    it were the line's)."""
    raw = "# Titre\n\nDéjà vu\n".encode() + b"Cr\xe8me\n"
    with pytest.raises(mdchunk.InputError) as info:
        decode_bytes(raw, "kb/notes.md")
    assert str(info.value).startswith(
        "kb/notes.md: not valid UTF-8 (line 4, column 3, byte offset 21: b'\\xe8') nor")
    assert raw[21:22] == b"\xe8" and raw.split(b"\n")[3][2:3] == b"\xe8"


def test_a_broken_utf16_file_is_named_with_the_byte() -> None:
    with pytest.raises(mdchunk.InputError, match=r"^u\.txt: not valid UTF-16LE after its byte "
                                                 r"order mark \(byte 4: truncated data\)"):
        decode_bytes(b"\xff\xfeh\x00i", "u.txt")


def test_binary_files_are_still_refused() -> None:
    with pytest.raises(mdchunk.InputError, match="p.png: looks binary"):
        decode_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "p.png")
    with pytest.raises(mdchunk.InputError, match="z.txt: looks binary"):  # UTF-16 of NULs
        decode_bytes(b"\xff\xfe" + b"\x00\x00" * 8, "z.txt")


def test_utf16_without_a_bom_looks_binary() -> None:
    with pytest.raises(mdchunk.InputError, match="looks binary"):
        decode_bytes("# Hi\n".encode("utf-16-le"), "h.md")


def test_the_encoding_fixtures_are_in_the_encodings_their_names_say() -> None:
    expected = {"gb18030-storage-manual.zh.txt": "gb18030",
                "gb18030-faq-export.zh.qa.txt": "gb18030",
                "utf16le-bom-upgrade-guide.txt": "utf-16-le",
                "utf16be-bom-helpdesk-export.qa.txt": "utf-16-be",
                "utf32le-bom-glossary.txt": "utf-32-le",
                "utf8-bom-zero-width-runbook.md": "utf-8-sig"}
    for name, codec in expected.items():
        assert decode_document(FIXTURES / name).encoding == codec, name
        assert document_text(FIXTURES / name) == decode_document(FIXTURES / name).text


def test_read_document_is_document_texts_old_name(tmp_path: Path) -> None:
    import mdchunk.text

    page = tmp_path / "a.md"
    page.write_text("# A\n\nBody.\n", encoding="utf-8")
    with pytest.warns(DeprecationWarning, match="document_text"):
        old = mdchunk.text.read_document
    assert old is mdchunk.text.document_text and old(page) == "# A\n\nBody.\n"
