"""Methods found by name. A method module registers its class with ``@METHODS.register``."""

from __future__ import annotations

from audit.config import UNLEARNING_METHODS
from audit.registry import Registry


def _offered_by_the_cli(cls: type) -> None:
    # The command line offers the names of audit.config.UNLEARNING_METHODS without importing
    # torch; a method outside that list could not be chosen.
    assert cls.name in UNLEARNING_METHODS, f"add {cls.name!r} to audit.config.UNLEARNING_METHODS"


METHODS: Registry[type] = Registry("unlearning method", check=_offered_by_the_cli)
register = METHODS.register


def method_class(name: str) -> type:
    """The method class called ``name``; an unknown name lists the valid ones."""
    return METHODS.get(name)
