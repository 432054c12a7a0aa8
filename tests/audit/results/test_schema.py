"""The result schema is the one source of result property names: docs match it, writers refuse
what it lacks, readers are typed, and every property a real run writes is declared."""

from __future__ import annotations

import re

import pytest

from audit.measure import metrics as M
from audit.results import store as R
from audit.results.schema import NODES, QA_MEASURES, EdgeResult, FactResult, Run, markdown, phase_name
from conftest import REPO, small_pistol_run


def test_docs_schema_tables_are_generated_from_the_schema():
    text = (REPO / "docs" / "schema.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- result-schema:begin -->\n(.*?)<!-- result-schema:end -->", text, re.S)
    assert block, "docs/schema.md lacks the result-schema markers"
    assert block.group(1) == markdown(), "regenerate with: python -m audit.results.schema"


def test_the_schema_declares_the_registered_qa_measures():
    assert QA_MEASURES == M.QA_MEASURES
    for name in M.QA_MEASURES:
        assert {phase_name(name, "before"), phase_name(name, "after")} <= set(EdgeResult.names())


def test_every_node_declares_its_key_once():
    for node in NODES:
        names = [p.name for p in node.PROPS]
        assert names[0] == "key" and len(names) == len(set(names))


def test_reads_are_checked_against_the_schema():
    result = EdgeResult.from_props({"key": "r/g/A_B", "edge": "g/A_B", "rouge1_after": 0.25, "legacy": 1})
    assert result.rouge1_after == 0.25 and result["edge"] == "g/A_B" and result.get("rouge1_before") is None
    assert "rouge1_after" in result and "rouge1_before" not in result
    assert result.extra == {"legacy": 1} and dict(result) == {"key": "r/g/A_B", "edge": "g/A_B", "rouge1_after": 0.25}
    with pytest.raises(KeyError, match="EdgeResult declares no property rouge1_aftr"):
        result.get("rouge1_aftr")


def test_the_store_refuses_an_undeclared_property(store):
    R.start_run(store, "schema-check", {"settings_sha256": "x", "graph": "none"})
    try:
        with pytest.raises(KeyError, match="Run declares no property forget_rouge"):
            R.update_run(store, "schema-check", forget_rouge=0.5)
        with pytest.raises(KeyError, match="EdgeResult declares no property rouge_after"):
            R.write_results(store, "schema-check", [{"edge": "none/A_B", "rouge_after": 0.5}])
        with pytest.raises(KeyError, match="FactResult declares no property strenght"):
            R.write_fact_results(store, "schema-check", [{"subject": "Q1", "property": "P1", "subject_key": "none/Q1",
                                                          "strenght": 1.0}])
        assert R.read_results(store, "schema-check") == []
        assert R.get_run(store, "schema-check").extra == {}
    finally:
        R.delete_run(store, "schema-check")


def test_a_real_run_writes_only_declared_properties(store, run_cache, tmp_path):
    """Read back raw with Cypher (not through the typed reader), every property is declared."""
    run = small_pistol_run(store, tmp_path, run_cache, "schema", "schema-ga", [("0", "1"), ("0", "2"), ("1", "3")],
                           seed=2, per_edge=True)
    for label, node in (("Run", Run), ("EdgeResult", EdgeResult)):
        query = (f"MATCH (x:{label}) WHERE x.key = $run OR x.run = $run RETURN x" if label == "Run"
                 else f"MATCH (x:{label} {{run: $run}}) RETURN x")
        rows = store.read(query, run=run)
        assert rows
        written = {k for row in rows for k in dict(row["x"])}
        assert written - set(node.names()) == set(), label
