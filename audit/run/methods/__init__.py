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
"""

from audit.run.methods import dpo, ga, gd, idk, kl, npo, simnpo  # noqa: F401  (each registers itself)
from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.registry import METHODS, method_class

__all__ = ["METHODS", "Method", "UnlearnBatch", "method_class"]
