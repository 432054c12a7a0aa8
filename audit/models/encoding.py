"""QA pairs into token ids: the versioned prompt format, answer-only labels, padding.

The prompt and the answer are tokenized separately and concatenated, so the boundary between
them is exact whatever the tokenizer merges, and labels cover the answer tokens (and the
end-of-sequence token) only: ``-100`` elsewhere, as Hugging Face losses expect.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

import torch

IGNORE = -100


def _load_prompt_format() -> dict:
    return json.loads(resources.files("audit").joinpath("data/qa_prompt.v1.json").read_text("utf-8"))


PROMPT_FORMAT = _load_prompt_format()
PROMPT_VERSION: str = PROMPT_FORMAT["version"]


@dataclass
class EncodedQA:
    prompt_ids: list[int]
    answer_ids: list[int]     # includes the end-of-sequence token


class QAEncoder:
    """Turns (question, answer) into token ids for one tokenizer, chat template or not."""

    def __init__(self, tokenizer, use_chat_template: bool | None = None):
        self.tokenizer = tokenizer
        has_template = bool(getattr(tokenizer, "chat_template", None))
        self.chat = has_template if use_chat_template is None else (use_chat_template and has_template)
        self.eos_id = tokenizer.eos_token_id
        self.pad_id = tokenizer.pad_token_id

    def prompt_ids(self, question: str) -> list[int]:
        if self.chat:
            messages = [{"role": "user", "content": question}]
            system = PROMPT_FORMAT["chat"]["system"]
            if system:
                messages.insert(0, {"role": "system", "content": system})
            text = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            return self.tokenizer(text, add_special_tokens=False)["input_ids"]
        text = PROMPT_FORMAT["plain"]["prompt"].format(question=question)
        return self.tokenizer(text, add_special_tokens=True)["input_ids"]

    def answer_ids(self, answer: str) -> list[int]:
        template = PROMPT_FORMAT["chat" if self.chat else "plain"]["answer"]
        ids = self.tokenizer(template.format(answer=answer), add_special_tokens=False)["input_ids"]
        return ids + [self.eos_id]

    def encode(self, question: str, answer: str) -> EncodedQA:
        return EncodedQA(self.prompt_ids(question), self.answer_ids(answer))

    def encode_text(self, text: str) -> EncodedQA:
        """Plain text (a passage, a canary sentence), with no prompt format: every token is
        trained on. The beginning-of-sequence token, when the tokenizer adds one, is the prompt."""
        bos = [self.tokenizer.bos_token_id] if self._adds_bos else []
        return EncodedQA(bos, self.tokenizer(text, add_special_tokens=False)["input_ids"] + [self.eos_id])

    @functools.cached_property
    def _adds_bos(self) -> bool:
        """Whether the tokenizer starts a sequence with its beginning token (asked once)."""
        bos = self.tokenizer.bos_token_id
        return bos is not None and self.tokenizer("a", add_special_tokens=True)["input_ids"][:1] == [bos]

    def chunk_text(self, text: str, max_tokens: int) -> list[str]:
        """``text`` cut into pieces of at most ``max_tokens`` tokens each, at token boundaries
        (whitespace between pieces is dropped). A text that fits is returned whole."""
        ids = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = ids["offset_mapping"]
        if len(offsets) <= max_tokens:
            return [text]
        pieces, start = [], 0
        while start < len(offsets):
            end = min(start + max_tokens, len(offsets))
            while True:   # re-tokenized on its own, a piece can merge differently: shrink until it fits
                piece = text[offsets[start][0]:offsets[end - 1][1]].strip()
                if end - start <= 1 or len(self.tokenizer(piece, add_special_tokens=False)["input_ids"]) <= max_tokens:
                    break
                end -= 1
            if piece:
                pieces.append(piece)
            start = end
        return pieces


def collate_train(items: list[EncodedQA], pad_id: int) -> dict[str, torch.Tensor]:
    """Left-padded prompt+answer with answer-only labels, for losses and teacher forcing: the
    answers end every row, so the output layer runs on the batch's answer tail only
    (``audit.models.logits``, which also gives every row its own positions from 0)."""
    length = max(len(i.prompt_ids) + len(i.answer_ids) for i in items)
    input_ids = torch.full((len(items), length), pad_id, dtype=torch.long)
    labels = torch.full((len(items), length), IGNORE, dtype=torch.long)
    attention = torch.zeros((len(items), length), dtype=torch.long)
    for row, item in enumerate(items):
        ids = item.prompt_ids + item.answer_ids
        input_ids[row, length - len(ids):] = torch.tensor(ids)
        labels[row, length - len(item.answer_ids):] = torch.tensor(item.answer_ids)
        attention[row, length - len(ids):] = 1
    return {"input_ids": input_ids, "attention_mask": attention, "labels": labels}


def collate_prompts(prompts: list[list[int]], pad_id: int) -> dict[str, torch.Tensor]:
    """Left-padded prompts for batched generation: every row's last token is its real end."""
    length = max(len(p) for p in prompts)
    input_ids = torch.full((len(prompts), length), pad_id, dtype=torch.long)
    attention = torch.zeros((len(prompts), length), dtype=torch.long)
    for row, ids in enumerate(prompts):
        input_ids[row, length - len(ids):] = torch.tensor(ids)
        attention[row, length - len(ids):] = 1
    return {"input_ids": input_ids, "attention_mask": attention}
