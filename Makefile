# Every target works on a fresh machine that has only Python 3.11+ and make.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.runctx-installed

.PHONY: run test lint bench clean

run: $(STAMP)
	$(BIN)/runctx status

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check runctx tests
	$(BIN)/ruff format --check runctx tests
	$(BIN)/mypy --strict runctx tests/typing

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "runctx needs Python 3.11 or newer; set PYTHON=python3.X")'
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]' --config-settings editable_mode=compat
	@touch $@
