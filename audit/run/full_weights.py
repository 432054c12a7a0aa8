"""Full-parameter unlearning: the injected model's own weights trained in place (every weight but
the input embeddings, which LACUNA freezes too), beside the default LoRA adapters.

LACUNA's methods update weights directly (Boglioni et al., §4.1): a LoRA update s·B·A is dense
over every weight of a matrix, so it cannot be localized the way a direct update can. The
wrapper keeps what the rest of the audit expects of the unlearned model: ``disable_adapter()``
computes with the injected weights (a frozen copy, kept aside: the reference of NPO, KL, DPO and
of the resurfacing checks, as a LoRA model's adapters switched off are), and ``parameters()``,
``generate`` and the rest are the trained model's. The copy doubles the weights in memory.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import torch
from safetensors.torch import load_file, save_file
from transformers import PreTrainedModel

from graphstore.errors import ConfigError

WEIGHTS_FILE = "unlearned.safetensors"


class FullWeights(torch.nn.Module):
    """The injected ``model`` trained in place, with its injected weights kept as the reference."""

    def __init__(self, model: PreTrainedModel):
        super().__init__()
        self.model = model
        reference = copy.deepcopy(model).eval()
        reference.requires_grad_(False)
        object.__setattr__(self, "_reference", reference)   # not a sub-module: not trained, saved or rounded
        object.__setattr__(self, "_off", False)
        frozen = {id(p) for p in model.get_input_embeddings().parameters()}
        for p in model.parameters():
            p.requires_grad_(id(p) not in frozen)

    @property
    def reference(self) -> torch.nn.Module:
        return self._reference

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return (self._reference if self._off else self.model)(*args, **kwargs)

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        # generate is transformers' GenerationMixin's, on the concrete model class
        active: Any = self._reference if self._off else self.model
        return active.generate(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.model, name)   # config, device, generation_config, ...

    @contextmanager
    def disable_adapter(self) -> Iterator[None]:
        """The injected model for the body of the ``with`` (the reference)."""
        previous = self._off
        object.__setattr__(self, "_off", True)
        try:
            yield
        finally:
            object.__setattr__(self, "_off", previous)

    def trainable(self) -> dict[str, torch.nn.Parameter]:
        return {name: p for name, p in self.model.named_parameters() if p.requires_grad}

    def reset(self) -> None:
        """Every trained weight back to the injected one."""
        injected = dict(self._reference.named_parameters())
        with torch.no_grad():
            for name, p in self.trainable().items():
                p.copy_(injected[name])

    def save_pretrained(self, folder: Path) -> None:
        """The trained weights (safetensors), for a phase that runs after a restart."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        save_file({k: v.detach().to("cpu").contiguous() for k, v in self.trainable().items()}, str(folder / WEIGHTS_FILE))

    def load(self, folder: Path) -> None:
        path = Path(folder) / WEIGHTS_FILE
        if not path.exists():
            raise ConfigError(f"no saved weights in {folder}: the run's cache folder was removed; "
                              "delete the run (audit runs ID --delete) and run it again")
        state, trainable = load_file(str(path)), self.trainable()
        if set(state) != set(trainable) or any(state[k].shape != trainable[k].shape for k in state):
            raise ConfigError(f"the weights saved in {path} do not fit this model; delete the run and run it again")
        with torch.no_grad():
            for name, p in trainable.items():
                p.copy_(state[name].to(p.device, p.dtype))
