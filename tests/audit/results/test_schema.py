"""The result declarations are the one source of result property names: the generated classes and
the docs match them, writers refuse what they lack and values of another type, readers are typed
and refuse a stored value of another type, and every property a real run writes is declared.
Their measures come from their one declaration (``audit.measure.measures``)."""

from __future__ import annotations

import dataclasses

import pytest

from audit.measure import measures as D
from audit.measure import membership  # noqa: F401  (registers the membership attacks)
from audit.measure import metrics as M
from audit.models import quantize
from audit.questions import probes
from audit.results import repository as R
from audit.results.generate import SCHEMA_PATH, markdown, schema_source
from audit.results.schema import NODES, EdgeResult, Prop, Run, phase_name
from conftest import generated_block, small_pistol_run
from graphstore.errors import ConfigError


def test_docs_schema_tables_are_generated_from_the_schema():
    block = generated_block("schema.md", "result-schema")
    assert block is not None, "docs/schema.md lacks the result-schema markers"
    assert block == markdown(), "regenerate with: python -m audit.results.generate"


def test_the_result_classes_are_generated_from_the_declarations():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_source(), \
        "audit/results/schema.py is out of date: python -m audit.results.generate"
    for node in NODES:   # every declared property is a typed field, and only those
        fields = [f.name for f in dataclasses.fields(node) if f.name != "extra"]
        assert fields == node.names()


def test_a_stored_value_of_another_type_is_refused_on_reading():
    assert Run.from_props({"key": "r", "seed": 3}).seed == 3
    with pytest.raises(ConfigError, match=r"Run 'r': stored property 'seed' is declared int, holds str '3'"):
        Run.from_props({"key": "r", "seed": "3"})
    with pytest.raises(ConfigError, match="rouge1_qa_after' is declared list\\[float\\]"):
        EdgeResult.from_props({"key": "r/e", "rouge1_qa_after": ["high"]})


def test_the_schema_declares_the_registered_qa_measures():
    for name in M.QA_MEASURES:
        assert {phase_name(name, "before"), phase_name(name, "after")} <= set(EdgeResult.names())
        prop = EdgeResult.DECLARED[phase_name(name, "after")]
        assert prop.type == "float" and prop.measure.knowledge and prop.measure.better == "lower on forget"


def test_the_resurfacing_names_are_those_of_their_registries():
    assert D.MIA_ATTACKS == tuple(m.name for m in M.metrics_for("membership"))
    assert D.QUANT_SCHEMES == quantize.SCHEMES
    assert D.PROBE_KINDS == probes.KINDS


def test_the_run_summary_rows_are_declared_run_measures():
    """Each row of a run's summary is a Run property with a label and a direction, and what it
    counts out of is a Run property too."""
    assert M.RUN_MEASURES and len({m.name for m in M.RUN_MEASURES}) == len(M.RUN_MEASURES)
    for m in M.RUN_MEASURES:
        assert m.level == "run" and m.label and m.better in ("higher", "lower", "near 0.5"), m.name
        assert set(m.names) <= set(Run.names()), m.name
        assert m.count_of is None or m.count_of in Run.DECLARED, m.name
    assert {Run.DECLARED[m.names[-1]].group for m in M.RUN_MEASURES} == {"summary", "resurfacing", "localization"}


def test_declared_types_admit_their_values_only():
    number, flag, words = Prop("x", "float", "", "g"), Prop("x", "bool", "", "g"), Prop("x", "list[str]", "", "g")
    assert number.admits(0.5) and number.admits(2) and number.admits(None)   # an int is a float's value
    assert not number.admits("0.5") and not number.admits(True)               # a flag is not a number
    assert not Prop("x", "int", "", "g").admits(2.0) and Prop("x", "int", "", "g").admits(2)
    assert flag.admits(False) and not flag.admits(0)
    assert words.admits(["a", "b"]) and words.admits(()) and not words.admits(["a", 1]) and not words.admits("ab")
    assert Prop("x", "json", "", "g").admits({"lr": 1e-5}) and not Prop("x", "json", "", "g").admits({1, 2})


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


def test_the_store_refuses_a_value_of_another_type_and_writes_nothing(store):
    R.start_run(store, "type-check", {"settings_sha256": "x", "graph": "none", "seed": 3})
    try:
        with pytest.raises(ConfigError, match=r"^Run 'type-check': property 'seed' is declared int, got str '3' "):
            R.update_run(store, "type-check", seed="3", ended_at="now")
        with pytest.raises(ConfigError, match="Run 'type-check': property 'per_edge' is declared bool, got int 1"):
            R.update_run(store, "type-check", per_edge=1)
        assert R.get_run(store, "type-check").seed == 3 and R.get_run(store, "type-check").ended_at is None
        good = {"edge": "none/A_B", "rouge1_after": 0.5, "rouge1_qa_after": [0.5, 1]}
        with pytest.raises(ConfigError, match="EdgeResult 'type-check/none/B_C': property 'rouge1_qa_after' is "
                                              "declared list\\[float\\], got list \\[0.5, '1'\\]"):
            R.write_results(store, "type-check", [good, {"edge": "none/B_C", "rouge1_qa_after": [0.5, "1"]}])
        assert R.read_results(store, "type-check") == []   # not even the good row: checked before writing
        with pytest.raises(ConfigError, match="FactResult 'type-check/Q1/P1': property 'memorized' is declared bool"):
            R.write_fact_results(store, "type-check", [{"subject": "Q1", "property": "P1", "subject_key": "none/Q1",
                                                        "memorized": "yes"}])
        assert R.read_fact_results(store, "type-check") == []
        R.write_results(store, "type-check", [good])   # an int among floats is a float's value
        assert R.read_results(store, "type-check")[0].rouge1_qa_after == [0.5, 1]
        with pytest.raises(ConfigError, match="Experiment 'grid': property 'cells' is declared int, got float 2.0"):
            R.update_experiment(store, "grid", cells=2.0)
        assert R.get_experiment(store, "grid") is None
    finally:
        R.delete_run(store, "type-check")


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
