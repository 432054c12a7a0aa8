"""Resurfacing checks (audit/run/resurfacing.py, docs/robustness.md) on a real run of the tiny
model: what each check writes per edge and on the Run, recomputed from the EdgeResults read back
with Cypher; the relearning sets and their control; relearning that restores what it was given
and leaves the adapters exactly as they were; the refusals."""

from __future__ import annotations

import json

import pytest
import torch

from audit.config import InjectionConfig, ResurfacingConfig, UnlearnConfig
from audit.models.encoding import QAEncoder
from audit.models.load import select_hardware
from audit.results import repository as R
from audit.results.resurfaced import MIA_ATTACKS, PROBE_KINDS, QUANT_SCHEMES
from audit.run.injection import inject, load_injected_model
from audit.run.methods import method_class
from audit.run.qa import load_graph_edges, neighbourhood
from audit.run.request import RunRequest
from audit.run.resurfacing import CheckContext, _relearned_rouge1, relearn_sets
from audit.run.runner import run_audit
from audit.run.unlearning import Unlearner
from conftest import cli_store_args, small_pistol_run, store_checksum
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.ingest import write_graph
from graphstore.errors import ConfigError

EDGES = [("0", "1"), ("0", "2"), ("1", "3"), ("2", "4"), ("3", "5")]
CHECKS = ResurfacingConfig(checks=("quantize", "relearn", "probes", "mia"), relearn_steps=3)
FORGOTTEN = 0.2   # the leakage threshold docs/leakage.md (default)
INJECTION = InjectionConfig(max_epochs=20, target_rouge1=0.6)     # small_pistol_run's: short
UNLEARN = UnlearnConfig(epochs=8, lr=1e-3, batch_size=4)           # NPO, gentle: the model is not wrecked


def _checked_run(store, run_cache, tmp_path):
    run = small_pistol_run(store, tmp_path, run_cache, "resurf", "resurf-ga", EDGES, seed=5, resurfacing=CHECKS,
                           injection=INJECTION, method="npo", unlearn=UNLEARN)
    raw = {r["edge"]: r["props"] for r in store.read(
        "MATCH (r:EdgeResult {run: $run}) RETURN r.edge AS edge, properties(r) AS props", run=run)}
    node = store.read("MATCH (r:Run {key: $run}) RETURN properties(r) AS props", run=run)[0]["props"]
    return run, raw, node


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values)


def _over_qa(raw, keys, name):
    """The mean over QA pairs of a per-edge mean (each edge weighs its number of QA pairs)."""
    return (sum(raw[k][name] * len(raw[k]["rouge1_qa_after"]) for k in keys)
            / sum(len(raw[k]["rouge1_qa_after"]) for k in keys))


def test_checks_on_a_real_run(store, run_cache, tmp_path, settings):
    """One real run (the store is emptied for every test): each part below is its own check."""
    run, raw, node = _checked_run(store, run_cache, tmp_path)
    _check_writes(raw, node)
    _check_views(store, settings, run, raw, tmp_path)
    _check_relearning_sets(store)
    _check_relearning_restores(store, run_cache, run, raw)


def _check_writes(raw, node):
    forget = {k for k, r in raw.items() if r["role"] == "forget"}
    assert len(forget) == 2 and json.loads(node["resurfacing_config"])["checks"] == list(CHECKS.checks)
    assert set(json.loads(node["resurfacing_seconds"])) == set(CHECKS.checks)
    forgotten = {k for k in forget if raw[k]["rouge1_after"] <= FORGOTTEN}
    assert node["forget_edges_forgotten"] == len(forgotten)
    for scheme in QUANT_SCHEMES:   # every edge measured again under each rounding
        assert all(f"rouge1_{scheme}" in r for r in raw.values())
        assert node[f"forget_rouge1_{scheme}"] == pytest.approx(_over_qa(raw, forget, f"rouge1_{scheme}"))
        assert node[f"retain_rouge1_{scheme}"] == pytest.approx(_over_qa(raw, set(raw) - forget, f"rouge1_{scheme}"))
        assert node[f"resurfaced_{scheme}"] == sum(raw[k][f"rouge1_{scheme}"] > FORGOTTEN for k in forgotten)
        report = json.loads(node["quantization"])[scheme]
        assert report["backend"] == "torch" and report["layers"] > 0 and 0 < report["relative_error"] < 0.5
    for k in forget:   # relearning: neighbours against the control, the same number of pairs
        r = raw[k]
        assert r["relearn_pairs"] > 0
        assert r["relearn_gain"] == pytest.approx(r["relearn_rouge1"] - r["relearn_control_rouge1"])
        assert r["resurfaced_relearn"] == (k in forgotten and r["relearn_rouge1"] > FORGOTTEN)
        # probes: 3 paraphrases of each of the 20 attributes; at most one 2-hop question each
        assert r["paraphrase_questions"] == 60 and 0 < r["two_hop_questions"] <= 20
    assert node["relearn_gain"] == pytest.approx(_over_qa(raw, forget, "relearn_gain"))
    assert node["resurfaced_relearn_control"] == sum(raw[k]["relearn_control_rouge1"] > FORGOTTEN for k in forgotten)
    for kind in PROBE_KINDS:
        for phase in ("before", "after"):
            assert node[f"forget_{kind}_rouge1_{phase}"] == pytest.approx(
                _mean(raw[k][f"{kind}_rouge1_{phase}"] for k in forget))
    retained = [r for r in raw.values() if r["role"] == "retain"]
    assert not any("relearn_rouge1" in r or "paraphrase_rouge1_after" in r for r in retained)
    for attack in MIA_ATTACKS:   # every edge scored before and after, AUC per edge and per role
        assert all(f"{attack}_before" in r and f"{attack}_after" in r for r in raw.values())
        for role in ("forget", "retain"):
            for phase in ("before", "after"):
                assert 0.0 <= node[f"{attack}_auc_{role}_{phase}"] <= 1.0
    # (a clear member/non-member gap is tested on a model trained to know its members:
    # tests/audit/measure/test_membership.py; this short injection leaves some edges barely learned)
    assert node["mia_nonmembers"] > 0


def _check_views(store, settings, run, raw, tmp_path):
    from click.testing import CliRunner

    from audit.views.compare import compare_runs
    from audit.views.report import write_report
    from cli.edges import edges

    shown = CliRunner().invoke(edges, ["--run", run, *cli_store_args(settings)])
    assert shown.exit_code == 0, shown.output
    assert "rouge1_int8" in shown.output and "relearn_control_rouge1" in shown.output
    report = write_report(store, run, tmp_path / "report").read_text(encoding="utf-8")
    assert "## Resurfacing" in report and "resurfaced under" in report
    columns, rows = compare_runs(store, run, run).table()
    came_back = {k for k, r in raw.items() if any(r.get(f"resurfaced_{c}") for c in ("int8", "nf4", "relearn",
                                                                                        "paraphrase", "two_hop"))}
    if came_back:
        assert columns[-2:] == ["resurfaced_a", "resurfaced_b"]
        assert {row[0] for row in rows if row[-1]} == came_back
    else:
        assert "resurfaced_a" not in columns


def _check_relearning_sets(store):
    edges = load_graph_edges(store, "resurf")
    forget = ["resurf/0_1", "resurf/1_3"]
    for edge in forget:
        near, far = relearn_sets(edges, forget, edge, seed=0)
        neighbours = set(neighbourhood(edges, [edge])) - set(forget)
        assert len(near) == len(far) > 0
        assert {qa.edge for qa in near} <= neighbours
        assert not {qa.edge for qa in far} & (neighbours | set(forget))
        assert (near, far) == relearn_sets(edges, forget, edge, seed=0)      # seeded
        assert relearn_sets(edges, forget, edge, seed=1) != (near, far)


def _unlearned_model(store, run_cache, run):
    """The run's unlearned model rebuilt from the cache: injected weights + its saved adapters."""
    edges = load_graph_edges(store, "resurf")
    hardware = select_hardware("cpu")
    injected = inject("scratch:tiny", "resurf", store.graph("resurf")["sha256"], edges,
                      INJECTION, hardware, run_cache)
    assert injected.cached
    model, tokenizer = load_injected_model(injected, hardware)
    npo = method_class("npo")
    unlearner = Unlearner(model, QAEncoder(tokenizer), npo(npo.config_class()), UNLEARN, hardware.device)
    unlearner.load(run_cache / "runs" / run / "adapter")
    return unlearner, edges


def _check_relearning_restores(store, run_cache, run, raw):
    unlearner, edges = _unlearned_model(store, run_cache, run)
    edge = min((k for k, r in raw.items() if r["role"] == "forget"), key=lambda k: raw[k]["rouge1_after"])
    context = CheckContext(unlearner.model, unlearner.encoder, edges, [edge], {edge: raw[edge]["rouge1_after"]},
                           ResurfacingConfig(relearn_steps=40, relearn_batch_size=4), 3e-3, 32, [], lambda line: None)
    before = {n: p.detach().clone() for n, p in unlearner.model.named_parameters()}
    own = list(edges[edge].qas)
    # the loaded adapters are the run's: the edge measures as the run measured it
    assert context.evaluate(own, "")[edge] == pytest.approx(raw[edge]["rouge1_after"])
    # a positive control known in advance: relearning on the edge's own QA pairs brings it back
    assert _relearned_rouge1(context, own, own, "") >= max(raw[edge]["rouge1_before"], raw[edge]["rouge1_after"] + 0.2)
    after = dict(unlearner.model.named_parameters())
    assert all(torch.equal(before[n], after[n]) for n in before)
    assert context.evaluate(own, "")[edge] == pytest.approx(raw[edge]["rouge1_after"])


def _graph_only(store, tmp_path):
    path = tmp_path / "resurf.json"
    write_dataset(generate_pistol(EDGES, seed=5), path)
    write_graph(store, load_pistol(path, graph="resurf"))


def test_a_sweep_checks_each_edge_after_its_own_unlearning(store, run_cache, tmp_path):
    run = small_pistol_run(store, tmp_path, run_cache, "resurf", "resurf-sweep", EDGES, seed=5, per_edge=True,
                           resurfacing=ResurfacingConfig(checks=("quantize", "relearn", "mia"), relearn_steps=2),
                           injection=INJECTION, method="npo", unlearn=UNLEARN)
    raw = {r["edge"]: r["props"] for r in store.read(
        "MATCH (r:EdgeResult {run: $run}) RETURN r.edge AS edge, properties(r) AS props", run=run)}
    node = store.read("MATCH (r:Run {key: $run}) RETURN properties(r) AS props", run=run)[0]["props"]
    forget = [k for k, r in raw.items() if r["role"] == "forget"]
    assert len(forget) == 2
    for k in forget:   # each swept edge: its own measures under each check
        assert {"rouge1_int8", "rouge1_nf4", "relearn_rouge1", "mia_loss_auc_after"} <= set(raw[k])
    # the other edges were measured by the sweep, not by the checks
    assert not any("rouge1_int8" in r or "mia_loss_before" in r for k, r in raw.items() if k not in forget)
    forgotten = [k for k in forget if raw[k]["rouge1_after"] <= FORGOTTEN]
    assert node["forget_edges_forgotten"] == len(forgotten)
    assert node["forget_rouge1_nf4"] == pytest.approx(_over_qa(raw, forget, "rouge1_nf4"))
    assert node["resurfaced_relearn"] == sum(raw[k]["relearn_rouge1"] > FORGOTTEN for k in forgotten)
    assert set(json.loads(node["resurfacing_seconds"])) == {"quantize", "relearn", "mia"}


def test_bad_check_options_are_refused_before_anything_is_written(store, run_cache, tmp_path):
    _graph_only(store, tmp_path)
    before = store_checksum(store)
    for bad, message in ((ResurfacingConfig(checks=("quantise",)), "--check 'quantise' is not known"),
                         (ResurfacingConfig(checks=("quantize",), quantize="int4"), "quantize='int4'"),
                         (ResurfacingConfig(checks=("mia",), mia_k=0.0), "mia_k=0.0")):
        with pytest.raises(ConfigError, match=message):
            run_audit(store, RunRequest(graph="resurf", select="top-degree:1", resurfacing=bad, cache_dir=run_cache,
                                        run_id="resurf-bad"), report=lambda line: None)
    assert store_checksum(store) == before
    assert R.get_run(store, "resurf-bad") is None


def test_non_members_are_never_true_answers():
    """A subject with two values of one relation asks both the same question: neither value may
    be the other's non-member; nor may an answer that differs only in case or punctuation."""
    from audit.types import Edge, QAExample
    from audit.run.resurfacing import nonmembers

    def edge(key, question, answer):
        return Edge(key, key + "/h", key + "/t", "P106", 1, 0, 1.0, (QAExample(key, 0, question, answer),))

    edges = {"g/a": edge("g/a", "What is Ada's occupation?", "poet"),
             "g/b": edge("g/b", "What is Ada's occupation?", "painter"),       # Ada's other occupation
             "g/c": edge("g/c", "What is Bo's occupation?", "Poet."),          # "poet", punctuated
             "g/d": edge("g/d", "What is Cy's occupation?", "baker")}
    rows = [{"key": k, "props": {"qa_attributes": ["P106.question.0"]}} for k in edges]
    context = CheckContext(None, None, edges, ["g/a"], {}, ResurfacingConfig(), 1e-3, 8, rows, lambda line: None)
    for seed in range(20):
        context.config.seed = seed
        chosen = {k: qa.answer for (k, _), qa in nonmembers(context).items()}
        assert chosen["g/a"] == "baker" and chosen["g/b"] == "baker"    # not painter/poet, not "Poet."
        assert chosen["g/c"] in ("painter", "baker") and chosen["g/d"] in ("poet", "painter", "Poet.")
