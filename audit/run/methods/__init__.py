"""Unlearning methods, one module each, found by name: ``method_class("npo")``.

| name | module | what it optimises |
| --- | --- | --- |
| ga | ga.py | ascent on forget |
| gd | gd.py | ascent on forget, descent on paired retain |
| kl | kl.py | ascent on forget, KL to the injected model on retain |
| dpo | dpo.py | refusal preferred over the forget answer (contrastive, Rafailov et al.) |
| idk | idk.py | refusal trained on the forget questions, plus retain NLL (PISTOL's "DPO", Eq. 6) |
| npo | npo.py | negative preference optimisation |
| simnpo | simnpo.py | reference-free, length-normalised NPO |
| oraclegrad | oraclegrad.py | gradient difference inside the forget mask of a masked injection (LACUNA) |

Each module declares its method once: name, settings, default rate on a small model
(``scratch_lr``) and loss. ``rates.default_unlearn_lr`` picks the rate for a method and model.
The package imports without torch (the losses load it when they first run).
"""

# Imported in the table's order, which is the registry's: the order the command line lists them.
from audit.run.methods import ga, gd, kl, dpo, idk, npo, simnpo, oraclegrad  # noqa: F401  (each registers itself)
from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.rates import PRETRAINED_UNLEARN_LR, SMALL_MODEL_WIDTH, default_unlearn_lr
from audit.run.methods.catalog import METHODS, method_class

__all__ = ["METHODS", "PRETRAINED_UNLEARN_LR", "SMALL_MODEL_WIDTH", "Method", "UnlearnBatch", "default_unlearn_lr",
           "method_class"]
