"""The refusals file of dpo and idk (``audit run --idk``): one sentence per line, or a JSON string."""

from __future__ import annotations

import pytest

from audit.run.qa import load_refusals
from graphstore.errors import InputDataError


def test_refusals_plain_and_json_lines(tmp_path):
    path = tmp_path / "idk.jsonl"
    path.write_text('I do not know.\n\n"I have \\"no\\" idea."\n', encoding="utf-8")
    assert load_refusals(path) == ("file:idk.jsonl", ["I do not know.", 'I have "no" idea.'])


def test_a_broken_json_line_names_line_and_column(tmp_path):
    path = tmp_path / "idk.jsonl"
    path.write_text('I do not know.\n"I have no idea.\n', encoding="utf-8")   # line 2: the string never ends
    with pytest.raises(InputDataError) as e:
        load_refusals(path)
    message = str(e.value)
    assert str(path) in message
    assert "line 2 starts like a JSON string but is not one: column 1:" in message   # where the string starts
    assert "Unterminated" not in message and "char 0" not in message               # Python's words are not shown
