# sidebet: `make run`, `make check` and `make test` set up .venv when needed.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test check lint types contracts pytest pytest-fast pytest-postgres bench clean venv \
	browser report-example coverage fixtures screenshots

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

# The architecture contract: [tool.importlinter] in pyproject.toml (docs/architecture.md).
contracts: $(STAMP)
	$(BIN)/lint-imports --no-logo

# Debian's Chromium and poppler-utils for the browser and PDF tests (idempotent).
browser:
	scripts/ensure-chromium.sh >/dev/null

# Every test, the slowest listed, on every core (pytest-xdist: a test module whole in one
# worker; coverage's tracing would cost CI's 20 minutes: make coverage).
XDIST := -n $(shell nproc) --dist loadgroup
pytest: $(STAMP) browser
	$(BIN)/python -m pytest $(XDIST) --durations=25

# Every test with a coverage report (numba's kernels run compiled and are not traced).
coverage: $(STAMP) browser
	$(BIN)/python -m pytest --cov=sidebet --cov-report=term:skip-covered

# The fast lane of `make check`: no browser, no server database, nothing marked slow.
pytest-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not browser and not postgres and not slow"

# The table server's tests again on PostgreSQL: scripts/postgres.sh installs Debian's
# postgresql if missing, starts a throwaway cluster, and stops and removes it afterwards.
pytest-postgres: $(STAMP)
	url=$$(scripts/postgres.sh start) || exit 1; \
	SIDEBET_TEST_POSTGRES="$$url" SIDEBET_TEST_KILLS=4 SIDEBET_FUZZ_EXAMPLES=10 \
		$(BIN)/python -m pytest -p no:cacheprovider tests/serve; rc=$$?; \
	scripts/postgres.sh stop; exit $$rc

test: lint types contracts pytest pytest-postgres

# Before a commit: lint, types, the contract and the fast tests.
check: lint types contracts pytest-fast

# The example game-math report under docs/ (HTML and PDF), linked from the README.
REPORT_ARGS := --rounds 1e7 --rng-shoes 100000 --vuln-rounds 1e6 --seed 20261130
report-example: $(STAMP) browser
	$(BIN)/sidebet report examples/table-6deck.toml -o docs/report-6deck.html \
	    --pdf docs/report-6deck.pdf $(REPORT_ARGS)

# The screenshots that README.md and docs/ show, taken again by the browser tests.
screenshots: $(STAMP) browser
	scripts/screenshots.sh

# Write the golden fixtures of tests/fixtures again from today's code (tests/fixtures/README.md).
fixtures: $(STAMP)
	for m in make_play_sessions make_engine_answers make_simulate; do \
	    $(BIN)/python -m tests.fixtures.making.$$m || exit 1; done

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis .import_linter_cache \
	    .coverage
