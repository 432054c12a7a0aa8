# The two commands of the README:
#   make demo   set up .venv, generate a PISTOL graph, build it on the embedded engine, print its edges
#   make test   set up .venv and run the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := out/demo_pistol.json

.PHONY: install demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

install: $(VENV)/.installed

demo: install
	mkdir -p out
	$(BIN)/audit generate pistol --topology barabasi_albert --nodes 40 --m 2 \
		--employment-fraction 0.3 --seed 1 --output $(DEMO)
	$(BIN)/audit build --pistol $(DEMO) --graph demo --replace
	$(BIN)/audit edges --graph demo

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/bench_ingest.py

clean:
	-$(BIN)/audit server stop
	rm -rf $(VENV) .audit out
