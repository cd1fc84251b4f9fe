# The two commands of README.md:  make run  (set up and run once)   make test  (set up and test)
VENV := .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

.PHONY: install model run test bench-short
install: $(VENV)/.installed

# llama-server built from source and the verified weights, into MODEL_CACHE_DIR (~/.cache/factline);
# a no-op once cached. `factline run` would do the same on first use.
model: install
	$(VENV)/bin/factline model build
	$(VENV)/bin/factline model fetch

run: install
	$(VENV)/bin/factline run

test: install model
	$(PY) -m pytest

bench-short: install
	$(PY) -m pip install -q -e '.[test,bench]'
	$(PY) -m benchmarks.run_all --short
