"""A run's summary of HANKER's redundancy analysis, checked on EdgeResults built by hand: every
expected value below is summed from the QA scores and counts written in the fixture, not read
from the code under test."""

from __future__ import annotations

import pytest

from audit.results.schema import EdgeResult, Run
from audit.run import readings
from audit.run import summaries as S


def edge(key: str, redundant: bool | None, before: list[float], after: list[float], exact: tuple[int, int],
         semantic: tuple[int, int] | None, role: str = "forget") -> EdgeResult:
    """One edge's result: its per-QA ROUGE-1 and its memorization cases (before, after) by the
    ROUGE-1 criterion and, when the judge ran, by the judge."""
    props = {"key": f"r/{key}", "edge": key, "role": role, "redundant": redundant,
             "rouge1_qa_before": before, "rouge1_qa_after": after,
             "memorized_rouge1_before": exact[0], "memorized_rouge1_after": exact[1]}
    if semantic is not None:
        props |= {"memorized_semantic_before": semantic[0], "memorized_semantic_after": semantic[1]}
    return EdgeResult.from_props(props)


def results(judge: bool = True) -> list[EdgeResult]:
    """Three forget edges, B redundant, and a retained edge the summary must leave out."""
    return [
        edge("g/A", False, [1.0, 1.0], [0.5, 0.0], (2, 0), (2, 1) if judge else None),
        edge("g/B", True, [1.0, 1.0, 1.0], [1.0, 1.0, 0.5], (3, 2), (3, 3) if judge else None),
        edge("g/C", False, [1.0, 0.5, 1.0], [0.25, 0.0, 1.0], (2, 1), (2, 1) if judge else None),
        edge("g/R", False, [0.0], [0.0], (0, 0), (0, 0) if judge else None, role="retain"),
    ]


# By hand, over A, B, C (8 QA pairs, 3 of them B's) and over A, C (5 pairs):
#   ROUGE-1 after:  all (0.5+0+1+1+0.5+0.25+0+1)/8 = 4.25/8,  unique (0.5+0+0.25+0+1)/5 = 1.75/5
#   ROUGE-1 before: all 7.5/8,                                 unique 4.5/5
#   ROUGE-1 = 1 cases: before all 2+3+2 = 7, unique 4;  after all 0+2+1 = 3, unique 1
#   judged cases:      before all 7, unique 4;          after all 1+3+1 = 5, unique 2
def test_the_relative_inflation_is_over_the_deduplicated_score():
    summary = S.redundancy_summary(results())
    assert summary["forget_edges_redundant"] == 1
    assert summary["forget_qa_pairs_redundant_share"] == pytest.approx(3 / 8)
    assert summary["forget_rouge1_unique_after"] == pytest.approx(1.75 / 5)
    assert summary["forget_rouge1_inflation_after"] == pytest.approx((4.25 / 8 - 1.75 / 5) / (1.75 / 5))   # 0.518
    assert summary["forget_rouge1_inflation_before"] == pytest.approx((7.5 / 8 - 4.5 / 5) / (4.5 / 5))     # 0.042
    assert summary["forget_semantic_rate_after"] == pytest.approx(5 / 8)
    assert summary["forget_semantic_rate_unique_after"] == pytest.approx(2 / 5)
    assert summary["forget_semantic_rate_inflation_after"] == pytest.approx((5 / 8 - 2 / 5) / (2 / 5))     # 0.5625
    assert summary["forget_semantic_rate_inflation_before"] == pytest.approx((7 / 8 - 4 / 5) / (4 / 5))    # 0.09375


def test_the_memorization_cases_drop_relative_to_all_of_them():
    summary = S.redundancy_summary(results())
    def counts(criterion: str) -> list[int]:   # all, unique; before, then after
        return [summary[f"forget_memorized_{criterion}{s}_{p}"] for p in ("before", "after") for s in ("", "_unique")]

    assert counts("rouge1") == [7, 4, 3, 1]
    assert counts("semantic") == [7, 4, 5, 2]
    assert summary["forget_memorized_rouge1_drop_before"] == pytest.approx(3 / 7)
    assert summary["forget_memorized_rouge1_drop_after"] == pytest.approx(2 / 3)
    assert summary["forget_memorized_semantic_drop_before"] == pytest.approx(3 / 7)
    assert summary["forget_memorized_semantic_drop_after"] == pytest.approx(3 / 5)
    # after unlearning, the drop (2/3) exceeds the share of pairs removed (3/8): B is memorized more


def test_the_joint_summary_carries_them_and_the_schema_declares_them():
    summary = S.joint_summary(results(), Run())
    assert summary["forget_rouge1_after"] == pytest.approx(4.25 / 8)   # the forget edges only, not R
    assert summary["forget_qa_pairs"] == 8
    assert Run.check(summary) == list(summary)   # the store would refuse an undeclared name


def test_without_the_judge_the_semantic_figures_are_none():
    summary = S.redundancy_summary(results(judge=False))
    for name in ("forget_semantic_rate", "forget_semantic_rate_unique", "forget_semantic_rate_inflation",
                 "forget_memorized_semantic", "forget_memorized_semantic_unique", "forget_memorized_semantic_drop"):
        assert summary[f"{name}_before"] is None and summary[f"{name}_after"] is None, name
    assert summary["forget_rouge1_inflation_after"] == pytest.approx((4.25 / 8 - 1.75 / 5) / (1.75 / 5))
    assert summary["forget_memorized_rouge1_drop_after"] == pytest.approx(2 / 3)


def test_nothing_left_to_divide_by_gives_none():
    # after unlearning every answer is wrong: the unique ROUGE-1 is 0 and there is no case to drop from
    forgotten = [edge("g/A", False, [1.0], [0.0], (1, 0), (1, 0)), edge("g/B", True, [1.0], [0.0], (1, 0), (1, 0))]
    summary = S.redundancy_summary(forgotten)
    assert summary["forget_rouge1_unique_after"] == 0.0 and summary["forget_rouge1_inflation_after"] is None
    assert summary["forget_semantic_rate_inflation_after"] is None
    assert summary["forget_memorized_rouge1_after"] == 0 and summary["forget_memorized_rouge1_drop_after"] is None
    assert summary["forget_memorized_semantic_drop_after"] is None
    assert summary["forget_rouge1_inflation_before"] == 0.0 and summary["forget_memorized_rouge1_drop_before"] == 0.5
    # every forget edge redundant: nothing left to compare with
    alone = S.redundancy_summary([edge("g/B", True, [1.0], [1.0], (1, 1), (1, 1))])
    assert alone["forget_rouge1_unique_after"] is None and alone["forget_rouge1_inflation_after"] is None
    assert alone["forget_memorized_rouge1_drop_after"] == 1.0 and alone["forget_qa_pairs_redundant_share"] == 1.0


def test_no_redundant_edge_means_no_inflation():
    summary = S.redundancy_summary([e for e in results() if e.edge != "g/B"])
    assert summary["forget_edges_redundant"] == 0 and summary["forget_qa_pairs_redundant_share"] == 0.0
    assert summary["forget_rouge1_inflation_after"] == 0.0 and summary["forget_memorized_rouge1_drop_after"] == 0.0


def test_graphs_without_the_flag_have_no_redundancy_summary():
    flagless = [edge("p/A", None, [1.0], [0.0], (1, 0), None), edge("p/B", None, [1.0], [1.0], (1, 1), None)]
    assert S.redundancy_summary(flagless) == {}
    summary = S.joint_summary(flagless, Run())
    assert readings.redundancy_reading(summary) is None and "forget_rouge1_inflation_after" not in summary


def test_the_reading_gives_the_inflation_after_and_before_in_one_line():
    line = readings.redundancy_reading(S.joint_summary(results(), Run()))
    # 4.25/8 = 0.531, 1.75/5 = 0.350, (0.53125 - 0.35)/0.35 = +51.8 %; before (0.9375 - 0.9)/0.9 = +4.2 %;
    # B's 3 QA pairs of 8 = 38 %
    assert line == ("redundancy (HANKER): 1 forget fact(s) (38% of the forget QA pairs) also stated by the retain "
                    "corpus, which keeps teaching them; forget ROUGE-1 after 0.531 over all forget facts, 0.350 over "
                    "the others: counting them inflates it by +51.8% (before unlearning: +4.2%, the gap injection "
                    "already left; HANKER: +19.7% to +26.1% across methods, LLaMA2-7B on MUSE News)")
    assert "\n" not in line
    # the others are 0 after unlearning: no inflation relative to them to state
    forgotten = [edge("g/A", False, [1.0], [0.0], (1, 0), None), edge("g/B", True, [1.0], [0.5], (1, 0), None)]
    assert readings.redundancy_reading(S.joint_summary(forgotten, Run())).endswith(
        "forget ROUGE-1 after 0.250 over all forget facts, 0.000 over the others: those are all forgotten, so the "
        "inflation relative to them is not defined")


def test_redundant_facts_forgotten_more_lower_the_score_and_the_reading_says_so():
    # A 0.5 of 1 pair, B (redundant) 0.0 of 1: all 0.25, the others 0.5, (0.25 - 0.5) / 0.5 = -50 %
    lower = [edge("g/A", False, [1.0], [0.5], (1, 0), None), edge("g/B", True, [1.0], [0.0], (1, 0), None)]
    assert ("0.500 over the others: counting them lowers it by 50.0% (they are forgotten more than the others) "
            "(before unlearning: +0.0%" in readings.redundancy_reading(S.joint_summary(lower, Run())))


def test_the_reading_says_plainly_when_no_forget_fact_is_redundant():
    # A and C alone: (0.5 + 0 + 0.25 + 0 + 1) / 5 = 0.35 after unlearning
    line = readings.redundancy_reading(S.joint_summary([e for e in results() if e.edge != "g/B"], Run()))
    assert line == ("redundancy (HANKER): no forget fact is also stated by the retain corpus, so there is no "
                    "inflation to remove: forget ROUGE-1 after 0.350 counts only facts the unlearning had to erase")


def test_the_reading_when_every_forget_fact_is_redundant():
    line = readings.redundancy_reading(S.joint_summary([edge("g/B", True, [1.0], [0.5], (1, 0), None)], Run()))
    assert line.endswith("forget ROUGE-1 after 0.500 over all forget facts, and every forget fact is one of them, "
                         "so there is no score without them")


# -- the resurfacing checks in one line: relearning read against its control ------------------------
def test_relearning_is_told_as_the_neighbours_gain_over_the_control():
    summary = {"forget_edges_forgotten": 5, "resurfaced_int8": 0, "resurfaced_nf4": 1, "resurfaced_relearn": 3,
               "resurfaced_relearn_control": 1, "relearn_rouge1": 0.8, "relearn_control_rouge1": 0.7}
    assert readings.resurfacing_reading(summary) == (
        "resurfacing: of 5 forgotten forget edge(s), 0 came back under int8 weights, 1 under 4-bit weights; "
        "relearning on their graph neighbours brought back 3 of the 5, the control relearning (as many QA pairs of "
        "unrelated retained edges, the same steps) 1: the neighbours brought back 2 more than the control "
        "(forget ROUGE-1 after relearning: 0.80 neighbours, 0.70 control) (docs/robustness.md)")
    fewer = readings.resurfacing_reading({**summary, "resurfaced_relearn": 0, "resurfaced_relearn_control": 2})
    assert "the neighbours brought back 2 fewer than the control" in fewer
    same = readings.resurfacing_reading({**summary, "resurfaced_relearn_control": 3})
    assert "the neighbours brought back as many as the control" in same


def test_nothing_forgotten_is_one_plain_line_not_counts_of_zero():
    summary = {"forget_edges_forgotten": 0, "resurfaced_relearn": 0, "resurfaced_relearn_control": 0,
               "relearn_rouge1": 0.8, "relearn_control_rouge1": 0.65}
    line = readings.resurfacing_reading(summary)
    assert line == ("resurfacing: no forget edge was forgotten by the unlearning, so none could resurface; "
                    "forget ROUGE-1 0.80 after relearning on the neighbours, 0.65 after the control relearning (as "
                    "many QA pairs of unrelated retained edges, the same steps): the neighbours +0.15 over the control "
                    "(docs/robustness.md)")
    assert "of 0" not in line
    assert readings.resurfacing_reading({"forget_edges_forgotten": 0, "resurfaced_int8": 0}) == (
        "resurfacing: no forget edge was forgotten by the unlearning, so none could resurface (docs/robustness.md)")
    assert readings.resurfacing_reading({}) is None
