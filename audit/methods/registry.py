"""Methods found by name. A method module registers its class with ``@register``."""

from __future__ import annotations

from audit.config import UNLEARNING_METHODS
from graphstore.errors import ConfigError

METHODS: dict[str, type] = {}


def register(cls: type) -> type:
    # The command line offers the names of audit.config.UNLEARNING_METHODS without importing
    # torch; a method outside that list could not be chosen.
    assert cls.name in UNLEARNING_METHODS, f"add {cls.name!r} to audit.config.UNLEARNING_METHODS"
    METHODS[cls.name] = cls
    return cls


def method_class(name: str) -> type:
    """The method class called ``name``; an unknown name lists the valid ones."""
    try:
        return METHODS[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown unlearning method {name!r}; valid: {', '.join(sorted(METHODS))}") from None
