"""The unlearning learning rate used when ``--lr`` is not given, by method and model
(docs/runs.md, section 4). AdamW on the LoRA adapters, chosen by the model's width (hidden size).

Small models (width <= ``SMALL_MODEL_WIDTH``: the scratch sizes, or a model trained from one) take
their method's ``scratch_lr``, chosen per method by bench/bench_lr.py on the demo's graph
(docs/benchmarks.md, "Default learning rates"): the rate that lowers the forget edges' ROUGE-1 by
>= 0.3 while the retained edges keep a mean >= 0.8 (DPO reaches no such rate; its default keeps
the retained edges >= 0.8). Each method's module gives its figures. Measured on scratch:tiny
(width 96); small and base use the same rates (not yet measured).

Wider models (7B-class) and the pretrained model packages (``audit models``, whatever their
width) take ``PRETRAINED_UNLEARN_LR``.
"""

from __future__ import annotations

from audit.models import pretrained
from audit.models.defaults import model_width
from audit.run.methods.catalog import method_class

# 1e-5: inside PISTOL's grid (appendix F: 1e-6 to 5e-5 for 7B models) and TOFU's rate. The
# earlier 1e-4 wrecked Gemma 3 270M: on sample_data_1 (one forget edge) GA left forget and
# retained ROUGE-1 at 0, GD and NPO took the retained edges from 0.79 to 0.46 and 0.23
# (docs/findings.md, section 9).
PRETRAINED_UNLEARN_LR = 1e-5
SMALL_MODEL_WIDTH = 1024   # the widest model that takes its method's scratch_lr (scratch:base is 768)


def default_unlearn_lr(method: str, model: str) -> float:
    """The unlearning learning rate used when none is given, for the method called ``method``
    on ``model`` (``default_unlearn_lr("npo", "scratch:tiny")`` -> 4e-4).

    Raises:
        ConfigError: ``method`` is not a registered method (the message lists the valid ones).
    """
    scratch_lr = method_class(method).scratch_lr
    if pretrained.is_pretrained_spec(model):   # narrow (Gemma 3 270M: width 640) but pretrained
        return PRETRAINED_UNLEARN_LR
    width = model_width(model)
    return scratch_lr if width is not None and width <= SMALL_MODEL_WIDTH else PRETRAINED_UNLEARN_LR
