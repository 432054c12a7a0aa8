"""What depends on the model a run uses: its width, and the unlearning learning rate used when
none is given (``audit/config.py`` holds the rates, with how they were chosen).
"""

from __future__ import annotations

import json
from pathlib import Path

from audit.config import PRETRAINED_UNLEARN_LR, SCRATCH_UNLEARN_LR, SIZES, SMALL_MODEL_WIDTH, parse_scratch
from audit.models import pretrained


def model_width(model: str) -> int | None:
    """The hidden size of ``model``: a scratch size's, or ``config.json``'s in a local folder;
    None when it cannot be read here (a hub id)."""
    size = parse_scratch(model)
    if size is not None:
        return SIZES[size].hidden_size
    config = Path(pretrained.resolve(model)) / "config.json"
    try:
        values = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return next((values[k] for k in ("hidden_size", "n_embd", "d_model") if isinstance(values.get(k), int)), None)


def default_unlearn_lr(method: str, model: str) -> float:
    """The unlearning learning rate used when none is given, for ``method`` on ``model``."""
    if pretrained.is_pretrained_spec(model):   # narrow (Gemma 3 270M: width 640) but pretrained
        return PRETRAINED_UNLEARN_LR
    width = model_width(model)
    if width is not None and width <= SMALL_MODEL_WIDTH:
        return SCRATCH_UNLEARN_LR[method]
    return PRETRAINED_UNLEARN_LR
