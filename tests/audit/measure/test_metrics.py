"""The audit's measures (``audit/measure/metrics.py``) and the batched scoring in ``audit/measure/evaluate.py``.

Expected values come from elsewhere than the code under test: worked out by hand (the
arithmetic is in the comments), from ``rouge_score`` called with a scorer of our own, from
ranks counted with plain Python loops over one unpadded forward pass, and, for extraction
strength, from its definition run literally: greedy decoding (``model.generate``) from every
answer prefix until one reproduces the rest of the answer.

The model is a real tiny Llama (``audit.models.scratch``) with a BPE tokenizer trained on the QA text
below; one copy stays random, one is trained a few steps so that it knows some answers only in
part, which is what makes extraction strength land strictly between 0 and 1.
"""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest
import torch
from rouge_score import rouge_scorer

from audit.measure import evaluate as E
from audit.measure import metrics as M
from audit.measure.measures import summary_markdown
from audit.models.encoding import EncodedQA, QAEncoder
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.types import QAExample
from audit.models.scratch import build_scratch
from audit.models.training import batches, optimizer_and_schedule, seed_everything
from conftest import generated_block
from graphstore.errors import ConfigError

ABS = 1e-4

# Questions of different lengths (left padding differs per row when generating) and answers of
# different lengths (right padding differs per row when scoring); three edges, one with 2 pairs.
QAS = [
    ("g/A_B", 0, "Who sells bolts to Kqzvwe LLC?", "Jzrcws SA sells them."),
    ("g/A_B", 1, "When was the contract between Jzrcws SA and Kqzvwe LLC signed?", "It was signed on 05-03-2019."),
    ("g/B_C", 0, "Which law governs it?", "The laws of Delaware."),
    ("g/C_D", 0, "What is the unit price agreed by the two parties?", "Twelve dollars per unit, paid monthly."),
]
TRAIN_STEPS = 8


# ------------------------------------------------------------------------------ fixtures

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A random and a briefly trained tiny model over the same tokenizer, and the QA set."""
    torch.set_num_threads(2)
    texts = [f"{q} {a}" for _, _, q, a in QAS] * 5
    folder = build_scratch("tiny", texts, tmp_path_factory.mktemp("tiny"), seed=0)
    hardware = select_hardware("cpu")
    encoder = QAEncoder(load_tokenizer(str(folder)))
    examples = [QAExample(edge, index, q, a) for edge, index, q, a in QAS]
    encoded = [encoder.encode(e.question, e.answer) for e in examples]

    random_model = load_model(str(folder), hardware).eval()
    trained = load_model(str(folder), hardware)
    seed_everything(0)
    optimizer, schedule = optimizer_and_schedule(trained.parameters(), 3e-3, 0.0, warmup_steps=1, total_steps=None)
    trained.train()
    for _ in range(TRAIN_STEPS):
        for batch in batches(encoded, list(range(len(encoded))), len(encoded), encoder.pad_id, hardware.device):
            trained(**batch).loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
    trained.eval()
    return SimpleNamespace(encoder=encoder, examples=examples, encoded=encoded,
                           random=random_model, trained=trained)


def _reference_scores(model, encoded: EncodedQA) -> dict[str, float]:
    """Teacher-forced measures for one QA pair by another route: one unpadded forward pass,
    ranks counted with a Python loop over the vocabulary, probabilities multiplied in float64."""
    answer = encoded.answer_ids[:-1]             # the end-of-sequence token is not scored
    ids = encoded.prompt_ids + encoded.answer_ids
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0].double().tolist()
    ranks, probabilities = [], []
    for j, target in enumerate(answer):
        row = logits[len(encoded.prompt_ids) + j - 1]          # the position before predicts it
        score = row[target]
        ranks.append(1 + sum(1 for v in row if v > score))
        top = max(row)
        probabilities.append(math.exp(score - top) / math.fsum(math.exp(v - top) for v in row))
    n = len(answer)
    last_miss = max((j for j, r in enumerate(ranks) if r != 1), default=-1)
    return {
        "mrr": sum(1 / r for r in ranks) / n,
        "top100": sum(1 for r in ranks if r <= 100) / n,
        "exact_memorization": sum(1 for r in ranks if r == 1) / n,
        "extraction_strength": 1 - (last_miss + 1) / n,
        "answer_probability": math.prod(probabilities) ** (1 / n),
    }


def _brute_force_extraction_strength(model, encoder: QAEncoder, encoded: EncodedQA) -> float:
    """The definition, run literally: the smallest k such that greedy decoding from
    prompt + answer[:k] generates exactly answer[k:]; ES = 1 - k/n."""
    answer = encoded.answer_ids[:-1]
    n = len(answer)
    for k in range(n + 1):
        rest = answer[k:]
        if not rest:
            return 1 - k / n                      # k = n: nothing left to reproduce
        prompt = torch.tensor([encoded.prompt_ids + answer[:k]])
        with torch.no_grad():
            out = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                                 max_new_tokens=len(rest), pad_token_id=encoder.pad_id,
                                 eos_token_id=encoder.eos_id)
        if out[0, prompt.shape[1]:].tolist() == rest:
            return 1 - k / n
    raise AssertionError("unreachable: k = n always succeeds")


# ------------------------------------------------------------------------------ ROUGE-1 recall

def test_rouge1_recall_stems_with_porter():
    # "running" and "runs" both stem to "run": 1 of 1 reference unigram matched.
    assert M.rouge1_recall("He runs every day", "running") == pytest.approx(1.0, abs=ABS)
    # Without stemming the same pair shares nothing, so the 1.0 above is the stemmer's doing.
    plain = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False)
    assert plain.score("running", "He runs every day")["rouge1"].recall == 0.0


def test_rouge1_is_recall_against_the_ground_truth_not_precision():
    # Reference "Paris" (1 unigram) fully present in a 6-word prediction: recall 1, precision 1/6.
    assert M.rouge1_recall("Paris is the capital of France", "Paris") == pytest.approx(1.0, abs=ABS)
    # Reference of 6 unigrams, prediction covers 1 of them: recall 1/6.
    assert M.rouge1_recall("Paris", "The capital of France is Paris") == pytest.approx(1 / 6, abs=ABS)
    # Repeated words are clipped: reference the,cat,and,the,dog; prediction the x3, cat;
    # matches min(2,3) "the" + 1 "cat" = 3 of 5.
    assert M.rouge1_recall("the the the cat", "the cat and the dog") == pytest.approx(3 / 5, abs=ABS)


def test_rouge1_ignores_punctuation_and_case():
    assert M.rouge1_recall("PARIS!!!", "Paris.") == pytest.approx(1.0, abs=ABS)
    # The date splits on "-" into 05, 03, 2019; the prediction has 05 and 2019: 2 of 3.
    assert M.rouge1_recall("on 05/11/2019", "05-03-2019") == pytest.approx(2 / 3, abs=ABS)


def test_rouge1_of_an_empty_or_wordless_prediction_is_zero():
    assert M.rouge1_recall("", "Jzrcws SA") == 0.0
    assert M.rouge1_recall("...", "Jzrcws SA") == 0.0


@pytest.mark.parametrize("prediction, reference", [
    ("It was signed on 05-03-2019.", "The contract was signed on 05-03-2019."),
    ("Twelve dollars a unit", "Twelve dollars per unit, paid monthly."),
    ("The laws of the State of Delaware apply", "Delaware law governs the agreement."),
])
def test_rouge1_matches_rouge_score_called_directly(prediction, reference):
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    expected = scorer.score(target=reference, prediction=prediction)["rouge1"].recall
    assert M.rouge1_recall(prediction, reference) == pytest.approx(expected, abs=ABS)


# ------------------------------------------------------------------------------ ranks and rank measures

def test_token_ranks_count_only_strictly_larger_scores():
    logits = torch.tensor([[1.0, 2.0, 2.0, 0.5],
                           [1.0, 2.0, 2.0, 0.5],
                           [1.0, 2.0, 2.0, 0.5],
                           [3.0, 3.0, 3.0, 3.0]])
    targets = torch.tensor([1, 0, 3, 2])
    # row 0: target 2.0, nothing larger (the other 2.0 is a tie) -> 1
    # row 1: target 1.0, two 2.0s larger -> 3
    # row 2: target 0.5, all three others larger -> 4
    # row 3: all tied -> 1
    assert M.token_ranks(logits, targets).tolist() == [1, 3, 4, 1]


def test_token_ranks_agree_with_sorting_on_random_scores_with_ties():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randint(0, 6, (50, 20), generator=generator).float()    # small integers: many ties
    targets = torch.randint(0, 20, (50,), generator=generator)
    expected = []
    for row, target in zip(logits.tolist(), targets.tolist()):
        ordered = sorted(row, reverse=True)
        # first place in descending order where the target's score appears, 1-based
        expected.append(ordered.index(row[target]) + 1)
    assert M.token_ranks(logits, targets).tolist() == expected


def test_mean_reciprocal_rank():
    # (1/1 + 1/2 + 1/4) / 3 = 1.75 / 3
    assert M.mean_reciprocal_rank(torch.tensor([1, 2, 4])) == pytest.approx(1.75 / 3, abs=ABS)
    assert M.mean_reciprocal_rank(torch.tensor([1, 1])) == pytest.approx(1.0, abs=ABS)
    assert M.mean_reciprocal_rank(torch.tensor([], dtype=torch.long)) == 0.0


def test_top_k_hit_counts_ranks_up_to_k():
    ranks = torch.tensor([1, 100, 101, 5000])
    assert M.top_k_hit(ranks) == pytest.approx(2 / 4, abs=ABS)          # default k = 100: 1 and 100
    assert M.top_k_hit(ranks, k=1) == pytest.approx(1 / 4, abs=ABS)
    assert M.top_k_hit(ranks, k=101) == pytest.approx(3 / 4, abs=ABS)
    assert M.top_k_hit(torch.tensor([], dtype=torch.long)) == 0.0


def test_exact_memorization_is_the_share_of_argmax_hits():
    assert M.exact_memorization(torch.tensor([1, 1, 2, 1])) == pytest.approx(3 / 4, abs=ABS)
    assert M.exact_memorization(torch.tensor([7, 2])) == 0.0
    assert M.exact_memorization(torch.tensor([], dtype=torch.long)) == 0.0


@pytest.mark.parametrize("ranks, expected", [
    ([1, 1, 1, 1], 1.0),             # k = 0: the prompt alone is enough
    ([1, 1, 1, 2], 0.0),             # last token missed: k = 4 = n
    ([3, 1, 1, 1], 1 - 1 / 4),       # only the first missed: k = 1
    ([1, 2, 1, 1, 1], 1 - 2 / 5),    # last miss at position 1: k = 2
    ([2, 1, 3, 1, 1], 1 - 3 / 5),    # two misses; the later one (position 2) decides: k = 3
    ([5], 0.0),
    ([1], 1.0),
])
def test_extraction_strength_from_ranks(ranks, expected):
    assert M.extraction_strength(torch.tensor(ranks)) == pytest.approx(expected, abs=ABS)


def test_extraction_strength_of_no_tokens_is_zero():
    assert M.extraction_strength(torch.tensor([], dtype=torch.long)) == 0.0


def test_answer_probability_is_the_geometric_mean():
    # P = 0.5 * 0.125 = 1/16 over 2 tokens: (1/16)^(1/2) = 0.25
    logprobs = torch.tensor([math.log(0.5), math.log(0.125)])
    assert M.answer_probability(logprobs) == pytest.approx(0.25, abs=ABS)
    # 0.2 * 0.4 * 0.8 = 0.064 = 0.4^3
    logprobs = torch.log(torch.tensor([0.2, 0.4, 0.8]))
    assert M.answer_probability(logprobs) == pytest.approx(0.4, abs=ABS)
    assert M.answer_probability(torch.tensor([])) == 0.0


# ------------------------------------------------------------------------------ deviation score

def test_deviation_score():
    assert M.deviation_score(0.0, 1.0) == pytest.approx(0.0, abs=ABS)                  # forgot all, kept all
    assert M.deviation_score(1.0, 0.0) == pytest.approx(100 * math.sqrt(2), abs=ABS)   # the worst
    # 100 * sqrt(0.3^2 + (1 - 0.6)^2) = 100 * sqrt(0.09 + 0.16) = 100 * 0.5
    assert M.deviation_score(0.3, 0.6) == pytest.approx(50.0, abs=ABS)
    # 100 * sqrt(0.6^2 + 0.8^2) = 100
    assert M.deviation_score(0.6, 0.2) == pytest.approx(100.0, abs=ABS)


# ------------------------------------------------------------------------------ registry

def test_unknown_metric_lists_the_valid_names():
    valid = ("answer_probability, deviation_score, exact_memorization, extraction_strength, mia_loss, mia_min_k, "
             "mia_min_k_pp, mia_zlib, mrr, rouge1, semantic_match, top100")
    with pytest.raises(ConfigError, match=re.escape(f"unknown metric 'rouge2'; valid: {valid}")):
        M.metric("rouge2")


def test_registry_says_what_each_measure_means():
    for name in ("rouge1", "mrr", "top100", "exact_memorization", "extraction_strength", "answer_probability"):
        m = M.metric(name)
        assert (m.name, m.higher_is_better, m.aggregate, m.knowledge) == (name, True, "mean", True)
    ds = M.metric("deviation_score")
    assert (ds.higher_is_better, ds.aggregate, ds.knowledge) == (False, "run", False)
    assert set(M.QA_MEASURES) == set(M.METRICS) - {"deviation_score", "semantic_match", "mia_loss", "mia_zlib",
                                                    "mia_min_k", "mia_min_k_pp"}
    judged = M.metric("semantic_match")
    assert (judged.input, judged.higher_is_better) == ("judge", True)


# ------------------------------------------------------------------------------ a run's summary rows

def test_summary_rows_print_in_order_with_their_direction():
    """One row per measure present, whatever the summary's order: the run's own measures, the
    checks' figures, their counts of forget edges back, the membership AUCs."""
    summary = {"mia_loss_auc_forget_after": 0.4, "resurfaced_int8": 1, "forget_edges_forgotten": 3,
               "forget_rouge1_nf4": 0.2, "utility_rouge1_after": 0.5, "forget_memorized_after": 2,
               "forget_qa_pairs": 9, "deviation_score": 40.0, "retain_rouge1_before": 0.9, "retain_rouge1_after": 0.8}
    rows = M.summary_rows(summary)
    assert [(r["measure"], r["better"]) for r in rows] == [
        ("retained ROUGE-1 (mean over the other edges' QA pairs)", "higher"),
        ("deviation score, 100*sqrt(forget^2 + (1 - retained)^2) (PISTOL)", "lower"),
        ("forget QA answers memorized (ROUGE-1 = 1 or judged equivalent), of 9", "lower"),
        ("utility ROUGE-1 (general QA outside the graph)", "higher"),
        ("forget ROUGE-1, weights rounded to 4-bit NF4", "lower"),
        ("forgotten forget edges back under int8 rounding, of 3", "lower"),
        ("membership AUC of the forget QA pairs, LOSS (0.5: like non-members; below: pushed past them)", "near 0.5")]
    assert (rows[0]["before"], rows[0]["after"], rows[0]["change"]) == (0.9, 0.8, pytest.approx(-0.1))
    assert (rows[1]["before"], rows[1]["after"], rows[1]["change"]) == (None, 40.0, None)   # no suffix: after


def test_docs_run_summary_table_is_generated_from_the_declarations():
    block = generated_block("metrics.md", "run-summary")
    assert block is not None, "docs/metrics.md lacks the run-summary markers"
    assert block == summary_markdown(), "regenerate with: python -m audit.measure.measures"


def test_summary_rows_leave_out_resurfacing_counts_of_nothing_forgotten():
    summary = {"forget_rouge1_before": 1.0, "forget_rouge1_after": 0.6, "forget_edges_forgotten": 0,
               "relearn_rouge1": 0.8, "relearn_control_rouge1": 0.7, "relearn_gain": 0.1,
               "resurfaced_relearn": 0, "resurfaced_relearn_control": 0}
    labels = [r["measure"] for r in M.summary_rows(summary)]
    assert labels == ["forget ROUGE-1 (mean over the forget edges' QA pairs)",
                      "forget ROUGE-1 after relearning on each edge's graph neighbours",
                      "forget ROUGE-1 after the control relearning (as many unrelated QA pairs)",
                      "neighbours minus control, forget ROUGE-1 (> 0: the graph's relations bring facts back)"]
    counted = M.summary_rows({**summary, "forget_edges_forgotten": 2, "resurfaced_relearn": 1})
    assert [(r["measure"], r["after"]) for r in counted[-2:]] == [
        ("forgotten forget edges back after relearning on their neighbours, of 2", 1),
        ("forgotten forget edges back after the control relearning, of 2", 0)]


def test_summary_rows_leave_out_the_figures_without_redundant_facts_when_there_is_none():
    summary = {"forget_rouge1_before": 1.0, "forget_rouge1_after": 0.444, "forget_rouge1_unique_before": 1.0,
               "forget_rouge1_unique_after": 0.444, "forget_memorized_unique_after": 3}
    assert [r["measure"] for r in M.summary_rows({**summary, "forget_edges_redundant": 0})] == [
        "forget ROUGE-1 (mean over the forget edges' QA pairs)"]
    assert len(M.summary_rows({**summary, "forget_edges_redundant": 2})) == 3


def test_a_utility_of_zero_before_and_after_says_why_on_a_scratch_model():
    zero = {"utility_rouge1_before": 0.0, "utility_rouge1_after": 0.0}
    note = "utility ROUGE-1 (general QA; a scratch model answers none: use a pretrained --model)"
    plain = "utility ROUGE-1 (general QA outside the graph)"
    assert [r["measure"] for r in M.summary_rows({**zero, "model": "scratch:tiny"})] == [note]
    assert [r["measure"] for r in M.summary_rows(zero)] == [plain]   # no model named: no claim about it
    assert [r["measure"] for r in M.summary_rows({**zero, "model": "./my-llama"})] == [plain]
    assert [r["measure"] for r in M.summary_rows({**zero, "utility_rouge1_after": 0.25})] == [plain]


# ------------------------------------------------------------------------------ batched evaluation

def test_generation_budget():
    def encoded(*answer_lengths):
        return [EncodedQA([1], [5] * n) for n in answer_lengths]
    assert E.max_new_tokens_for(encoded(3, 7)) == 7 + 16
    assert E.max_new_tokens_for(encoded(112)) == 128
    assert E.max_new_tokens_for(encoded(500)) == 128


def test_per_edge_is_the_mean_over_the_edge_qa_pairs():
    def score(edge, index, base):
        return E.QAScore(edge, index, "", {name: base + i for i, name in enumerate(M.QA_MEASURES)})
    scores = [score("g/A_B", 0, 0.0), score("g/B_C", 0, 10.0), score("g/A_B", 1, 1.0)]
    means = E.per_edge(scores)
    # A_B: measure i has values i and 1 + i -> mean i + 0.5; B_C: its single values 10 + i
    assert means == {"g/A_B": {name: pytest.approx(i + 0.5) for i, name in enumerate(M.QA_MEASURES)},
                     "g/B_C": {name: pytest.approx(10.0 + i) for i, name in enumerate(M.QA_MEASURES)}}


def test_evaluate_of_nothing_is_empty(tiny):
    assert E.evaluate(tiny.trained, tiny.encoder, []) == []


@pytest.mark.parametrize("which", ["random", "trained"])
def test_teacher_forced_scores_match_an_unbatched_reference(tiny, which):
    model = getattr(tiny, which)
    got = E.score_answers(model, tiny.encoder, tiny.encoded, batch_size=len(tiny.encoded))
    for encoded, values in zip(tiny.encoded, got):
        expected = _reference_scores(model, encoded)
        assert values == {name: pytest.approx(v, abs=ABS) for name, v in expected.items()}
    if which == "random":
        # The random model misses the top 100 for some answer tokens (vocabulary ~380), so the
        # top-100 comparison above is not only 1 == 1.
        assert any(v["top100"] < 1 for v in got)


def test_extraction_strength_equals_greedy_decoding_from_every_prefix(tiny):
    got = E.score_answers(tiny.trained, tiny.encoder, tiny.encoded, batch_size=len(tiny.encoded))
    brute = [_brute_force_extraction_strength(tiny.trained, tiny.encoder, e) for e in tiny.encoded]
    assert [v["extraction_strength"] for v in got] == pytest.approx(brute, abs=ABS)
    # Not vacuous: the partly trained model knows some answer only from a prefix on.
    assert any(0 < es < 1 for es in brute), brute


def test_batched_evaluate_equals_one_example_at_a_time(tiny):
    # The generation budget depends on the set (its longest answer), so both runs get the same one.
    budget = E.max_new_tokens_for(tiny.encoded)
    batched = E.evaluate(tiny.trained, tiny.encoder, tiny.examples, batch_size=len(tiny.examples),
                         max_new_tokens=budget)
    assert [(s.edge, s.index) for s in batched] == [(e.edge, e.index) for e in tiny.examples]
    for example, score in zip(tiny.examples, batched):
        [alone] = E.evaluate(tiny.trained, tiny.encoder, [example], batch_size=1, max_new_tokens=budget)
        assert score.generated == alone.generated
        assert score.values == {name: pytest.approx(v, abs=ABS) for name, v in alone.values.items()}
        assert set(score.values) == set(M.QA_MEASURES)
        # ROUGE-1 is the recall of the generated answer against the ground truth
        scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
        assert score.values["rouge1"] == pytest.approx(
            scorer.score(example.answer, score.generated)["rouge1"].recall, abs=ABS)
    # Not vacuous: at least one answer is generated right and one is not.
    assert {s.values["rouge1"] == 1.0 for s in batched} == {True, False}, [s.generated for s in batched]


@pytest.mark.parametrize("which", ["random", "trained"])
def test_left_padded_generation_answers_each_prompt_as_if_alone(tiny, which):
    # The random model's flat scores make its greedy choices sensitive to any leak of padding
    # into attention or positions; the trained one stops at end of sequence.
    model = getattr(tiny, which)
    prompts = [e.prompt_ids for e in tiny.encoded]
    assert len({len(p) for p in prompts}) == len(prompts)         # every row padded differently
    batched = E.generate_answers(model, tiny.encoder, prompts, max_new_tokens=24, batch_size=len(prompts))
    for prompt, answer in zip(prompts, batched):
        ids = torch.tensor([prompt])
        with torch.no_grad():
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                 max_new_tokens=24, pad_token_id=tiny.encoder.pad_id,
                                 eos_token_id=tiny.encoder.eos_id)[0, ids.shape[1]:].tolist()
        if tiny.encoder.eos_id in out:
            out = out[:out.index(tiny.encoder.eos_id)]
        assert answer == tiny.encoder.tokenizer.decode(out, skip_special_tokens=True).strip()
