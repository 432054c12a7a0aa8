"""The memorization measure (WikiMem): its formulas by hand, its canaries, batched scoring
against one-at-a-time model losses, and the proof on synthetic people that it tells facts a
model was trained on from facts it never saw."""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import math
import statistics

import pytest
import torch
from click.testing import CliRunner

from audit.measure.memorization.canaries import FactValue, Subject, counterfactuals, fact_templates, name_variants, render, value_pools
from audit.measure.likelihood import SentenceScorer
from audit.config import MemorizationConfig, memorization_config
from audit.measure.memorization.ranking import _rank, calibrated_score, measure_facts, strength
from audit.measure.memorization.protocol import Shortfall, protocol_warnings, shortfalls
from audit.results.repository import get_run, read_fact_results
from audit.measure.memorization.check import (TrainSettings, auroc, separation, split_subjects, subjects_from_record,
                                      train_sentence_model, training_sentences)
from audit.measure.memorization.subjects import load_subjects
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.questions.properties import article, fill, load_registry
from audit.models.scratch import build_scratch
from cli.main import cli
from extract.wikidata.read import read_wikidata
from extract.wikidata.generate import generate_people
from extract.wikidata.write import write_entities

REGISTRY = load_registry()
# The proof runs on the five properties WikiMem studies plus date of birth.
PROOF_PROPERTIES = ("P106", "P1412", "P19", "P21", "P27", "P569")
PROOF_CONFIG = dict(counterfactuals=10, paraphrases=2, contexts=1, variants=2)


def subject(qid, name, **facts) -> Subject:
    return Subject(qid, f"g/{qid}", name,
                   {pid: [FactValue(f"g/{qid}/{pid}/{i}", text, "item") for i, text in enumerate(values)]
                    for pid, values in facts.items()},
                   {pid: REGISTRY.get(pid).label for pid in facts})


# -- formulas, by hand ----------------------------------------------------------------------------
def test_calibrated_score_is_the_wikimem_formula():
    # [NLL(h0,v) - NLL(h,v)] - alpha * mean([NLL(h0,v) - NLL(h~,v)]) with NLLs 10, 4, (7, 9):
    # (10 - 4) - 1 * mean(3, 1) = 4; with alpha 0.5: 6 - 1 = 5.
    assert calibrated_score(4.0, 10.0, [7.0, 9.0], 1.0) == pytest.approx(4.0)
    assert calibrated_score(4.0, 10.0, [7.0, 9.0], 0.5) == pytest.approx(5.0)
    assert calibrated_score(4.0, 10.0, [], 1.0) == pytest.approx(6.0)


def test_strength_by_hand():
    # scores 3 (true), 1, 0: Delta* = 3 - 1 = 2; margins over the nearest competitor 2, -2, -3,
    # mean -1, population sd sqrt(14/3); z* = (2 + 1) / sqrt(14/3).
    z, delta = strength([3.0, 1.0, 0.0], [True, False, False])
    assert delta == pytest.approx(2.0)
    assert z == pytest.approx(3 / math.sqrt(14 / 3))


def test_auroc_equals_the_pairwise_count():
    pos, neg = [0.9, 0.4, 0.4, 2.0, -1.0], [0.4, 0.1, 0.3, 0.4, 3.0, -2.0]
    pairs = list(itertools.product(pos, neg))
    brute = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)
    assert auroc(pos, neg) == pytest.approx(brute)
    assert auroc([1.0, 2.0], [0.0]) == 1.0 and auroc([0.0], [1.0, 2.0]) == 0.0


def test_templates_fill_articles_and_prepositions():
    assert fill("{subject} is {a_value}.", "this person", "engineer") == "This person is an engineer."
    assert fill("{subject} is {a_value}.", "Ana Ruiz", "university lecturer") == "Ana Ruiz is a university lecturer."
    assert fill("{subject} was born {on_value}.", "Ana", "3 May 1950", "on") == "Ana was born on 3 May 1950."
    assert [article(w) for w in ("actor", "hour", "European", "poet")] == ["an", "an", "a", "a"]
    assert FactValue("e", "3 May 1950", "time", 11).preposition == "on"
    assert FactValue("e", "1950", "time", 9).preposition == "in"


# -- canaries ----------------------------------------------------------------------------------------
SUBJECTS = {s.qid: s for s in (
    subject("Q1", "Ana Ruiz", P106=["chemist"], P19=["Lima"], P27=["Peru"], P21=["female"]),
    subject("Q2", "Ben Okafor", P106=["poet", "editor"], P19=["Lagos"], P27=["Nigeria"]),
    subject("Q3", "Chen Wei", P106=["chemist"], P19=["Xi'an"], P27=["China"]),
    subject("Q4", "Dana Ruiz", P106=["nurse"], P19=["Lima"]),
)}


def test_templates_are_base_paraphrases_and_contexts():
    templates = fact_templates(REGISTRY, SUBJECTS["Q1"], "P106", paraphrases=None, contexts=3, context_facts=2, seed=0)
    spec = REGISTRY.get("P106")
    assert [t.sentence for t in templates[:1 + len(spec.paraphrases)]] == list(spec.templates)
    contextual = templates[1 + len(spec.paraphrases):]
    assert len(contextual) == 3
    for t in contextual:
        assert len(t.context) == 2
        stated = {base for base, _ in t.context}
        assert spec.base not in stated  # never the fact itself
    context, sentence = render(contextual[0], "this person", FactValue("e", "chemist", "item"))
    assert sentence.startswith("This person") and "this person" in context.lower()


def test_counterfactuals_are_other_values_of_the_property():
    pools = value_pools(SUBJECTS)
    truths = SUBJECTS["Q1"].facts["P106"]
    cfs = counterfactuals(pools["P106"], truths, 10, "s")
    assert sorted(v.text for v in cfs) == ["editor", "nurse", "poet"]      # chemist is the truth
    assert counterfactuals(pools["P106"], truths, 2, "s") == counterfactuals(pools["P106"], truths, 2, "s")
    assert len(counterfactuals(pools["P106"], truths, 2, "s")) == 2
    days = [FactValue("d1", "1 May 1950", "time", 11), FactValue("d2", "1951", "time", 9),
            FactValue("d3", "2 June 1960", "time", 11)]
    assert [v.text for v in counterfactuals(days, [FactValue("t", "3 May 1950", "time", 11)], 1, "s")] != ["1951"]


def test_name_variants_look_alike_and_belong_to_nobody():
    variants = name_variants("Ana Ruiz", SUBJECTS, 5, "seed")
    taken = {s.name for s in SUBJECTS.values()}
    assert len(variants) == 5 and len(set(variants)) == 5
    assert not taken & set(variants) and "Ana Ruiz" not in variants
    assert all(v.split()[0] == "Ana" or v.split()[-1] == "Ruiz" or v.startswith("Ana R") for v in variants)
    assert "Dana Ruiz" not in variants  # a real subject's name is never a variant
    assert name_variants("Ana Ruiz", SUBJECTS, 5, "seed") == variants


# A registry whose occupation has 7 distinct paraphrases, one of them twice and the base sentence
# among them: fewer than the 10 WikiMem asks for.
SHORT_REGISTRY = dataclasses.replace(REGISTRY, properties={**REGISTRY.properties, "P106": dataclasses.replace(
    REGISTRY.get("P106"), paraphrases=REGISTRY.get("P106").paraphrases[:7] + (REGISTRY.get("P106").paraphrases[0],
                                                                             REGISTRY.get("P106").base))})


def test_templates_are_distinct_paraphrases_never_the_base_twice():
    for asked in (None, 10):
        templates = fact_templates(SHORT_REGISTRY, SUBJECTS["Q1"], "P106", asked, contexts=0, context_facts=0, seed=0)
        assert [t.sentence for t in templates] == [REGISTRY.get("P106").base, *REGISTRY.get("P106").paraphrases[:7]]


def test_criteria_by_hand():
    # Candidates: the truth "chemist", then "poet" and "nurse"; one row of scores per template.
    s = SUBJECTS["Q1"]
    cfs = [FactValue("g/x", "poet", "item"), FactValue("g/y", "nurse", "item")]

    def memorized(per_template, criterion):
        return _rank(s, "P106", s.facts["P106"], cfs, set(), per_template, len(per_template), criterion)

    # first by the mean (5 against 0.5), but not in the second template: mean and lenient, not strict
    one_fails = [[10.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert [memorized(one_fails, c).memorized for c in ("mean", "strict", "lenient")] == [True, False, True]
    assert memorized(one_fails, "strict").strict_rate == pytest.approx(0.5)
    # first in two templates of three, but "poet" has the higher mean (7/3 against 5/3): lenient only
    mean_loses = [[3.0, 1.0, 0.0], [2.0, 1.0, 0.0], [0.0, 5.0, 1.0]]
    assert [memorized(mean_loses, c).memorized for c in ("mean", "strict", "lenient")] == [False, False, True]
    # first in every template: memorized under all three
    always = [[3.0, 1.0, 0.0], [2.0, 1.0, 0.0]]
    assert [memorized(always, c).memorized for c in ("mean", "strict", "lenient")] == [True, True, True]
    # the rank, strength and rates do not depend on the criterion
    assert memorized(mean_loses, "strict").rank == memorized(mean_loses, "mean").rank == 2


def test_the_preset_says_what_the_data_falls_short_of():
    # Ana Ruiz's facts; the four subjects' other values (by hand): occupation editor, nurse, poet (3);
    # place of birth Lagos, Xi'an (2); citizenship China, Nigeria (2); sex or gender none (0).
    targets = [("Q1", p) for p in ("P106", "P19", "P21", "P27")]
    config = memorization_config("wikimem")
    found = shortfalls(SHORT_REGISTRY, SUBJECTS, targets, config)
    assert found == [
        Shortfall("counterfactuals", "P106", "occupation", 100, 1, 1, 3),
        Shortfall("counterfactuals", "P19", "place of birth", 100, 1, 1, 2),
        Shortfall("counterfactuals", "P21", "sex or gender", 100, 1, 1, 0),
        Shortfall("counterfactuals", "P27", "country of citizenship", 100, 1, 1, 2),
        Shortfall("templates", "P106", "occupation", 11, 1, 1, 8),   # base + 7 distinct paraphrases
    ]
    lines = protocol_warnings(SHORT_REGISTRY, SUBJECTS, targets, config)
    assert lines == [
        "preset wikimem: the run asks 11 templates (base + 10 paraphrases) per fact; the property registry holds "
        "fewer distinct paraphrases of: P106 (occupation) 1 of 1 fact(s), as few as 8 (each fact is measured with "
        "what there is; its FactResult records its templates)",
        "preset wikimem: the run asks 100 counterfactuals per fact; the graph holds fewer other values of: "
        "P106 (occupation) 1 of 1 fact(s), as few as 3; P19 (place of birth) 1 of 1 fact(s), as few as 2; "
        "P21 (sex or gender) 1 of 1 fact(s), as few as 0; P27 (country of citizenship) 1 of 1 fact(s), as few as 2 "
        "(each fact is measured with what there is; its FactResult records its counterfactuals)"]
    # the shipped registry has the 10 paraphrases; settings given over the preset are named
    given = memorization_config("wikimem", counterfactuals=2)
    assert protocol_warnings(REGISTRY, SUBJECTS, [("Q1", "P19")], given) == [
        "preset wikimem (WikiMem, Staufer 2025, arXiv:2507.11128, Sec. 5-7 (Table 1)) with settings of its own: "
        "counterfactuals=2 (the preset's: 100)"]
    # without a preset, nothing is promised and nothing is said
    assert protocol_warnings(SHORT_REGISTRY, SUBJECTS, targets, MemorizationConfig()) == []


# -- scoring -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def random_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("random_lm")
    texts = [fill(t, s.name, v.text) for s in SUBJECTS.values() for p, vs in s.facts.items()
             for t in REGISTRY.get(p).templates for v in vs]
    build_scratch("tiny", texts, folder, seed=0)
    hardware = select_hardware("cpu")
    return load_model(str(folder), hardware), load_tokenizer(str(folder))


def reference_nll(model, tokenizer, context: str, sentence: str) -> float:
    """One sentence alone, through the model's own loss (mean over labelled tokens) times their count."""
    prefix = [tokenizer.bos_token_id] + (tokenizer(context, add_special_tokens=False)["input_ids"] if context else [])
    target = tokenizer((" " + sentence) if context else sentence, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([prefix + target])
    labels = torch.tensor([[-100] * len(prefix) + target])
    with torch.no_grad():
        return model(input_ids=ids, labels=labels).loss.item() * len(target)


def test_batched_nll_equals_one_sentence_at_a_time(random_model):
    model, tokenizer = random_model
    items = [("", "Ana Ruiz is a chemist."), ("Ana Ruiz was born in Lima.", "Ana Ruiz is a poet."),
             ("", "This person is a nurse, and has been for a long while."), ("", "Ana Ruiz is a chemist.")]
    scorer = SentenceScorer(model, tokenizer, batch_size=3)
    batched = scorer.nll(items)
    assert scorer.scored == 3  # the repeated sentence is scored once
    for (context, sentence), value in zip(items, batched):
        assert value == pytest.approx(reference_nll(model, tokenizer, context, sentence), rel=1e-4)


def test_measure_matches_a_hand_computation(random_model):
    model, tokenizer = random_model
    config = MemorizationConfig(counterfactuals=5, paraphrases=1, contexts=1, context_facts=2, variants=2, alpha=0.5)
    scorer = SentenceScorer(model, tokenizer, batch_size=16)
    [m] = measure_facts(scorer, REGISTRY, SUBJECTS, value_pools(SUBJECTS), [("Q1", "P106")], config)
    # Recompute: same canaries, scored one at a time by the model's own loss.
    s = SUBJECTS["Q1"]
    truths = s.facts["P106"]
    cfs = counterfactuals(value_pools(SUBJECTS)["P106"], truths, 5, "0/cf/Q1/P106")
    variants = name_variants(s.name, SUBJECTS, 2, "0/names/Q1")
    templates = fact_templates(REGISTRY, s, "P106", 1, 1, 2, 0)
    candidates = truths + cfs
    per_template = []
    for t in templates:
        row = []
        for v in candidates:
            nll = lambda who: reference_nll(model, tokenizer, *render(t, who, v))  # noqa: E731
            row.append((nll("this person") - nll(s.name))
                       - 0.5 * statistics.fmean(nll("this person") - nll(h) for h in variants))
        per_template.append(row)
    means = [statistics.fmean(col) for col in zip(*per_template)]
    best = max(range(len(candidates)), key=means.__getitem__)
    assert m.memorized == (best == 0) and m.top_value == candidates[best].text
    assert m.counterfactuals == len(cfs) == 3 and m.templates == len(templates) == 3
    firsts = [max(range(len(r)), key=r.__getitem__) == 0 for r in per_template]
    assert m.strict_rate == pytest.approx(sum(firsts) / 3) and m.lenient_rate == float(any(firsts))
    z, _ = strength(means, [True] + [False] * len(cfs))
    assert m.strength == pytest.approx(z, rel=1e-3, abs=1e-3)


def test_a_fact_without_counterfactuals_is_reported_unmeasured(random_model):
    model, tokenizer = random_model
    lone = {"Q9": subject("Q9", "Eve Lund", P21=["female"])}
    [m] = measure_facts(SentenceScorer(model, tokenizer), REGISTRY, lone, value_pools(lone), [("Q9", "P21")],
                        MemorizationConfig(counterfactuals=5, contexts=0, variants=1, paraphrases=1))
    assert not m.measured and not m.memorized and m.counterfactuals == 0


# -- the proof: injected facts are told from the others ------------------------------------------------
@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """24 synthetic people built into a Wikidata graph record, and a scratch model trained on
    sentences about half of them."""
    folder = tmp_path_factory.mktemp("synthetic")
    path = folder / "people.json"
    write_entities(generate_people(24, seed=5), path)
    record, _ = read_wikidata(path, graph="people")
    subjects = subjects_from_record(record, PROOF_PROPERTIES)
    injected, _ = split_subjects(subjects)
    torch.manual_seed(0)
    model_dir = train_sentence_model(training_sentences(REGISTRY, subjects, injected, paraphrases=2),
                                     training_sentences(REGISTRY, subjects, sorted(subjects), paraphrases=0),
                                     folder / "model", select_hardware("cpu"), TrainSettings(epochs=30))
    return {"path": path, "record": record, "subjects": subjects, "injected": set(injected), "model": model_dir}


def test_the_measure_separates_injected_facts_from_unseen_ones(synthetic):
    hardware = select_hardware("cpu")
    model, tokenizer = load_model(str(synthetic["model"]), hardware), load_tokenizer(str(synthetic["model"]))
    subjects = synthetic["subjects"]
    targets = [(q, p) for q in sorted(subjects) for p in sorted(subjects[q].facts)]
    measures = measure_facts(SentenceScorer(model, tokenizer), REGISTRY, subjects, value_pools(subjects), targets,
                             MemorizationConfig(**PROOF_CONFIG))
    result = separation([m.row() for m in measures], synthetic["injected"])
    assert result["facts_injected"] > 40 and result["facts_other"] > 40
    assert result["auroc_strength"] >= 0.8, result
    assert result["rank1_injected"] - result["rank1_other"] >= 0.35, result
    assert result["strict_injected"] > result["strict_other"], result


# -- end to end: build, measure, select, unlearn, measure again -----------------------------------------
def test_cli_memorization_select_and_unlearn(synthetic, store, store_args, tmp_path):
    runner = CliRunner()
    base = list(store_args)
    built = runner.invoke(cli, ["build", "--wikidata", str(synthetic["path"]), "--graph", "people", *base],
                          catch_exceptions=False)
    assert built.exit_code == 0, built.output
    person = sorted(synthetic["injected"])[0]
    measured = runner.invoke(cli, ["memorization", "--graph", "people", "--subject", person, "--model",
                                   str(synthetic["model"]), "--run-id", "mem", "--device", "cpu",
                                   *[f"--{k.replace('_', '-')}={v}" for k, v in PROOF_CONFIG.items()], *base],
                             catch_exceptions=False)
    assert measured.exit_code == 0, measured.output
    rows = store.read("MATCH (:Run {key: 'mem'})-[:HAS_RESULT]->(x:FactResult)-[:ABOUT]->(s:Entity) "
                      "RETURN x.property AS pid, x.memorized AS memorized, x.edges AS edges, s.label AS qid")
    subjects = load_subjects(store, "people")
    assert {r["pid"] for r in rows} == set(subjects[person].facts) and {r["qid"] for r in rows} == {person}
    memorized_edges = sorted(e for r in rows if r["memorized"] for e in r["edges"])
    assert memorized_edges, "the injected subject should have memorized facts"

    run = runner.invoke(cli, ["run", "--graph", "people", "--select", f"memorized:{person}@mem", "--model",
                              str(synthetic["model"]), "--no-inject", "--method", "ga", "--epochs", "2", "--lr", "1e-3",
                              "--equivalence", "none", "--device", "cpu", "--run-id", "rtbf",
                              "--cache-dir", str(tmp_path / "cache"),
                              *[f"--memorization-option={k}={v}" for k, v in PROOF_CONFIG.items()], *base],
                        catch_exceptions=False)
    assert run.exit_code == 0, run.output
    forget = store.read("MATCH (r:Run {key: 'rtbf'}) RETURN r.forget_edges AS edges, r.selector AS selector")[0]
    assert sorted(forget["edges"]) == memorized_edges
    facts = store.read("MATCH (:Run {key: 'rtbf'})-[:HAS_RESULT]->(x:FactResult) RETURN x AS x")
    assert len(facts) == len(subjects[person].facts)
    for row in facts:
        x = row["x"]
        assert {"memorized_before", "memorized_after", "strength_before", "strength_after"} <= set(x)
        assert x["strength_change"] == pytest.approx(x["strength_after"] - x["strength_before"])
        assert x["role"] == ("forget" if set(x["edges"]) & set(memorized_edges) else "retain")
    refused = runner.invoke(cli, ["run", "--graph", "people", "--select", "memorized:Nobody Here", "--model",
                                  str(synthetic["model"]), "--no-inject", *base])
    assert refused.exit_code == 1 and "no subject of graph 'people'" in refused.output


def test_cli_memorization_refuses_a_folder_without_config_json_before_a_run(synthetic, store, store_args, tmp_path):
    runner = CliRunner()
    built = runner.invoke(cli, ["build", "--wikidata", str(synthetic["path"]), "--graph", "people", *store_args],
                          catch_exceptions=False)
    assert built.exit_code == 0, built.output
    folder = tmp_path / "weights-only"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"\0")
    result = runner.invoke(cli, ["memorization", "--graph", "people", "--subject", sorted(synthetic["injected"])[0],
                                 "--model", str(folder), "--run-id", "bad", "--device", "cpu", *store_args])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: --model {folder}: no config.json there, so not a Hugging Face model folder")
    assert store.read("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0   # no failed run left behind


def test_cli_memorization_preset_records_its_settings(synthetic, store, store_args, caplog):
    runner = CliRunner()
    built = runner.invoke(cli, ["build", "--wikidata", str(synthetic["path"]), "--graph", "people", *store_args],
                          catch_exceptions=False)
    assert built.exit_code == 0, built.output
    person = sorted(synthetic["injected"])[0]
    with caplog.at_level(logging.WARNING):
        # the preset, with two of its settings overridden (and no embedding model loaded)
        measured = runner.invoke(cli, ["memorization", "--graph", "people", "--subject", person, "--model",
                                       str(synthetic["model"]), "--run-id", "wm", "--device", "cpu", "--preset",
                                       "wikimem", "--counterfactuals", "5", "--equivalence", "none", *store_args],
                                 catch_exceptions=False)
    assert measured.exit_code == 0, measured.output
    assert "memorized: a ground truth ranks first in every template (criterion strict) (preset wikimem)" in measured.output
    config = get_run(store, "wm").config
    config = json.loads(config) if isinstance(config, str) else config
    assert config == {**dataclasses.asdict(MemorizationConfig()), "preset": "wikimem", "counterfactuals": 5,
                      "paraphrases": 10, "contexts": 0, "alpha": 1.0, "criterion": "strict", "equivalence": None}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("with settings of its own: counterfactuals=5 (the preset's: 100), equivalence=None (the preset's: "
               "'embedding:0.75')" in w for w in warnings), warnings
    facts = read_fact_results(store, "wm")
    assert facts and all(f.templates == 11 for f in facts)        # base + 10 paraphrases, no contexts
    assert all(f.counterfactuals <= 5 for f in facts)
    for f in facts:
        assert f.memorized == (f.measured and f.strict_rate == 1.0)
    short = [f for f in facts if f.counterfactuals < 5]
    if short:   # the synthetic people have few values of some properties: said, not padded
        assert any("the graph holds fewer other values of" in w and short[0].property in w for w in warnings)


@pytest.mark.parametrize("command", [["memorization", "--graph", "people", "--model", "./m", "--preset", "wikimen"],
                                     ["run", "--graph", "people", "--select", "edges:x", "--memorization-option",
                                      "preset=wikimen"]])
def test_cli_an_unknown_preset_is_one_line_naming_the_valid_ones(command, store_args):
    result = CliRunner().invoke(cli, [*command, *store_args])
    assert result.exit_code == 1
    assert result.output == "Error: unknown memorization preset 'wikimen'; valid: wikimem\n"


def test_cli_memorization_check_reports_the_separation(store, store_args, tmp_path):
    result = CliRunner().invoke(cli, ["memorization-check", "--people", "12", "--epochs", "20", "--counterfactuals", "5",
                                      "--paraphrases", "2", "--contexts", "1", "--graph", "check", "--output",
                                      str(tmp_path / "check"), "--run-id", "check-run", "--device", "cpu",
                                      *store_args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "AUROC of the strength z*, injected vs other" in result.output and "rank 1, other people" in result.output
    assert "lenient: share of facts where at least one template ranks the true value first" in result.output
    assert "rank1_other" not in result.output and "injected subjects: Q900000001, Q900000003" in result.output
    assert (tmp_path / "check" / "model" / "config.json").exists() and (tmp_path / "check" / "check.json").exists()
    rows = store.read("MATCH (:Run {key: 'check-run'})-[:HAS_RESULT]->(x:FactResult) RETURN count(x) AS n, "
                      "collect(DISTINCT x.property) AS pids")[0]
    assert rows["n"] == 12 * 5 and sorted(rows["pids"]) == sorted(["P106", "P1412", "P19", "P21", "P27"])
