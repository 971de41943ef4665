# sidebet: `make run` and `make test` set up .venv when needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint types pytest bench clean venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m sidebet.warm
	$(BIN)/sidebet par --all --decks 6 --compliant-only

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

types: $(STAMP)
	$(BIN)/mypy --strict src/sidebet

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: lint types pytest

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
