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

.PHONY: run test lint bench fuzz dist-check docs clean

run: $(RUN_STAMP)
	$(BIN)/runctx status

test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(LINT_STAMP)
	$(BIN)/ruff check runctx tests fuzz benchmarks
	$(BIN)/ruff format --check runctx tests fuzz benchmarks
	$(BIN)/mypy --strict runctx tests/typing benchmarks

bench: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

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
	$(BIN)/python -m pip install --quiet -e '.[docs]' --config-settings editable_mode=compat
	@touch $@

$(FUZZ_STAMP): pyproject.toml $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[fuzz]' --config-settings editable_mode=compat
	@touch $@

clean:
	rm -rf $(VENV) build site *.egg-info

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "runctx needs Python 3.11 or newer; set PYTHON=python3.X")'
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e . --config-settings editable_mode=compat
	@touch $@

$(TEST_STAMP): pyproject.toml $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	@touch $@

$(LINT_STAMP): pyproject.toml $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,lint]' --config-settings editable_mode=compat
	@touch $@
