# `make demo` and `make test` are the only set-up a fresh machine needs: both create or refresh
# the local virtualenv from the lock file first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit lock clean

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "medeval needs Python >= 3.11; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/medeval demo

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check src tests $(wildcard benchmarks)
	$(BIN)/ruff format --check src tests $(wildcard benchmarks)

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

# Re-resolve exact versions after changing dependencies in pyproject.toml.
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
