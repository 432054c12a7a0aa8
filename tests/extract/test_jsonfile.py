"""A user's JSON file that does not parse is refused in one line: the file, the line and column,
and what is wrong there in words (never Python's "Unterminated string starting at at line 133").
Every position below is counted by hand in the text beside it."""

from __future__ import annotations

import json

import pytest

from extract.jsonfile import json_error, json_line_error, read_json, strict_loads
from graphstore.errors import InputDataError


def error_of(text: str) -> json.JSONDecodeError:
    with pytest.raises(json.JSONDecodeError) as e:
        strict_loads(text)
    return e.value


@pytest.mark.parametrize("text, message", [
    # the string opened at line 2, column 14 ('"' after '{"question": ') never closes
    ('[\n{"question": "What was the effective date', "line 2, column 14: the file ends inside a string that starts "
                                                    "here (truncated?)"),
    # the text breaks off after the ',' of line 2 (column 17); the trailing line break is no place
    ('[\n{"question": "q",\n', "line 2, column 18: the file ends before the JSON does (truncated?)"),
    ('[1, 2', "line 1, column 6: the file ends before the JSON does (truncated?)"),
    ('[{"q": "a\n', "line 1, column 10: the file ends inside a string (truncated?)"),
    ('[1, 2,]', "line 1, column 7: a comma right before this ] (JSON allows no trailing comma)"),
    ('{"a": 1,}', "line 1, column 9: a comma right before this } (JSON allows no trailing comma)"),
    ("// the contracts\n[]", "line 1, column 1: a comment, which JSON does not allow"),
    ("[{'a': 1}]", "line 1, column 3: a string in single quotes; JSON needs double quotes"),
    ('[1 2]', "line 1, column 4: a ',' or a closing ] or } was expected here (a missing comma?)"),
    ('{"a" 1}', "line 1, column 6: a ':' was expected here, after a key"),
    ('{"a": }', "line 1, column 7: a value was expected here (a string in double quotes, a number, true, false, "
                "null, [ or {)"),
    ('[]\n[]', "line 2, column 1: more text after the JSON value has ended (two values? one JSON value per file, "
               "or JSON lines in a .jsonl file)"),
    ('["a\tb"]', "line 1, column 4: a raw control character (a line break or tab) inside a string; JSON writes it "
                 "as \\n or \\t"),
    ('["\\q"]', "line 1, column 3: a backslash escape JSON does not have (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
                "\\uXXXX)"),
    ('["\\u12"]', "line 1, column 4: a \\u escape without four hex digits"),
    # strict_loads's own refusals keep their words
    ('{"a": 1,\n "a": 2}', 'line 2, column 2: the key "a" appears twice in one object'),
])
def test_every_json_error_is_said_in_words_at_its_place(text, message):
    assert json_error(error_of(text)) == message


def test_a_json_lines_record_names_the_line_itself():
    assert json_line_error(error_of('{"text": ')) == "column 9: the line ends before the JSON does (truncated?)"
    assert json_line_error(error_of('{"text": "Ada')) == ("column 10: the line ends inside a string that starts here "
                                                          "(truncated?)")


def test_a_truncated_file_is_one_line_naming_file_line_and_column(tmp_path):
    path = tmp_path / "data.json"
    path.write_text('[\n{"question": "q", "answer": "a", "edge": "0_1"},\n{"question": "What was the eff',
                    encoding="utf-8")
    with pytest.raises(InputDataError) as e:
        read_json(path)
    assert str(e.value) == (f"{path}: not JSON at line 3, column 14: the file ends inside a string that starts here "
                            "(truncated?)")
    assert "at at" not in str(e.value)
