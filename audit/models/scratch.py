"""`--model scratch[:SIZE]`: a small Llama-architecture model built from a config, with a
byte-level BPE tokenizer trained on the graph's QA text, saved as an ordinary Hugging Face
model folder (``config.json``, ``model.safetensors``, ``tokenizer.json``).

Our machines cannot download weights, so tests and the demo use these; ``base`` (~100M
parameters) is for GPU experiments. The weights are random: knowledge injection (full
training) is what makes the model know the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from audit.config import SIZES

PAD, BOS, EOS = "<pad>", "<s>", "</s>"


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """Byte-level BPE trained on ``texts``: every string is encodable, nothing is <unk>."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[PAD, BOS, EOS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer=trainer)
    bos = tokenizer.token_to_id(BOS)
    tokenizer.post_processor = processors.TemplateProcessing(single=f"{BOS} $A", special_tokens=[(BOS, bos)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token=BOS, eos_token=EOS, pad_token=PAD)


def build_scratch(size: str, texts: list[str], out_dir: Path, seed: int) -> Path:
    """Train the tokenizer, build a randomly initialised model of ``size``, save both."""
    from audit.models.load import quiet_transformers

    quiet_transformers()
    spec = SIZES[size]
    tokenizer = train_tokenizer(texts, spec.vocab_size)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=spec.hidden_size, intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.layers, num_attention_heads=spec.heads, num_key_value_heads=spec.heads,
        max_position_embeddings=spec.max_positions, tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir
