# sidebet: `make run` and `make test` set up .venv when needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint types pytest pytest-postgres bench clean venv chromium

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/sidebet par --all --decks 6 --compliant-only

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

types: $(STAMP)
	$(BIN)/mypy --strict src/sidebet

chromium:
	bash scripts/ensure-chromium.sh

pytest: $(STAMP) chromium
	$(BIN)/python -m pytest

# The table server's tests again on PostgreSQL: scripts/postgres.sh installs Debian's
# postgresql if missing, starts a throwaway cluster, and stops and removes it afterwards.
pytest-postgres: $(STAMP)
	url=$$(scripts/postgres.sh start) || exit 1; \
	SIDEBET_TEST_POSTGRES="$$url" SIDEBET_TEST_KILLS=4 SIDEBET_FUZZ_EXAMPLES=10 \
		$(BIN)/python -m pytest -p no:cacheprovider tests/serve; rc=$$?; \
	scripts/postgres.sh stop; exit $$rc

test: lint types pytest pytest-postgres

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
