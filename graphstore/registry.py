"""Things found by name: unlearning methods, metrics, equivalence judges, question backends,
text extractors.

One helper for all of them, so each behaves the same way: names are case-insensitive, a name is
registered once, and an unknown name is refused with the valid ones listed. It lives in the
bottom layer so that ``extract`` and ``audit`` share it.

Example:
    JUDGES = Registry("equivalence judge")

    @JUDGES.register
    class EmbeddingJudge: name = "embedding"; ...

    JUDGES.get("Embedding")   # -> EmbeddingJudge
    JUDGES.get("bleu")        # ConfigError: unknown equivalence judge 'bleu'; valid: embedding, nli
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Generic, TypeVar

from graphstore.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """A name -> entry map filled by ``register``; iterates over names in registration order."""

    def __init__(self, kind: str, *, name_of: Callable[[T], str] = attrgetter("name"),
                 check: Callable[[T], None] | None = None):
        self.kind = kind            # what an entry is, for messages: "unlearning method"
        self._name_of = name_of
        self._check = check         # run on every entry registered (e.g. "its name is offered by the CLI")
        self._entries: dict[str, T] = {}

    def register(self, entry: T) -> T:
        """Add ``entry`` under its name; usable as a class decorator. A name is taken once."""
        name = self._name_of(entry).lower()
        if name in self._entries and self._entries[name] is not entry:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        if self._check is not None:
            self._check(entry)
        self._entries[name] = entry
        return entry

    def get(self, name: str) -> T:
        """The entry called ``name`` (any case).

        Raises:
            ConfigError: no such entry; the message lists the valid names.
        """
        try:
            return self._entries[name.lower()]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; valid: {', '.join(sorted(self._entries))}") from None

    def find(self, name: str) -> T | None:
        return self._entries.get(name.lower())

    def names(self) -> list[str]:
        return list(self._entries)

    def values(self) -> list[T]:
        return list(self._entries.values())

    def items(self) -> list[tuple[str, T]]:
        return list(self._entries.items())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, name: str) -> T:
        return self.get(name)
