"""Methods found by name. A method module registers its class with ``@register``; the registry
is the one list of methods (the command line's choices, an experiment's valid names)."""

from __future__ import annotations

from graphstore.registry import Registry
from audit.run.methods.base import Method


def _declared(cls: type[Method]) -> None:
    # A method is declared once, in its module: with its settings and its default rate.
    missing = [a for a in ("name", "title", "config_class", "scratch_lr") if not hasattr(cls, a)]
    assert not missing, f"unlearning method {cls.__name__} lacks {', '.join(missing)}"
    assert cls.scratch_lr > 0, f"unlearning method {cls.name}: scratch_lr must be positive"


METHODS: Registry[type[Method]] = Registry("unlearning method", check=_declared)
register = METHODS.register


def method_class(name: str) -> type[Method]:
    """The method class called ``name``; an unknown name lists the valid ones."""
    return METHODS.get(name)
