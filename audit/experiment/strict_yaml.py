"""YAML as ``yaml.safe_load`` reads it, stricter: a key given twice in one mapping is an error
(plain YAML keeps the last value silently; TOML refuses, and so do we), and so is an alias."""

from __future__ import annotations

import yaml


def load_yaml(text: str):
    """The document of ``text``. Raises ``yaml.YAMLError`` (a duplicate key or an alias among them)."""
    return yaml.load(text, Loader=_UniqueKeyLoader)


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML as ``safe_load`` reads it, but a key given twice in one mapping is an error (plain
    YAML keeps the last value silently; TOML refuses, and so do we), and so is an alias."""

    def compose_node(self, parent, index):
        # an alias (*name) is refused: "billion laughs" files expand aliases of aliases into
        # gigabytes once printed or hashed, and an experiment file needs none
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not read in an experiment file",
                                              event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"the key {key!r} is given twice",
                                                        key_node.start_mark)
            if isinstance(key, (str, int, float, bool)):
                seen.add(key)
        return super().construct_mapping(node, deep)
