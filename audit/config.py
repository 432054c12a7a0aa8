"""Typed options of an audit run. The CLI maps its flags onto these; nothing else passes
untyped dicts of options around. Cross-field checks live in ``check()``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from graphstore.errors import ConfigError


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

    def learning_rate(self, full_training: bool) -> float:
        return self.lr if self.lr is not None else (3e-3 if full_training else 2e-4)

    def check(self) -> None:
        if not 0.0 < self.target_rouge1 <= 1.0:
            raise ConfigError(f"--inject-target {self.target_rouge1}: must be in (0, 1]")
        _positive(max_epochs=self.max_epochs, batch_size=self.batch_size, eval_every=self.eval_every,
                  lora_r=self.lora_r)


@dataclass
class UnlearnConfig:
    """Training settings shared by every unlearning method. Defaults follow the papers
    (TOFU, PISTOL, NPO): AdamW, linear warm-up over the first epoch, 20 epochs, effective batch 4."""
    epochs: int = field(default=20, metadata={"help": "passes over the forget set"})
    lr: float = field(default=1e-4, metadata={"help": "AdamW learning rate of the LoRA adapters"})
    batch_size: int = field(default=4, metadata={"help": "forget QA pairs per forward pass"})
    grad_accum: int = field(default=1, metadata={"help": "steps accumulated per update (effective batch = batch_size * grad_accum)"})
    weight_decay: float = field(default=0.01, metadata={"help": "AdamW weight decay"})
    lora_r: int = field(default=8, metadata={"help": "LoRA rank of the unlearning adapters"})
    lora_alpha: int = field(default=16, metadata={"help": "LoRA alpha"})
    lora_dropout: float = field(default=0.0, metadata={"help": "LoRA dropout (0 keeps resumed runs bit-identical)"})
    lora_targets: str = field(default="all-linear", metadata={"help": "peft target_modules: all-linear or comma-separated module names"})
    seed: int = field(default=0, metadata={"help": "seed of adapters, data order and forget/retain pairing"})
    gradient_checkpointing: bool = field(default=False, metadata={"help": "trade compute for memory on GPU"})

    def check(self) -> None:
        _positive(epochs=self.epochs, batch_size=self.batch_size, grad_accum=self.grad_accum, lora_r=self.lora_r)
        if self.lr <= 0:
            raise ConfigError(f"--lr {self.lr}: must be positive")
        if not 0.0 <= self.lora_dropout < 1.0:
            raise ConfigError(f"--lora-dropout {self.lora_dropout}: must be in [0, 1)")

    @property
    def effective_batch(self) -> int:
        return self.batch_size * self.grad_accum


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
        if current is None:  # an optional field: its annotation ("int | None") gives the type
            current = {"int": 0, "float": 0.0, "bool": False}.get(str(fields[key].type).split(" |")[0], "")
            if text.lower() == "none":
                setattr(config, key, None)
                continue
        try:
            if isinstance(current, bool):
                value = {"true": True, "1": True, "false": False, "0": False}[text.lower()]
            elif isinstance(current, int):
                value = int(text)
            elif isinstance(current, float):
                value = float(text)
            else:
                value = text
        except (ValueError, KeyError):
            raise ConfigError(f"{what} option {name}={text!r}: expected a {type(current).__name__}") from None
        setattr(config, key, value)
    return config
