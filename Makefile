# Every target works on a fresh machine that has only Python 3.11+ and make.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# One stamp per set of extras: `make run` installs what running needs and nothing more.
RUN_STAMP  := $(VENV)/.runctx-run-installed
TEST_STAMP := $(VENV)/.runctx-test-installed
LINT_STAMP := $(VENV)/.runctx-lint-installed
FUZZ_STAMP := $(VENV)/.runctx-fuzz-installed
DOCS_STAMP := $(VENV)/.runctx-docs-installed
FUZZ_SECONDS ?= 10

.PHONY: run test e2e lint bench stress fuzz dist-check docs clean compiled

run: $(RUN_STAMP) compiled
	@$(BIN)/runctx status

test: $(TEST_STAMP) compiled
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The real agents (npm registry, pinned versions, cached under $(VENV)/e2e-agents) driven
# offline by a scripted model server on 127.0.0.1, each running the hooks runctx install writes.
e2e: $(TEST_STAMP) compiled
	RUNCTX_E2E=1 $(BIN)/python -m pytest tests/e2e $(PYTEST_ARGS)

lint: $(LINT_STAMP)
	$(BIN)/ruff check runctx tests fuzz benchmarks
	$(BIN)/ruff format --check runctx tests fuzz benchmarks
	$(BIN)/mypy --strict runctx tests/typing benchmarks fuzz

bench: $(TEST_STAMP) compiled
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

# A loaded, hostile box (needs root and cc): hook decisions and status costs, shape by shape.
# STRESS_ARGS=--done-when: the issue's figures beside their targets; STRESS_ARGS="--hold [S]":
# measure nothing, keep 4 CPU burners and 2000 processes of another user alive (to run
# `make test` beside) until Ctrl-C or for S seconds.
stress: $(TEST_STAMP) compiled
	$(BIN)/python -m benchmarks.stress $(STRESS_ARGS)

# Every fuzz target for FUZZ_SECONDS each (atheris), then the linear-time check of every parser.
fuzz: $(FUZZ_STAMP)
	$(BIN)/python -m fuzz.run --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Build the sdist and wheel, install the wheel into a fresh venv, check it is complete.
dist-check: $(TEST_STAMP)
	$(BIN)/python -m pytest -p no:cacheprovider tests/test_packaging.py $(PYTEST_ARGS)

# The documentation as a site in site/ (MkDocs); --strict: a broken link or anchor fails.
docs: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict

$(DOCS_STAMP): pyproject.toml $(RUN_STAMP)
	$(QUIETLY) $(BIN)/python -m pip install -e '.[docs]'
	@touch $@

$(FUZZ_STAMP): pyproject.toml $(TEST_STAMP)
	$(QUIETLY) $(BIN)/python -m pip install -e '.[fuzz]'
	@touch $@

# runctx's own modules compiled, as pip does for a wheel: an editable install compiles nothing,
# and under PYTHONDONTWRITEBYTECODE (set in many container images) every hook call would
# compile all of them again. Quick when they are current.
compiled: $(RUN_STAMP)
	@$(BIN)/python -m compileall -q runctx

clean:
	rm -rf $(VENV) build site *.egg-info

# Setting up says nothing when it works: each step's output goes to $(SETUP_LOG), which is
# printed whole when a step fails.
SETUP_LOG := $(VENV)/setup.log
QUIETLY = @sh -c 'echo "$$ $$*" >>"$$0"; "$$@" >>"$$0" 2>&1 || { cat "$$0" >&2; echo "make: failed: $$* (its output is above and in $$0)" >&2; exit 1; }' $(SETUP_LOG)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "runctx needs Python 3.11 or newer; set PYTHON=python3.X")'
	@mkdir -p $(VENV)
	$(QUIETLY) $(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml $(BIN)/python
	$(QUIETLY) $(BIN)/python -m pip install --upgrade pip
	$(QUIETLY) $(BIN)/python -m pip install -e .
	@touch $@

$(TEST_STAMP): pyproject.toml $(RUN_STAMP)
	$(QUIETLY) $(BIN)/python -m pip install -e '.[test]'
	@touch $@

$(LINT_STAMP): pyproject.toml $(TEST_STAMP)
	$(QUIETLY) $(BIN)/python -m pip install -e '.[test,lint]'
	@touch $@
