"""Proof that the memorization measure works, on facts we control.

Pretrained models cannot be loaded here, so the check builds its own ground truth: synthetic
people (``audit generate wikidata``) are built into a graph; a scratch causal LM is trained on
sentences about half of them (the "injected" subjects); the measure must then tell the
injected facts from the others. Reported: the AUROC of the strength z* (injected facts
positive), and the rank-1 (memorized) rate and strict/lenient rates of both groups.

Used by ``tests/audit/measure/test_memorization.py`` (small, CPU) and ``bench/bench_memorization.py``
(larger, GPU when lent).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import torch

from audit.measure.memorization.canaries import Subject, subjects_from_rows
from audit.config import SIZES
from audit.models.load import Hardware, load_tokenizer, quiet_transformers
from audit.questions.properties import PropertyRegistry, fill
from audit.models.scratch import build_scratch
from audit.models.training import optimizer_and_schedule, seed_everything
from graphstore.progress import Progress


def subjects_from_record(record, properties=()) -> dict[str, Subject]:
    """The subjects of a Wikidata ``GraphRecord`` (as ``extract.wikidata.read.read_wikidata`` returns
    it, before it is written), with the facts of ``properties`` only when given."""
    return subjects_from_rows(
        {"key": f.key, "subject": f.attributes["subject"], "subject_key": f.head,
         "subject_name": f.attributes["subject_name"], "pid": f.relation,
         "property_label": f.attributes["property_label"], "value": f.attributes["value"],
         "value_type": f.attributes["value_type"], "precision": f.attributes.get("value_precision")}
        for f in record.facts if not properties or f.relation in properties)


def split_subjects(subjects: dict[str, Subject]) -> tuple[list[str], list[str]]:
    """Every other subject in Q-id order is injected (the first, third, ...), the rest not.

    The synthetic people are random already; a fixed rule lets a demo or a user name an
    injected subject without reading the split (the first subject always is one)."""
    qids = sorted(subjects, key=lambda q: (len(q), q))
    return qids[0::2], qids[1::2]


def training_sentences(registry: PropertyRegistry, subjects: dict[str, Subject], qids: list[str],
                       paraphrases: int) -> list[str]:
    """Every fact of ``qids`` in its base sentence and the first ``paraphrases`` paraphrases.

    The measure also reads the held-out paraphrases and contextualized variants, so a model that
    only learned a string by rote would not rank well on those."""
    out = []
    for q in qids:
        s = subjects[q]
        for pid, values in sorted(s.facts.items()):
            spec = registry.get(pid, s.property_labels.get(pid))
            for template in spec.templates[:1 + paraphrases]:
                out += [fill(template, s.name, v.text, v.preposition) for v in values]
    return out


@dataclass(frozen=True)
class TrainSettings:
    size: str = "tiny"
    epochs: int = 40
    lr: float = 3e-3
    batch_size: int = 32
    seed: int = 0


def train_sentence_model(sentences: list[str], tokenizer_texts: list[str], out_dir: Path, hardware: Hardware,
                         settings: TrainSettings = TrainSettings()) -> Path:
    """A scratch Llama trained (full training, next-token loss) on ``sentences``, saved as an
    ordinary Hugging Face model folder. The tokenizer is trained on ``tokenizer_texts`` (all the
    subjects' sentences: every name must be encodable, and a tokenizer learns no associations)."""
    from transformers import AutoModelForCausalLM

    quiet_transformers()
    seed_everything(settings.seed)
    build_scratch(settings.size, tokenizer_texts, out_dir, settings.seed)
    tokenizer = load_tokenizer(str(out_dir))
    # transformers wraps `to` with functools.wraps, which mypy types unbound (the model as first argument)
    model = AutoModelForCausalLM.from_pretrained(out_dir).to(hardware.device)  # type: ignore[arg-type]
    encoded = [[tokenizer.bos_token_id] + tokenizer(s, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
               for s in sentences]
    steps = -(-len(encoded) // settings.batch_size)
    optimizer, schedule = optimizer_and_schedule(model.parameters(), settings.lr, 0.0, warmup_steps=steps,
                                                 total_steps=steps * settings.epochs)
    rng = random.Random(settings.seed)
    model.train()
    bar = Progress("train on sentences", total=settings.epochs, unit="epochs")
    for _ in range(settings.epochs):
        order = list(range(len(encoded)))
        rng.shuffle(order)
        for start in range(0, len(order), settings.batch_size):
            batch = [encoded[i] for i in order[start:start + settings.batch_size]]
            length = max(map(len, batch))
            ids = torch.full((len(batch), length), tokenizer.pad_token_id, dtype=torch.long)
            labels = torch.full((len(batch), length), -100, dtype=torch.long)
            for row, seq in enumerate(batch):
                ids[row, :len(seq)] = torch.tensor(seq)
                labels[row, :len(seq)] = torch.tensor(seq)
            attention = (labels != -100).long()
            loss = model(input_ids=ids.to(hardware.device), attention_mask=attention.to(hardware.device),
                         labels=labels.to(hardware.device)).loss
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
        bar.update(1, loss=f"{loss.item():.3f}")
    bar.close()
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def auroc(positive: list[float], negative: list[float]) -> float:
    """Probability that a random positive scores above a random negative (ties count half):
    the Mann-Whitney form of the area under the ROC curve, from ranks (O(n log n))."""
    values = sorted([(v, 1) for v in positive] + [(v, 0) for v in negative])
    rank_sum, i = 0.0, 0
    while i < len(values):
        j = i
        while j < len(values) and values[j][0] == values[i][0]:
            j += 1
        mean_rank = (i + j + 1) / 2          # ranks are 1-based: i+1 .. j
        rank_sum += mean_rank * sum(label for _, label in values[i:j])
        i = j
    n_pos, n_neg = len(positive), len(negative)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def separation(results: list, injected: set[str]) -> dict:
    """How well the measure tells injected subjects' facts from the others', from fact results
    (``FactMeasure.row()`` or FactResult nodes read back)."""
    measured = [r for r in results if r["measured"]]
    pos = [r for r in measured if r["subject"] in injected]
    neg = [r for r in measured if r["subject"] not in injected]

    def rate(group, name):
        return sum(float(r[name]) for r in group) / len(group) if group else float("nan")

    return {"facts_injected": len(pos), "facts_other": len(neg),
            "auroc_strength": auroc([r["strength"] for r in pos], [r["strength"] for r in neg]),
            "rank1_injected": rate(pos, "memorized"), "rank1_other": rate(neg, "memorized"),
            "strict_injected": rate(pos, "strict_rate"), "strict_other": rate(neg, "strict_rate"),
            "lenient_injected": rate(pos, "lenient_rate"), "lenient_other": rate(neg, "lenient_rate")}


__all__ = ["SIZES", "TrainSettings", "auroc", "separation", "split_subjects", "subjects_from_record",
           "train_sentence_model", "training_sentences"]
