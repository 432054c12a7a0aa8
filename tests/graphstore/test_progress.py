"""Progress off a terminal: lines at most every AUDIT_PROGRESS_INTERVAL seconds, a final line,
nothing when quiet. pytest captures stderr, so it is not a terminal here."""

from __future__ import annotations

import pytest

from graphstore import progress as P


@pytest.fixture(autouse=True)
def loud():
    P.set_quiet(False)
    yield
    P.set_quiet(False)


def test_lines_within_a_phase_and_one_when_it_ends(capsys, monkeypatch):
    monkeypatch.setenv("AUDIT_PROGRESS_INTERVAL", "0")
    with P.Progress("unlearn (ga)", total=4, unit="epochs") as bar:
        for step in range(4):
            bar.update(1, loss=f"{1.0 / (step + 1):.3f}")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("unlearn (ga): 1/4 epochs, loss 1.000, ") and "epochs/s, ETA " in lines[0]
    assert lines[3].startswith("unlearn (ga): 4/4 epochs, loss 0.250, ") and "ETA" not in lines[3]
    assert lines[4].startswith("unlearn (ga): done, 4 epochs in ") and lines[4].endswith("loss 0.250")
    assert len(lines) == 5


def test_the_interval_limits_the_lines(capsys, monkeypatch):
    monkeypatch.setenv("AUDIT_PROGRESS_INTERVAL", "3600")
    with P.Progress("measure", total=1000, unit="QA pairs") as bar:
        for _ in range(1000):
            bar.update(1)
    lines = capsys.readouterr().err.splitlines()   # no hour passed: only the final line
    assert len(lines) == 1 and lines[0].startswith("measure: done, 1000 QA pairs in ")


def test_quiet_and_silent_phases_write_nothing(capsys, monkeypatch):
    monkeypatch.setenv("AUDIT_PROGRESS_INTERVAL", "0")
    with P.Progress(None, total=3) as bar:      # a phase its caller reports itself
        bar.update(3)
    P.set_quiet(True)
    with P.Progress("unlearn", total=3) as bar:
        bar.update(3)
    P.say("starting run x")
    assert capsys.readouterr().err == ""
    P.set_quiet(False)
    P.say("starting run x")
    assert capsys.readouterr().err == "starting run x\n"


def test_a_failed_phase_writes_no_done_line(capsys, monkeypatch):
    monkeypatch.setenv("AUDIT_PROGRESS_INTERVAL", "3600")
    with pytest.raises(RuntimeError):
        with P.Progress("inject", total=5) as bar:
            bar.update(1)
            raise RuntimeError("killed")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("seconds, text", [(0, "0s"), (59.4, "59s"), (61, "1m01s"), (3600 * 2 + 120, "2h02m")])
def test_durations(seconds, text):
    assert P.duration(seconds) == text


def test_the_time_left_counts_to_the_expected_stop(capsys, monkeypatch):
    # a clock that moves 2 s per unit: the measured rate is 0.5 units/s
    now = [1000.0]
    monkeypatch.setattr(P.time, "monotonic", lambda: now[0])
    monkeypatch.setenv("AUDIT_PROGRESS_INTERVAL", "0")
    with P.Progress("inject demo", total=150, unit="epochs") as bar:
        for epoch in range(1, 21):
            now[0] += 2.0
            if epoch == 20:
                bar.expect(40)   # e.g. recall rising to the target by the evaluation of epoch 40
            bar.update(1)
        lines = capsys.readouterr().err.splitlines()
        # by hand: 10 epochs in 20 s, 140 left at 0.5/s = 280 s; then 20 left to epoch 40 = 40 s
        assert lines[9] == "inject demo: 10/150 epochs, 0.5 epochs/s, ETA 4m40s"
        assert lines[19] == "inject demo: 20/150 epochs, 0.5 epochs/s, ETA 40s (expected to stop at 40)"
        bar.expect(None)   # no longer told: back to the cap, 130 left = 260 s
        now[0] += 2.0
        bar.update(1)
        assert capsys.readouterr().err.splitlines() == ["inject demo: 21/150 epochs, 0.5 epochs/s, ETA 4m18s"]
