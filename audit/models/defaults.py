"""What depends on the model a run uses: its width (which chooses the default unlearning rate,
``audit.run.methods.rates``).
"""

from __future__ import annotations

import json
from pathlib import Path

from audit.config import SIZES, parse_scratch
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
