"""The rules extractor, built once per test module (its pipeline takes a moment)."""

from __future__ import annotations

import pytest

from extract.text.rules import RulesExtractor


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return RulesExtractor()
