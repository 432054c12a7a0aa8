"""REBEL extraction: the parser on hand-recorded outputs, chunking with a real tokenizer, and
end to end on a tiny real BART model (one left untrained, one trained in seconds to write
known linearizations)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
from transformers import (
    BartConfig,
    BartForConditionalGeneration,
    LlamaConfig,
    PreTrainedTokenizerFast,
)

from extract.text.rebel import (
    ParsedOutput,
    RebelExtractor,
    parse_rebel_output,
    parse_rebel_sequence,
    split_into_chunks,
)
from extract.text.units import Passage, Triple
from graphstore.errors import AuditError, ConfigError, InputDataError

RECORDED = json.loads((Path(__file__).resolve().parents[2] / "data" / "rebel" / "recorded_outputs.json").read_text("utf-8"))

# What the trained tiny model learns to write for each sentence.
TRAINING = {
    "Ada was born in London.": "<triplet> Ada <subj> London <obj> place of birth",
    "Ada played chess.": "<triplet> Ada <subj> chess <obj> sport",             # label not mapped
    "Ada married Ada.": "<triplet> Ada <subj> Ada <obj> spouse",                # head == tail
    "Charles lived there.": "<triplet> Charles <subj> London",                  # no <obj>: malformed
    "Charles met Ada twice.": "<triplet> Charles <subj> Ada <obj> spouse <subj> Ada <obj> spouse",
}
RELATIONS = {"place of birth": "P19", "spouse": "P26"}


# --------------------------------------------------------------------------- parser


@pytest.mark.parametrize("case", RECORDED, ids=[c["name"] for c in RECORDED])
def test_parser_on_recorded_outputs(case):
    parsed = parse_rebel_sequence(case["sequence"])
    expected = tuple(tuple(t) for t in case["triples"])
    assert parsed == ParsedOutput(expected, case["malformed"], case["ends_complete"])
    assert parse_rebel_output(case["sequence"]) == list(expected)


def test_parser_takes_other_frame_tokens():
    text = "[CLS]<triplet> Ada <subj> London <obj> place of birth[SEP][PAD]"
    assert parse_rebel_sequence(text, frame_tokens=("[CLS]", "[SEP]", "[PAD]")).triples == (
        ("Ada", "place of birth", "London"),)


# --------------------------------------------------------------------------- tokenizer, models


def word_tokenizer(texts: list[str], markers: bool = True) -> PreTrainedTokenizerFast:
    """One token per word and per punctuation run, framed ``<s> … </s>``: token counts by hand."""
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(texts, trainers.WordLevelTrainer(
        special_tokens=["<s>", "<pad>", "</s>", "<unk>"], show_progress=False))
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="<unk>")
    if markers:
        fast.add_tokens(["<triplet>", "<subj>", "<obj>"], special_tokens=True)  # REBEL's markers
    return fast


def tiny_bart(tokenizer) -> BartForConditionalGeneration:
    config = BartConfig(
        vocab_size=len(tokenizer), d_model=32, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
        max_position_embeddings=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, decoder_start_token_id=tokenizer.eos_token_id,
    )
    return BartForConditionalGeneration(config)


def memorize(model, tokenizer, pairs: dict[str, str], steps: int = 200) -> None:
    """Overfit the model on ``pairs`` until it writes each target for its source."""
    sources = tokenizer(list(pairs), padding=True, return_tensors="pt")
    labels = tokenizer(list(pairs.values()), padding=True, return_tensors="pt")["input_ids"]
    labels[labels == tokenizer.pad_token_id] = -100
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(steps):
        loss = model(**sources, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if loss.item() < 1e-2:  # each target token then has probability ~0.99
            break
    model.eval()


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Models this small run faster on one thread; two fight each other on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tokenizer():
    return word_tokenizer(list(TRAINING) + list(TRAINING.values()))


@pytest.fixture(scope="module")
def untrained_folder(tmp_path_factory, tokenizer) -> Path:
    folder = tmp_path_factory.mktemp("rebel-untrained")
    torch.manual_seed(1)
    tiny_bart(tokenizer).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def trained_folder(tmp_path_factory, tokenizer) -> Path:
    folder = tmp_path_factory.mktemp("rebel-trained")
    torch.manual_seed(0)
    model = tiny_bart(tokenizer)
    memorize(model, tokenizer, TRAINING)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def passage(text: str, sentences=(), key: str = "g/forget/bio/0/0") -> Passage:
    return Passage(key=key, split="forget", path="bio.jsonl", document=0, position=0,
                   start=0, end=len(text), text=text, sentences=tuple(sentences))


def sentence_offsets(text: str, sentences: list[str]) -> list[tuple[int, int]]:
    offsets, at = [], 0
    for sentence in sentences:
        start = text.index(sentence, at)
        offsets.append((start, start + len(sentence)))
        at = start + len(sentence)
    return offsets


# --------------------------------------------------------------------------- chunking

# Token counts by hand (a word or a run of punctuation is one token; <s> and </s> add two):
SENTENCES = [
    "Ada was born in London.",                                   # 6
    "She studied mathematics.",                                  # 4
    "Charles Babbage designed the Analytical Engine in London.",  # 9
    "Ada wrote notes.",                                          # 4
]


def test_chunks_pack_whole_sentences_within_the_limit(tokenizer):
    text = "  ".join(SENTENCES) + " "
    chunks = split_into_chunks(passage(text, sentence_offsets(text, SENTENCES)), tokenizer, max_tokens=14)
    # Room for 12 tokens: 6 + 4 fit, + 9 does not; 9 alone, + 4 does not; 4 alone.
    assert [c.text for c in chunks] == [
        "Ada was born in London.  She studied mathematics.",
        "Charles Babbage designed the Analytical Engine in London.",
        "Ada wrote notes.",
    ]
    assert all(text[c.start:c.end] == c.text for c in chunks)


def test_a_long_sentence_is_cut_by_tokens(tokenizer):
    words = [f"w{i}" for i in range(30)]
    long_sentence = " ".join(words) + "."                        # 31 tokens
    text = f"Ada wrote notes. {long_sentence} She studied mathematics."
    sentences = ["Ada wrote notes.", long_sentence, "She studied mathematics."]
    chunks = split_into_chunks(passage(text, sentence_offsets(text, sentences)), tokenizer, max_tokens=14)
    assert [c.text for c in chunks] == [
        "Ada wrote notes.",
        " ".join(words[:12]), " ".join(words[12:24]), " ".join(words[24:]) + ".",
        "She studied mathematics.",
    ]


def test_chunks_cover_every_sentence_in_order_and_never_exceed_the_limit(tokenizer):
    pool = SENTENCES + [" ".join(f"x{i}" for i in range(n)) + "." for n in (3, 25, 1, 40)]
    sentences = [pool[(7 * i) % len(pool)] for i in range(20)]
    text = " ".join(sentences)
    offsets = sentence_offsets(text, sentences)
    for limit in (5, 9, 16, 40, 256):
        chunks = split_into_chunks(passage(text, offsets), tokenizer, max_tokens=limit)
        assert all(len(tokenizer(c.text)["input_ids"]) <= limit for c in chunks)
        assert all(a.end <= b.start for a, b in pairwise(chunks))
        # In order, nothing lost, nothing twice: only the spaces at cuts may fall out.
        assert "".join("".join(c.text for c in chunks).split()) == "".join(text.split())


def test_no_sentence_offsets_means_one_sentence(tokenizer):
    text = "Ada was born in London. She studied mathematics."           # 10 tokens
    assert [c.text for c in split_into_chunks(passage(text), tokenizer, max_tokens=12)] == [text]
    assert [c.text for c in split_into_chunks(passage(text), tokenizer, max_tokens=9)] == [
        "Ada was born in London. She", "studied mathematics."]


def test_bad_sentence_offsets_name_the_passage(tokenizer):
    with pytest.raises(InputDataError, match=r"bio.jsonl, record 0: passage g/forget/bio/0/0: sentence offsets \(5, 90\)"):
        split_into_chunks(passage("Ada wrote notes.", [(5, 90)]), tokenizer)


def test_a_limit_without_room_for_text_is_refused(tokenizer):
    with pytest.raises(ConfigError, match="max input tokens 2 leaves no room"):
        split_into_chunks(passage("Ada wrote notes."), tokenizer, max_tokens=2)


# --------------------------------------------------------------------------- end to end


def test_trained_tiny_model_end_to_end(trained_folder):
    extractor = RebelExtractor(str(trained_folder), RELATIONS, device="cpu", batch_size=2, max_output_tokens=20,
                               max_input_tokens=9)
    sentences = list(TRAINING)
    text = " ".join(sentences)
    first = passage(text, sentence_offsets(text, sentences))
    second = passage("Ada was born in London.", key="g/forget/bio/1/0")
    triples = extractor.extract_passages([first, second])
    def at(text: str, evidence: str) -> dict:  # the evidence's span: each chunk is one sentence here
        return {"evidence": evidence, "start": text.index(evidence), "end": text.index(evidence) + len(evidence)}

    assert triples == [
        Triple("Ada", "P19", "London", first.key, "rebel", **at(text, "Ada was born in London.")),
        Triple("Charles", "P26", "Ada", first.key, "rebel", **at(text, "Charles met Ada twice.")),
        Triple("Ada", "P19", "London", second.key, "rebel", **at(second.text, "Ada was born in London.")),
    ]
    stats = extractor.stats
    assert (stats.passages, stats.chunks, stats.triples) == (2, 6, 3)
    assert (stats.unknown_relations, dict(stats.unknown_labels)) == (1, {"sport": 1})
    assert (stats.malformed_fragments, stats.degenerate, stats.duplicates, stats.truncated) == (1, 1, 1, 0)


def test_a_sequence_cut_by_the_output_limit_loses_its_last_triple(trained_folder):
    # <s> <triplet> Ada <subj> London <obj> place of </s>: 9 new tokens, the last one an end
    # that BART forces at the limit; the label lost "birth" but would still be a known label.
    extractor = RebelExtractor(str(trained_folder), {"place of": "P19"}, device="cpu", max_output_tokens=9)
    assert extractor.extract_passages([passage("Ada was born in London.")]) == []
    assert (extractor.stats.truncated, extractor.stats.unknown_relations) == (1, 0)


def test_untrained_model_output_is_filtered_not_fatal(untrained_folder):
    allowed = {"Ada": "P1", "London": "P2", "place of birth": "P19"}
    extractor = RebelExtractor(str(untrained_folder), allowed, batch_size=3, num_beams=2, max_output_tokens=24,
                               max_input_tokens=12)
    triples = extractor.extract_passages([passage(s, key=f"g/forget/bio/{i}/0") for i, s in enumerate(TRAINING)])
    assert all(t.relation in allowed.values() and t.extractor == "rebel" for t in triples)
    assert extractor.stats.chunks == len(TRAINING)


# --------------------------------------------------------------------------- refusals


def test_missing_model_folder_is_a_config_error_naming_it(tmp_path):
    missing = tmp_path / "no-such-rebel"
    with pytest.raises(ConfigError, match=f"model folder '{missing}' does not exist"):
        RebelExtractor(str(missing), RELATIONS)


def test_a_folder_without_a_model_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=f"model '{tmp_path}' could not be loaded: the folder holds no usable config.json"):
        RebelExtractor(str(tmp_path), RELATIONS)


def test_a_causal_model_is_not_taken_for_rebel(tmp_path):
    LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                num_attention_heads=2).save_pretrained(tmp_path)
    with pytest.raises(ConfigError, match="is a 'llama' model, not a sequence-to-sequence"):
        RebelExtractor(str(tmp_path), RELATIONS)


def test_a_tokenizer_without_rebel_markers_is_refused(tmp_path):
    plain = word_tokenizer(["Ada was born in London."], markers=False)
    tiny_bart(plain).save_pretrained(tmp_path)
    plain.save_pretrained(tmp_path)
    with pytest.raises(ConfigError, match="lacks REBEL's marker tokens <triplet>, <subj>, <obj>"):
        RebelExtractor(str(tmp_path), RELATIONS)


@pytest.mark.parametrize("options, message", [
    ({"num_beams": 0}, "REBEL num beams must be a whole number of at least 1, got 0"),
    ({"batch_size": True}, "REBEL batch size must be a whole number of at least 1, got True"),
])
def test_bad_options_are_refused_before_loading(tmp_path, options, message):
    with pytest.raises(ConfigError, match=message):
        RebelExtractor(str(tmp_path / "never-read"), RELATIONS, **options)


def test_an_empty_relation_mapping_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="relation mapping is empty"):
        RebelExtractor(str(tmp_path), {})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error when no GPU is visible")
def test_cuda_without_a_gpu_is_a_config_error(untrained_folder):
    with pytest.raises(ConfigError, match="device 'cuda': no CUDA device is visible"):
        RebelExtractor(str(untrained_folder), RELATIONS, device="cuda")


def test_every_refusal_is_an_audit_error():
    assert issubclass(ConfigError, AuditError) and issubclass(InputDataError, AuditError)


# --------------------------------------------------------------------------- a build


def test_a_build_batches_chunks_across_documents(trained_folder, tmp_path, monkeypatch):
    """A news article is a few passages: batching within one document would leave a GPU
    batch mostly empty. The build pools the passages of several documents, and still resolves
    short mentions within each document."""
    from extract.text.graph import extract_corpora, read_corpora
    from extract.text.options import TextBuildOptions
    from extract.text.normalize import rebel_relation_ids, resolve_short_mentions

    documents = list(TRAINING)  # one sentence, one passage, one chunk each
    corpus = tmp_path / "bio.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in documents), "utf-8")
    batches = []
    generate = RebelExtractor._generate
    monkeypatch.setattr(RebelExtractor, "_generate", lambda self, texts: batches.append(len(texts)) or generate(self, texts))
    options = TextBuildOptions(extractor="rebel", rebel_model=str(trained_folder), rebel_device="cpu",
                               rebel_batch_size=2)
    built = extract_corpora("g", read_corpora([corpus], [], options), options)

    assert batches == [2, 2, 1]                       # not [1, 1, 1, 1, 1]: one batch a document
    one_by_one = RebelExtractor(str(trained_folder), rebel_relation_ids(), device="cpu", batch_size=2)
    expected = [t for p in built.passages for t in resolve_short_mentions(one_by_one.extract_passages([p]))]
    assert built.triples == expected
    assert {(t.head, t.relation, t.tail) for t in built.triples} == {
        ("Ada", "P19", "London"), ("Ada", "P641", "chess"), ("Charles", "P26", "Ada")}
    assert [p.document for p in built.passages] == list(range(len(documents)))
