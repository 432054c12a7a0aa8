"""Model loading and QA encoding on real (tiny, scratch-built) Hugging Face folders."""

from __future__ import annotations

import json

import pytest
import torch

from audit.models.encoding import IGNORE, QAEncoder, collate_prompts, collate_train
from audit.models.load import check_model_path, load_model, load_tokenizer, select_hardware
from audit.config import parse_scratch
from audit.models.scratch import build_scratch
from graphstore.errors import ConfigError

TEXTS = ["Question: Who sold the goods to Acme Ltd?\nAnswer: Zeta Corp.", "Question: When?\nAnswer: 01-02-2003."] * 20


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return build_scratch("tiny", TEXTS, tmp_path_factory.mktemp("scratch") / "model", seed=0)


def test_scratch_folder_is_an_ordinary_model_folder(folder):
    assert (folder / "config.json").exists() and (folder / "model.safetensors").exists()
    assert (folder / "tokenizer.json").exists()
    model = load_model(str(folder), select_hardware("cpu"))
    assert type(model).__name__ == "LlamaForCausalLM" and model.dtype == torch.float32


def test_scratch_sizes():
    assert parse_scratch("scratch") == "tiny" and parse_scratch("scratch:base") == "base"
    assert parse_scratch("./models/llama") is None
    with pytest.raises(ConfigError, match="unknown scratch size 'xl'; valid: tiny, small, base"):
        parse_scratch("scratch:xl")


def test_a_tokenizer_without_pad_token_pads_with_eos(folder, tmp_path):
    tokenizer = load_tokenizer(str(folder))
    tokenizer.pad_token = None
    tokenizer.save_pretrained(tmp_path)
    reloaded = load_tokenizer(str(tmp_path))
    assert reloaded.pad_token_id == reloaded.eos_token_id is not None


def test_missing_model_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="model folder .* does not exist; give a Hugging Face model folder"):
        load_model(str(tmp_path / "nope"), select_hardware("cpu"))


CHOICES = ("a folder written by save_pretrained, a hub id, a .gguf file, "
           "a model package (audit models) or scratch[:SIZE]")


def test_a_folder_without_config_json_is_not_a_model_folder(tmp_path):
    (tmp_path / "weights.bin").write_bytes(b"\0")
    with pytest.raises(ConfigError) as refused:
        check_model_path(str(tmp_path))
    assert str(refused.value) == (f"--model {tmp_path}: no config.json there, so not a Hugging Face model folder; "
                                  f"give {CHOICES}")
    with pytest.raises(ConfigError) as refused:
        check_model_path(str(tmp_path / "weights.bin"))
    assert str(refused.value) == f"--model {tmp_path / 'weights.bin'}: a file, not a model folder; give {CHOICES}"


def test_a_model_folder_without_a_tokenizer_says_so(folder, tmp_path):
    # transformers blames a missing sentencepiece package for this; the cause is the missing files
    (tmp_path / "config.json").write_bytes((folder / "config.json").read_bytes())
    with pytest.raises(ConfigError) as refused:
        load_tokenizer(str(tmp_path))
    assert str(refused.value) == (f"cannot load a tokenizer from {tmp_path}: the folder has none of tokenizer.json, "
                                  "tokenizer.model, vocab.json, vocab.txt, spiece.model; save the tokenizer beside "
                                  "the model (tokenizer.save_pretrained(folder))")
    (tmp_path / "tokenizer.json").write_text("{not json", encoding="utf-8")   # a broken one: its first sentence
    with pytest.raises(ConfigError) as refused:
        load_tokenizer(str(tmp_path))
    message = str(refused.value)
    assert message.startswith(f"cannot load a tokenizer from {tmp_path}: ") and len(message) < 300
    assert message.endswith(". Give a Hugging Face model folder (with tokenizer.json or tokenizer.model) or a hub id")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without CUDA")
def test_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(ConfigError, match="--device cuda: no CUDA device is visible to torch"):
        select_hardware("cuda")


def test_labels_cover_the_answer_and_eos_only(folder):
    tokenizer = load_tokenizer(str(folder))
    encoder = QAEncoder(tokenizer)
    item = encoder.encode("When?", "01-02-2003.")
    # by hand: the prompt is the plain v1 format, the answer is " " + answer, then </s>
    assert tokenizer.decode(item.prompt_ids, skip_special_tokens=True) == "Question: When?\nAnswer:"
    assert tokenizer.decode(item.answer_ids[:-1]) == " 01-02-2003." and item.answer_ids[-1] == tokenizer.eos_token_id
    batch = collate_train([item, encoder.encode("Who sold the goods to Acme Ltd?", "Zeta Corp.")], tokenizer.pad_token_id)
    row = batch["labels"][0]   # the shorter row: padded on the left, its answer at the end
    n_prompt, n_answer = len(item.prompt_ids), len(item.answer_ids)
    assert row[-n_answer:].tolist() == item.answer_ids and (row[:-n_answer] == IGNORE).all()
    assert batch["input_ids"][0, -(n_prompt + n_answer):].tolist() == item.prompt_ids + item.answer_ids
    assert batch["attention_mask"][0].sum() == n_prompt + n_answer
    assert batch["attention_mask"][0, -(n_prompt + n_answer):].all()


def test_prompts_are_left_padded():
    batch = collate_prompts([[5, 6, 7], [8]], pad_id=0)
    assert batch["input_ids"].tolist() == [[5, 6, 7], [0, 0, 8]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [0, 0, 1]]


def test_a_chat_template_is_used_when_the_tokenizer_has_one(folder):
    tokenizer = load_tokenizer(str(folder))
    tokenizer.chat_template = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                               "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    encoder = QAEncoder(tokenizer)
    assert encoder.chat
    item = encoder.encode("When?", "01-02-2003.")
    assert tokenizer.decode(item.prompt_ids) == "<|user|>When?\n<|assistant|>"
    assert tokenizer.decode(item.answer_ids[:-1]) == "01-02-2003."
    assert not QAEncoder(tokenizer, use_chat_template=False).chat


def test_model_width_is_a_scratch_sizes_or_its_config_json(tmp_path):
    from audit.models.defaults import model_width

    narrow, wide = tmp_path / "narrow", tmp_path / "wide"
    for folder, config in ((narrow, {"hidden_size": 96}), (wide, {"n_embd": 4096})):
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config))
    assert model_width("scratch:small") == 256 and model_width(str(narrow)) == 96 and model_width(str(wide)) == 4096
    assert model_width("meta-llama/Llama-2-7b-hf") is None          # a hub id: not readable here


# -- threads under load --------------------------------------------------------------------------
def cpu_name() -> str:
    """The CPU's model, read here apart from audit.models.load: /proc/cpuinfo's first ``model name``."""
    import platform
    import re

    try:
        text = open("/proc/cpuinfo", encoding="utf-8", errors="replace").read()
    except OSError:
        text = ""
    found = re.search(r"^model name\s*:\s*(.+?)\s*$", text, re.M)
    return found.group(1) if found else (platform.processor() or platform.machine() or "unknown CPU")


def test_threads_are_the_cores_the_load_leaves_free():
    from audit.models.load import cpu_threads
    assert cpu_threads(cores=2, load=0.3) == 2      # a quiet machine: every core
    assert cpu_threads(cores=2, load=1.1) == 1      # one core busy elsewhere
    assert cpu_threads(cores=2, load=9.0) == 1      # never fewer than one
    assert cpu_threads(cores=16, load=4.2) == 12
    assert cpu_threads(cores=4, load=0.0) == 4


def test_audit_threads_and_omp_num_threads_are_honoured(tmp_path):
    import subprocess
    import sys
    script = """
import os, torch
from audit.models import load
ABOVE = os.cpu_count() + 1
from graphstore.errors import ConfigError
def chosen(**env):
    for k in ("AUDIT_THREADS", "OMP_NUM_THREADS"):
        os.environ.pop(k, None)
    os.environ.update(env)
    load._threads_set = False
    torch.set_num_threads(ABOVE)   # more than any choice by the load: kept only when nothing chose
    try:
        load.select_hardware("cpu")
    except ConfigError as e:
        return str(e)
    return torch.get_num_threads()
print(chosen(AUDIT_THREADS="1"), chosen(OMP_NUM_THREADS="3"), chosen(AUDIT_THREADS="x"), chosen(AUDIT_THREADS="²"),
      sep="|")
os.environ.pop("AUDIT_THREADS")
print(load.select_hardware("cpu").label)   # a refused value chose nothing: this call chooses by the load
"""
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("AUDIT_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True).stdout
    first, label = out.strip().splitlines()
    above = __import__("os").cpu_count() + 1
    refused = "AUDIT_THREADS={!r}: expected a whole number of threads, 1 or more"
    assert first == f"1|{above}|{refused.format('x')}|{refused.format('²')}"
    # the run records the thread count it trained with: chosen by the load now, so at most the cores
    threads = int(label.removeprefix("cpu, ").split(" ")[0])
    assert label == f"cpu, {threads} thread(s), {cpu_name()} (float32)" and 1 <= threads < above
