"""The config file's keys come from the dataclasses: a field added to ChunkerConfig is a key,
checked against its annotation, with no edit to the loader."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

import pytest

from mdchunk import ChunkerConfig
from mdchunk.cli.settings import KEYS, RunOptions, _describe, _fields, _fits, load_settings
from mdchunk.errors import ConfigError


def test_every_chunker_and_run_field_is_a_key() -> None:
    names = {f.name for cls in (ChunkerConfig, RunOptions) for f in dataclasses.fields(cls)}
    assert set(KEYS) == names


def test_a_new_field_is_typed_from_its_annotation() -> None:
    @dataclasses.dataclass(frozen=True)
    class Later:
        semantic: Literal["embedding", "lexical"] | None = None
        threshold: float = 0.5
        names: tuple[str, ...] = dataclasses.field(default_factory=tuple)

    keys = _fields(Later)
    assert keys["names"][1] == () and keys["threshold"][1] == 0.5
    assert _fits("lexical", keys["semantic"][0]) == (True, "lexical")
    assert _fits("fuzzy", keys["semantic"][0])[0] is False
    assert _describe(keys["semantic"][0]) == "one of 'embedding', 'lexical'"
    assert _fits(1, keys["threshold"][0]) == (True, 1) and _fits(True, keys["threshold"][0])[0] is False
    assert _fits(["a", "b"], keys["names"][0]) == (True, ("a", "b"))
    assert _describe(keys["names"][0]) == "a list of strings"


def test_dashes_and_underscores_are_one_key(tmp_path: Path) -> None:
    (tmp_path / "mdchunk.toml").write_text("max-tokens = 300\ntitle_keys = ['name']\n")
    settings = load_settings(tmp_path)
    assert settings.value("max_tokens") == 300 and settings.value("title_keys") == ("name",)
    assert settings.chunker().max_tokens == 300 and settings.chunker().min_tokens == 75


def test_a_bad_combination_names_the_file_only_when_it_set_the_value(tmp_path: Path) -> None:
    (tmp_path / "mdchunk.toml").write_text("overlap_tokens = 100\n")
    settings = load_settings(tmp_path)
    with pytest.raises(ConfigError, match=rf"^{tmp_path / 'mdchunk.toml'}: overlap_tokens=100 must be smaller"):
        settings.with_flags({"max_tokens": 64}).chunker()
    with pytest.raises(ConfigError, match=r"^max_tokens=8 is too small"):
        settings.with_flags({"max_tokens": 8}).chunker()  # the flag's value: no file to name
