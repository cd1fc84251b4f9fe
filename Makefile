# The commands of README.md:  make run  (set up and run once)   make test  (set up and test: the whole suite, CI)
#                             make test-fast  (the change loop: no slow trial, no service but PostgreSQL)
VENV := .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# Arize Phoenix from PyPI, the trace store tests/test_tracing_phoenix.py runs (testkit/phoenix.py): in a venv of
# its own, since it pins a SQLAlchemy 2.1 that the ledger does not take.
PHOENIX_VENV := .venv-phoenix
$(PHOENIX_VENV)/bin/phoenix:
	python3 -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip install -q 'arize-phoenix==20.26.1'

.PHONY: install model browser spin phoenix run test test-fast bench-short
phoenix: $(PHOENIX_VENV)/bin/phoenix

install: $(VENV)/.installed

# llama-server built from source and the verified weights, into MODEL_CACHE_DIR (~/.cache/factline);
# a no-op once cached. `factline run` would do the same on first use.
model: install
	$(VENV)/bin/factline model build
	$(VENV)/bin/factline model fetch

# Debian's chromium for the dashboard's browser tests (Playwright drives it; `playwright install` is never run).
browser:
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# Debian's spin for the publication protocol's model check (tests/pipeline/ledger/test_protocol_model.py).
spin:
	command -v spin >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq spin >/dev/null)

run: install
	$(VENV)/bin/factline run

test: install model browser spin phoenix
	$(PY) -m pytest

# SQLite only unless FACTLINE_TEST_BACKENDS says otherwise (make test covers PostgreSQL too); two pytest-xdist
# workers, one per core (FACTLINE_TEST_WORKERS=0: one process, as make test runs)
test-fast: install
	FACTLINE_TEST_BACKENDS=$${FACTLINE_TEST_BACKENDS:-sqlite} $(PY) -m pytest -q -m "not slow and not external" \
		-n $${FACTLINE_TEST_WORKERS:-2}

bench-short: install
	$(PY) -m pip install -q -e '.[test,bench]'
	$(PY) -m benchmarks.run_all --short
