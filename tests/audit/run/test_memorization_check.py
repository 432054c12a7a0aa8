"""`audit memorization-check` prints its figures under labels a reader understands, each
explained under the table; csv and json keep the keys (``rank1_other``) for programs."""

from __future__ import annotations

import json
from pathlib import Path

from audit.run.memorization_check import FIGURE_LABELS, FIGURE_NOTES, CheckOutcome, figure_rows
from cli.common import emit_rows


def outcome() -> CheckOutcome:
    figures = {"facts_injected": 30, "facts_other": 30, "auroc_strength": 0.90123, "rank1_injected": 0.7916,
               "rank1_other": 0.1875, "strict_injected": 0.5, "strict_other": 0.125, "lenient_injected": 0.9,
               "lenient_other": 0.3}
    return CheckOutcome("check-run", Path("out/model"), ["Q900000001"], figures, {"sentences_per_second": 812.5})


def test_the_rows_carry_labels_not_keys_at_full_precision():
    rows = figure_rows(outcome())
    assert [(label, value) for _, label, value in rows] == [
        ("facts measured, injected people (trained on)", 30),
        ("facts measured, other people (never seen)", 30),
        ("AUROC of the strength z*, injected vs other", 0.90123),
        ("rank 1, injected people", 0.7916),
        ("rank 1, other people", 0.1875),
        ("strict, injected people", 0.5),
        ("strict, other people", 0.125),
        ("lenient, injected people", 0.9),
        ("lenient, other people", 0.3),
        ("sentences scored per second", 812.5)]
    assert all("_" not in label for _, label, _ in rows)


def test_every_label_kind_is_explained_once_under_the_table():
    kinds = ["AUROC", "rank 1", "strict", "lenient"]
    assert [note.split(":")[0] for note in FIGURE_NOTES] == kinds
    assert set(FIGURE_LABELS) == {key for key, _, _ in figure_rows(outcome())}


def test_json_keeps_the_keys(capsys):
    rows = figure_rows(outcome())
    emit_rows(["measure", "value"], [[key, value] for key, _, value in rows], "json")
    printed = json.loads(capsys.readouterr().out)
    assert printed[4] == {"measure": "rank1_other", "value": 0.1875}   # full precision, as csv
    assert printed[7] == {"measure": "lenient_injected", "value": 0.9}
