# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
# Every package they install is pinned by requirements/lock.txt (a pip constraints file), so that
# a fresh clone installs what CI tested; `make lock` refreshes it after the tests pass on the
# newest releases (`make test-latest`). The library's own ranges in pyproject.toml stay ranges.
# torch is pinned to the CPU build that this machine keeps on disk; an unpinned torch pulls CUDA.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.mdchunk-installed
TORCH  := torch==2.13.0
LOCK   := requirements/lock.txt
# What the lock covers: the project with every extra the Makefile installs, and the bench peers.
LOCKED := -e ".[all,dev,ray]" -r bench/requirements.txt atheris
PIP    := $(PY) -m pip install --quiet -c $(LOCK)

FUZZ_TIME ?= 600

.PHONY: demo test test-fast test-long test-latest lock test-ray fuzz lint bench bench-end-to-end bench-throughput bench-cache bench-ray bench-instructions bench-readers bench-hierarchy bench-pathological bench-tiny-sections bench-retrieval bench-styles bench-chroma bench-serve clean

$(STAMP): pyproject.toml $(LOCK)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) "$(TORCH)"
	$(PIP) -e ".[all,dev]" "$(TORCH)"
	touch $(STAMP)

demo: $(STAMP)
	rm -rf demo.db
	# issue 26: code samples are read from the include root; the run names each one it cannot find
	HF_HUB_OFFLINE=1 $(VENV)/bin/mdchunk index fixtures --db ./demo.db --includes fixtures/includes/examples
	HF_HUB_OFFLINE=1 $(VENV)/bin/mdchunk search "CPU 使用率持续偏高怎么排查" --db ./demo.db -k 3
	# the fixtures have Chinese in them, so --model auto chose use-multilingual: dense alone answers
	HF_HUB_OFFLINE=1 $(VENV)/bin/mdchunk search "数据库主库故障时怎么切换" --db ./demo.db -k 2 --mode dense
	HF_HUB_OFFLINE=1 $(VENV)/bin/mdchunk search "why do I get 429 rate limit errors" --db ./demo.db -k 3
	HF_HUB_OFFLINE=1 $(VENV)/bin/mdchunk search "how do I roll back the queue worker config" --db ./demo.db -k 2 --expand parent

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

# issue 30: everything but the tests marked slow (model, Milvus) or corpus (the real corpora), on
# every core; a test that loads a model or opens Milvus fails here (MDCHUNK_REFUSE_HEAVY:
# tests/refuse_heavy/sitecustomize.py)
test-fast: $(STAMP)
	HF_HUB_OFFLINE=1 MDCHUNK_REFUSE_HEAVY=1 MDCHUNK_HYPOTHESIS=quick $(PY) -m pytest -q -m "not slow and not corpus and not process" -n auto --dist worksteal

# The newest releases of everything, in a venv of their own (.venv-latest), and the tests on them:
# run before refreshing the lock, and now and then to learn early what a release breaks.
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install --quiet --upgrade pip
	.venv-latest/bin/python -m pip install --quiet "$(TORCH)"
	.venv-latest/bin/python -m pip install --quiet $(LOCKED) "$(TORCH)"
	HF_HUB_OFFLINE=1 .venv-latest/bin/python -m pytest -q -p no:cacheprovider

# Refresh the lock from .venv-latest once its tests pass (torch without its local "+cpu" label,
# which PyPI does not serve); review the diff and commit it with the test run's summary.
lock: test-latest
	requirements/freeze.sh .venv-latest > $(LOCK)

test-ray: $(STAMP)  # issue #17: Ray is large and kept out of `all`; this installs it and runs its tests
	$(PIP) -e ".[ray]" "$(TORCH)"
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q tests/test_ray.py

test-long: $(STAMP)  # issue #13: the grammar property tests at >= 20,000 examples each
	HF_HUB_OFFLINE=1 MDCHUNK_HYPOTHESIS=long $(PY) -m pytest -q -p no:cacheprovider \
		tests/test_grammar.py --hypothesis-show-statistics

fuzz: $(STAMP)  # issue #13: coverage-guided fuzzing for FUZZ_TIME seconds (failures: .fuzz/failures)
	$(PIP) atheris
	mkdir -p .fuzz/corpus
	FUZZ_KEEP_GOING=1 PYTHONPATH=$(CURDIR) $(PY) bench/fuzz_chunk.py .fuzz/corpus fixtures \
		tests/data/fuzz -max_total_time=$(FUZZ_TIME) -max_len=4096 -artifact_prefix=.fuzz/

lint: $(STAMP)  # ruff (style, imports, bugs) and mypy --strict on the package
	$(VENV)/bin/ruff check mdchunk tests bench
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PIP) -r bench/requirements.txt "$(TORCH)"
	$(PY) bench/bench_speed.py
	HF_HUB_OFFLINE=1 $(PY) bench/bench_index.py

bench-serve: $(STAMP)  # issue 33: mdchunk serve against the library in process and a plain encode endpoint
	HF_HUB_OFFLINE=1 PYTHONPATH=$(CURDIR) $(PY) bench/bench_serve.py --out bench/results/serve.md

bench-end-to-end: $(STAMP)  # issue 25: mdchunk index of each runbook corpus, before and after
	$(PY) bench/bench_end_to_end.py --cold

bench-throughput: $(STAMP)  # issues #17, 32: plain encode vs length-sorted torch, ONNX fp32 and int8 (CPU and wall, load)
	HF_HUB_OFFLINE=1 $(PY) bench/bench_throughput.py --corpus ../shared/corpora/openshift-runbooks --rounds 2

bench-cache: $(STAMP)  # issue #17: embeddings the collection-wide cache saves on each corpus
	HF_HUB_OFFLINE=1 $(PY) bench/bench_cache.py

bench-ray: $(STAMP)  # issue #17: the Ray engine with 1 and 2 embedding workers, and the local run
	$(PIP) -e ".[ray]" "$(TORCH)"
	HF_HUB_OFFLINE=1 $(PY) bench/bench_ray.py

bench-retrieval: $(STAMP)  # hit@5 of hand-written questions: mdchunk and its peers, dense and BM25
	$(PIP) -r bench/requirements.txt "$(TORCH)"
	HF_HUB_OFFLINE=1 $(PY) bench/bench_retrieval.py --out bench/results/retrieval.md \
		--json bench/results/retrieval.json
	# issue 24: the same questions through mdchunk index/search, per language, model and fusion
	HF_HUB_OFFLINE=1 $(PY) bench/bench_search.py --out bench/results/search.md

bench-styles: $(STAMP)  # issue 31: complete@5 by question style and language, through index/search
	HF_HUB_OFFLINE=1 $(PY) bench/bench_search.py --studies styles --out bench/results/styles.md

bench-instructions: $(STAMP)  # needs valgrind: mdchunk ÷ floor in CPU instructions
	$(PY) bench/bench_instructions.py

bench-readers: $(STAMP)  # issue 25: the share of corpus documents each Markdown reader takes
	$(PY) bench/bench_readers.py

bench-hierarchy: $(STAMP)  # issue #11: is the evidence in the leaf, its parent or the auto-merge?
	HF_HUB_OFFLINE=1 $(PY) bench/bench_hierarchy.py --out bench/results/hierarchy.md

bench-chroma: $(STAMP)  # issue #14: Chroma's chunking benchmark, greedy vs semantic vs LangChain
	$(PIP) -r bench/requirements.txt "$(TORCH)"
	HF_HUB_OFFLINE=1 $(PY) bench/bench_chroma.py --out bench/results/chroma.md \
		--json bench/results/chroma.json

bench-pathological: $(STAMP)  # issue #13: does time stay linear when each odd input doubles?
	$(PY) bench/bench_pathological.py

bench-tiny-sections: $(STAMP)  # issue #13: many tiny sections vs the runbooks, MB/s, same size
	$(PIP) -r bench/requirements.txt "$(TORCH)"
	$(PY) bench/bench_tiny_sections.py --peers

clean:
	rm -rf $(VENV) .venv-latest demo.db *.egg-info .pytest_cache
