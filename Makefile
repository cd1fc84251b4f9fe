# The two commands of README.md:  make run  (set up and run once)   make test  (set up and test)
VENV := .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

.PHONY: install run test
install: $(VENV)/.installed

run: install
	$(VENV)/bin/factline run

test: install
	$(PY) -m pytest
