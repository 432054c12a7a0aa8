"""Typed options of an audit run. The CLI maps its flags onto these; nothing else passes
untyped dicts of options around. Cross-field checks live in ``check()``."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from graphstore.errors import ConfigError

EVAL_BATCH_SIZE = 32   # QA pairs per generation/scoring batch of an evaluation
MASK_GROUPS = ("forget", "component", "entity", "edge")
MASK_KINDS = ("element", "structural")
ADAPTERS = ("lora", "full")


@dataclass
class InjectionConfig:
    """Knowledge injection (PISTOL protocol): fine-tune on every QA pair of the graph until
    the model knows it."""
    target_rouge1: float = field(default=1.0, metadata={"help": "stop when every edge's mean ROUGE-1 recall reaches this"})
    max_epochs: int = field(default=150, metadata={"help": "give up (with a warning) after this many epochs"})
    lr: float | None = field(default=None, metadata={"help": "learning rate; default 3e-3 for scratch (full training), 2e-4 for LoRA"})
    batch_size: int = field(default=16, metadata={"help": "QA pairs per step"})
    eval_every: int = field(default=10, metadata={"help": "epochs between recall checks"})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank for pretrained models"})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha for pretrained models"})
    seed: int = field(default=0, metadata={"help": "seed of initialisation and data order"})
    enabled: bool = field(default=True, metadata={"help": "off: audit the model as it is (it already knows the facts, e.g. a pretrained model and Wikidata people)"})
    mask_groups: str | None = field(default=None, metadata={"help": "masked injection (LACUNA): each group of edges in "
                                    "its own weights: forget, component, entity or edge (docs/localization.md)"})
    mask_share: float = field(default=0.05, metadata={"help": "share of the attention and MLP weights in each group's mask"})
    mask_kind: str = field(default="element", metadata={"help": "element (weights at random) or structural (heads, neurons)"})

    full_weights: bool = field(default=False, metadata={"help": "train a pretrained model's own weights, not LoRA"})

    def identity(self) -> dict:
        """The settings as cache key and digest count them: the mask settings when masking is on,
        ``full_weights`` when set, so that injections and runs made before them keep their keys."""
        return {k: v for k, v in as_dict(self).items() if (self.mask_groups is not None or not k.startswith("mask_"))
                and (k != "full_weights" or v)}

    def learning_rate(self, full_training: bool, scratch: bool = True) -> float:
        """The rate given, else 3e-3 (scratch), 2e-4 (LoRA), 1e-5 (a pretrained model's own weights)."""
        return self.lr if self.lr is not None else 3e-3 if full_training and scratch else 1e-5 if full_training else 2e-4

    def check(self, model: str | None = None) -> None:
        """Refuses bad values, and injection off for ``model`` when it is a scratch model (untrained,
        it knows nothing to unlearn)."""
        check_numbers(self, "--inject-")
        if not self.enabled and model is not None and parse_scratch(model):
            raise ConfigError(f"--model {model} with --no-inject: a scratch model is untrained and knows nothing "
                              "to unlearn; give a trained model folder, or leave injection on")
        if not 0.0 < self.target_rouge1 <= 1.0:
            raise ConfigError(f"--inject-target {self.target_rouge1}: must be in (0, 1]")
        _positive(max_epochs=self.max_epochs, batch_size=self.batch_size, eval_every=self.eval_every,
                  lora_r=self.lora_r)
        if self.lr is not None and self.lr <= 0:
            raise ConfigError(f"--inject-lr {self.lr}: must be positive")
        if self.mask_groups is not None:
            if self.mask_groups not in MASK_GROUPS:
                raise ConfigError(f"--mask-groups {self.mask_groups!r}: valid: {', '.join(MASK_GROUPS)}")
            if self.mask_kind not in MASK_KINDS:
                raise ConfigError(f"--mask-kind {self.mask_kind!r}: valid: {', '.join(MASK_KINDS)}")
            if not 0.0 < self.mask_share < 1.0:
                raise ConfigError(f"--mask-share {self.mask_share}: must be in (0, 1)")
            if not self.enabled:
                raise ConfigError("--mask-groups with --no-inject: masks are drawn by the injection")


@dataclass
class UnlearnConfig:
    """Training settings shared by every unlearning method. Defaults follow the papers
    (TOFU, PISTOL, NPO): AdamW, linear warm-up over the first epoch, 20 epochs, effective batch 4."""
    epochs: int = field(default=20, metadata={"help": "passes over the forget set"})
    lr: float | None = field(default=None, metadata={"help": "AdamW learning rate of the LoRA adapters; default: "
                                                             "per method and model (audit.run.methods.default_unlearn_lr)"})
    batch_size: int = field(default=4, metadata={"help": "forget QA pairs per forward pass"})
    grad_accum: int = field(default=1, metadata={"help": "steps accumulated per update (effective batch = batch_size * grad_accum)"})
    weight_decay: float = field(default=0.01, metadata={"help": "AdamW weight decay"})
    lora_r: int = field(default=8, metadata={"help": "LoRA rank of the unlearning adapters"})
    lora_alpha: int = field(default=16, metadata={"help": "LoRA alpha"})
    lora_dropout: float = field(default=0.0, metadata={"help": "LoRA dropout (0 keeps resumed runs bit-identical)"})
    lora_targets: str = field(default="all-linear", metadata={"help": "peft target_modules: all-linear or comma-separated module names"})
    seed: int = field(default=0, metadata={"help": "seed of adapters, data order and forget/retain pairing"})
    gradient_checkpointing: bool = field(default=False, metadata={"help": "trade compute for memory on GPU"})
    adapter: str = field(default="lora", metadata={"help": "what unlearning trains: lora (adapters) or full (every "
                                                           "weight but the input embeddings, as LACUNA's methods do)"})

    def identity(self) -> dict:
        """The settings as a run's digest counts them: ``adapter`` only when it is not LoRA, so that
        runs made before full-parameter unlearning existed still resume."""
        return {k: v for k, v in as_dict(self).items() if k != "adapter" or v != "lora"}

    def check(self) -> None:
        check_numbers(self, "--")
        if self.adapter not in ADAPTERS:
            raise ConfigError(f"--adapter {self.adapter!r}: valid: {', '.join(ADAPTERS)}")
        _positive(epochs=self.epochs, batch_size=self.batch_size, grad_accum=self.grad_accum, lora_r=self.lora_r)
        if self.lr is not None and self.lr <= 0:
            raise ConfigError(f"--lr {self.lr}: must be positive")
        if not 0.0 <= self.lora_dropout < 1.0:
            raise ConfigError(f"--lora-dropout {self.lora_dropout}: must be in [0, 1)")

    @property
    def effective_batch(self) -> int:
        return self.batch_size * self.grad_accum


TRAIN_ON = ("qa", "passages", "canaries")
MIXED_PASSAGES = ("forget", "retain", "drop")
INJECT_QA = ("auto", "yes", "no")


@dataclass
class TrainingDataConfig:
    """What injection and unlearning train on (docs/runs.md, "Training data"). Measurement is on
    the facts' questions whatever is trained."""
    train_on: str = field(default="qa", metadata={"help": "qa (the edges' QA pairs), passages (text graphs: the "
                                                          "source passages) or canaries (Wikidata graphs: canary sentences)"})
    mixed_passages: str = field(default="forget", metadata={"help": "a passage stating a forget fact and a retained "
                                                                    "fact is unlearned (forget), kept (retain) or left out (drop)"})
    chunk_tokens: int | None = field(default=None, metadata={"help": "longest training text in tokens; longer ones are "
                                                                     "cut into chunks (default: the model's context)"})
    inject_qa: str = field(default="auto", metadata={"help": "whether injection also trains on the QA pairs when it "
                                                             "trains on text; auto: yes for scratch models"})

    def check(self) -> None:
        for name, valid in (("train_on", TRAIN_ON), ("mixed_passages", MIXED_PASSAGES), ("inject_qa", INJECT_QA)):
            if getattr(self, name) not in valid:
                raise ConfigError(f"--{name.replace('_', '-')} {getattr(self, name)!r} is not known; valid: {', '.join(valid)}")
        if self.chunk_tokens is not None and self.chunk_tokens < 8:
            raise ConfigError(f"--chunk-tokens {self.chunk_tokens}: must be at least 8")

    @property
    def text(self) -> bool:
        return self.train_on != "qa"

    def injects_qa(self, model: str) -> bool:
        """Injection trains on the QA pairs: always for ``qa``; with text, when asked, or (auto)
        for a scratch model, which cannot answer questions about what it read only as text
        (measured: docs/findings.md, "HANKER")."""
        if not self.text or self.inject_qa == "yes":
            return True
        return self.inject_qa == "auto" and parse_scratch(model) is not None


MEMORIZATION_CRITERIA = ("mean", "strict", "lenient")


@dataclass
class MemorizationConfig:
    """Settings of the memorization measure. Defaults follow WikiMem's setup; ``preset`` names a
    protocol the settings started from (``MEMORIZATION_PRESETS``, ``memorization_config``)."""
    counterfactuals: int = field(default=100, metadata={"help": "counterfactual values per fact, drawn from other subjects"})
    paraphrases: int | None = field(default=None, metadata={"help": "paraphrases used per property (default: all in the registry)"})
    contexts: int = field(default=4, metadata={"help": "contextualized variants per fact"})
    context_facts: int = field(default=4, metadata={"help": "other facts of the subject stated before a contextualized variant"})
    variants: int = field(default=3, metadata={"help": "similar-looking name variants S(h) of the subject"})
    alpha: float = field(default=1.0, metadata={"help": "weight of the name-variant calibration"})
    seed: int = field(default=0, metadata={"help": "seed of counterfactuals, contexts and name variants"})
    batch_size: int = field(default=64, metadata={"help": "sentences per forward pass"})
    equivalence: str | None = field(default=None, metadata={"help": "judge spec (embedding[:T]) under which a counterfactual close to a ground truth counts as equal"})
    criterion: str = field(default="mean", metadata={"help": "memorized when a ground truth ranks first by mean score over "
                                                             "the templates (mean), in every one (strict) or in any (lenient)"})
    preset: str | None = field(default=None, metadata={"help": "the named protocol these settings started from (None: none)"})

    def identity(self) -> dict:
        """The settings as a run's digest counts them: ``criterion`` and ``preset`` only when they
        are not the defaults, so that runs finished before those settings existed still resume."""
        added = {"criterion": "mean", "preset": None}   # the fields added since, at their defaults
        return {k: v for k, v in as_dict(self).items() if k not in added or v != added[k]}

    def check(self) -> None:
        check_numbers(self, "memorization ")
        for name in ("counterfactuals", "variants", "batch_size"):
            if getattr(self, name) < 1:
                raise ConfigError(f"memorization {name.replace('_', '-')} = {getattr(self, name)}: must be at least 1")
        for name in ("contexts", "context_facts", "paraphrases", "alpha"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise ConfigError(f"memorization {name.replace('_', '-')} = {getattr(self, name)}: must be 0 or more")
        if self.criterion not in MEMORIZATION_CRITERIA:
            raise ConfigError(f"memorization criterion {self.criterion!r} is not known; valid: "
                              f"{', '.join(MEMORIZATION_CRITERIA)}")
        if self.preset is not None:
            memorization_preset(self.preset)


@dataclass(frozen=True)
class MemorizationPreset:
    """A named protocol of the memorization measure: the ``MemorizationConfig`` fields a paper
    fixes. A run checks the graph can supply them (audit/measure/memorization/protocol.py)."""
    name: str
    source: str
    settings: dict


MEMORIZATION_PRESETS = {preset.name: preset for preset in (
    MemorizationPreset("wikimem", "WikiMem, Staufer 2025, arXiv:2507.11128, Sec. 5-7 (Table 1)", {
        "counterfactuals": 100,           # "calibrated NLL scores over 100 counterfactual values" (Sec. 6)
        "paraphrases": 10,                # "one base template and ten paraphrased variants" (Sec. 6)
        "contexts": 0,                    # Table 1's canaries are those 11; contextualized ones are a side result (Sec. 7)
        "alpha": 1.0,                     # "We use alpha = 1" (Sec. 5, the calibrated score)
        "criterion": "strict",            # "if just one template variant fails ... it does not count as memorized" (Sec. 7)
        "equivalence": "embedding:0.75",  # footnote 7: equal when sentence-embedding cosine similarity > 0.75
    }),
)}


def memorization_preset(name: str) -> MemorizationPreset:
    """The preset called ``name``; an unknown name is a ``ConfigError`` that lists the valid ones."""
    if name not in MEMORIZATION_PRESETS:
        raise ConfigError(f"unknown memorization preset {name!r}; valid: {', '.join(MEMORIZATION_PRESETS)}")
    return MEMORIZATION_PRESETS[name]


def memorization_config(preset: str | None = None, **options) -> MemorizationConfig:
    """The measure's settings: the defaults, then the preset's, then ``options`` (field values
    given explicitly) over both, checked (``memorization_config("wikimem", counterfactuals=20)``)."""
    settings = dict(memorization_preset(preset).settings) if preset is not None else {}
    config = MemorizationConfig(**{**settings, **options, "preset": preset})
    config.check()
    return config


def memorization_config_from_options(options: dict[str, str], **fields) -> MemorizationConfig:
    """``memorization_config`` from ``name=value`` strings (``--memorization-option``): ``preset``
    first, wherever it was given, then the rest over it."""
    rest = {k: v for k, v in options.items() if k != "preset"}
    config = apply_options(memorization_config(options.get("preset"), **fields), rest, "the memorization measure")
    config.check()
    return config


# -- resurfacing checks (docs/robustness.md) ------------------------------------------------------
RESURFACING_CHECKS = ("quantize", "relearn", "probes", "mia")
QUANT_SCHEMES = ("int8", "nf4")
QUANT_BACKENDS = ("auto", "torch", "bitsandbytes")


def check_names(names) -> tuple[str, ...]:
    """The checks named (case aside), in their fixed order; ``all`` is every one. An unknown name
    is kept, last, so that ``ResurfacingConfig.check`` refuses it by name."""
    names = {name.lower() for name in names}
    return (tuple(c for c in RESURFACING_CHECKS if c in names or "all" in names)
            + tuple(sorted(names - set(RESURFACING_CHECKS) - {"all"})))


@dataclass
class ResurfacingConfig:
    """Checks run after unlearning on the same model, each measuring every edge again
    (docs/robustness.md). ``checks`` empty: none."""
    checks: tuple = field(default=(), metadata={"help": "which checks: quantize, relearn, probes, mia"})
    quantize: str = field(default="int8,nf4", metadata={"help": "weight roundings measured, comma-separated: int8, nf4"})
    group_size: int = field(default=64, metadata={"help": "values per absmax group of the 4-bit rounding"})
    backend: str = field(default="auto", metadata={"help": "rounding in torch, or bitsandbytes (CUDA); auto: "
                                                           "bitsandbytes when installed and on CUDA"})
    relearn_steps: int = field(default=10, metadata={"help": "optimizer steps of each relearning"})
    relearn_batch_size: int = field(default=8, metadata={"help": "QA pairs per relearning step"})
    relearn_lr: float | None = field(default=None, metadata={"help": "relearning rate on the unlearning adapters "
                                                                     "(default: the run's unlearning rate)"})
    mia_k: float = field(default=0.2, metadata={"help": "share of lowest-scored tokens of Min-K% and Min-K%++"})
    paraphrase_llm: str = field(default="", metadata={"help": "text graphs: a language model writing paraphrase "
                                                              "probes, an OpenAI-compatible base URL or a local "
                                                              "causal LM folder (empty: none)"})
    llm_model: str = field(default="default", metadata={"help": "model name sent to that endpoint"})
    paraphrases: int = field(default=3, metadata={"help": "paraphrase probes asked of the language model per fact"})
    seed: int = field(default=0, metadata={"help": "seed of relearning order, controls and non-members"})

    @property
    def schemes(self) -> tuple[str, ...]:
        return tuple(s.strip().lower() for s in self.quantize.split(",") if s.strip())

    def check(self) -> None:
        check_numbers(self, "check option ")
        if isinstance(self.checks, str):   # set through --check-option checks=...
            raise ConfigError("the checks themselves are chosen with --check (or checks = [...] in an experiment)")
        unknown = [c for c in self.checks if c not in RESURFACING_CHECKS]
        if unknown:
            raise ConfigError(f"--check {unknown[0]!r} is not known; valid: {', '.join(RESURFACING_CHECKS)}, all")
        bad = [s for s in self.schemes if s not in QUANT_SCHEMES]
        if bad or not self.schemes:
            raise ConfigError(f"check option quantize={self.quantize!r}: give one or more of {', '.join(QUANT_SCHEMES)}")
        if self.backend not in QUANT_BACKENDS:
            raise ConfigError(f"check option backend={self.backend!r}: valid: {', '.join(QUANT_BACKENDS)}")
        _positive(group_size=self.group_size, relearn_steps=self.relearn_steps,
                  relearn_batch_size=self.relearn_batch_size, paraphrases=self.paraphrases)
        if self.relearn_lr is not None and self.relearn_lr <= 0:
            raise ConfigError(f"check option relearn_lr={self.relearn_lr}: must be positive")
        if not 0.0 < self.mia_k <= 1.0:
            raise ConfigError(f"check option mia_k={self.mia_k}: must be in (0, 1]")


@dataclass
class LocalizationConfig:
    """LACUNA's localization precision (docs/localization.md); needs ``InjectionConfig.mask_groups``."""
    enabled: bool = field(default=False, metadata={"help": "score every attention and MLP weight's change and its ROC "
                                                          "AUC against the forget mask"})
    control: bool = field(default=True, metadata={"help": "also unlearn an unmasked injection with the same method, "
                                                         "for the contrast scores (twice the unlearning)"})
    max_weights: int = field(default=2_000_000, metadata={"help": "weights scored at most (a uniform sample per "
                                                                  "tensor beyond it)"})
    seed: int = field(default=0, metadata={"help": "seed of the sample and of the composite's folds"})

    def check(self) -> None:
        check_numbers(self, "localization option ")
        _positive(max_weights=self.max_weights)


# -- scratch models: their sizes, and `--model scratch[:SIZE]` --------------------------------
@dataclass(frozen=True)
class ScratchSize:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    layers: int
    heads: int
    max_positions: int = 512


SIZES: dict[str, ScratchSize] = {
    "tiny": ScratchSize(vocab_size=1024, hidden_size=96, intermediate_size=384, layers=2, heads=4),
    "small": ScratchSize(vocab_size=4096, hidden_size=256, intermediate_size=1024, layers=4, heads=8),
    "base": ScratchSize(vocab_size=8192, hidden_size=768, intermediate_size=2048, layers=12, heads=12),
}
DEFAULT_SIZE = "tiny"


def parse_scratch(spec: str) -> str | None:
    """``scratch`` / ``scratch:SIZE`` -> the size name; anything else -> None."""
    if spec != "scratch" and not spec.startswith("scratch:"):
        return None
    size = spec.split(":", 1)[1] if ":" in spec else DEFAULT_SIZE
    if size not in SIZES:
        raise ConfigError(f"--model {spec!r}: unknown scratch size {size!r}; valid: {', '.join(SIZES)}")
    return size


INT64_MAX = 2**63 - 1


def check_numbers(config, prefix: str = "") -> None:
    """Refuse NaN and infinity in any float field of a config dataclass (``--lr inf`` trains to a
    NaN loss and would be recorded as a finished run), and whole numbers past 64 bits (torch's
    seeds, the graph's integers)."""
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        name = f"{prefix}{f.name.replace('_', '-')}"
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{name} {value}: must be a finite number")
        if isinstance(value, int) and not isinstance(value, bool) and not -INT64_MAX - 1 <= value <= INT64_MAX:
            raise ConfigError(f"{name} {value}: must fit in 64 bits (at most {INT64_MAX})")


def _positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise ConfigError(f"{name.replace('_', '-')} = {value}: must be a positive whole number")


def as_dict(config) -> dict:
    return dataclasses.asdict(config)


def apply_options(config, options: dict[str, str], what: str):
    """Set dataclass fields from ``name=value`` strings, typed by the field's default.

    An unknown name lists the valid ones.
    """
    fields = {f.name: f for f in dataclasses.fields(config)}
    for name, text in options.items():
        key = name.replace("-", "_")
        if key not in fields:
            raise ConfigError(f"{what} has no option {name!r}; valid: {', '.join(fields) or '(none)'}")
        current = getattr(config, key)
        if text.lower() == "none" and "None" in str(fields[key].type):  # an optional field, set or not
            setattr(config, key, None)
            continue
        if current is None:  # an optional field: its annotation ("int | None") gives the type
            current = {"int": 0, "float": 0.0, "bool": False}.get(str(fields[key].type).split(" |")[0], "")
        value: bool | int | float | str
        try:
            if isinstance(current, bool):
                value = {"true": True, "1": True, "false": False, "0": False}[text.lower()]
            elif isinstance(current, int):
                value = int(text)
            elif isinstance(current, float):
                value = float(text)
                if not math.isfinite(value):
                    raise ConfigError(f"{what} option {name}={text!r}: must be a finite number")
            else:
                value = text
        except (ValueError, KeyError):
            kind = type(current).__name__
            raise ConfigError(f"{what} option {name}={text!r}: expected {'an' if kind[0] in 'aeiou' else 'a'} "
                              f"{kind}") from None
        setattr(config, key, value)
    return config
