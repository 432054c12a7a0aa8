"""One lifecycle for every kind of run: created, resumed, refused, and how it ended."""

from __future__ import annotations

import pytest

from audit.results import repository as R
from audit.run.lifecycle import RunLifecycle, Writes
from graphstore.errors import ConfigError


def status(store, run):
    return store.read("MATCH (r:Run {key: $run}) RETURN r.status AS status, r.error AS error", run=run)[0]


def test_a_run_ends_done_failed_or_interrupted(store):
    life = RunLifecycle(store, "life-1", {"graph": "g", "method": "ga"})
    assert life.finished() is None
    assert life.start({"mode": "joint"}) is False          # created
    with pytest.raises(RuntimeError):
        with life.running():
            raise RuntimeError("the model broke")
    assert status(store, "life-1") == {"status": R.FAILED, "error": "the model broke"}

    assert RunLifecycle(store, "life-1", {"graph": "g", "method": "ga"}).start({"mode": "joint"}) is True  # resumed
    with pytest.raises(KeyboardInterrupt):
        with life.running():
            raise KeyboardInterrupt
    assert status(store, "life-1")["status"] == R.INTERRUPTED

    with life.running():
        pass
    life.finish({"deviation_score": 12.5})
    done = RunLifecycle(store, "life-1", {"graph": "g", "method": "ga"}).finished()
    assert done is not None and done.deviation_score == 12.5 and done.status == R.DONE
    assert done.settings_sha256 == life.settings_sha256 and done.code_version


def test_the_same_key_with_other_settings_is_refused(store):
    RunLifecycle(store, "life-2", {"graph": "g", "method": "ga"}).start({})
    other = RunLifecycle(store, "life-2", {"graph": "g", "method": "npo"})
    assert other.finished() is None
    with pytest.raises(ConfigError, match="run 'life-2' already exists with other settings"):
        other.start({})


class Step:
    """A phase that records when it runs and gives one Run property to write."""

    def __init__(self, name: str, prop: str, log: list):
        self.name, self.prop, self.log = name, prop, log

    def done(self, state) -> bool:
        return state.run.get(self.prop) is not None

    def run(self, context) -> Writes:
        self.log.append((self.name, context))
        return Writes([{"edge": "g/a_b", "rouge1_before": 0.5}] if self.name == "first" else [],
                      {self.prop: self.name})


def test_the_lifecycle_runs_the_phases_not_done_and_writes_what_they_give(store):
    life = RunLifecycle(store, "life-3", {"graph": "g", "method": "ga"})
    life.start({"mode": "joint"})
    life.update(error="first")   # as if an earlier process had done the first phase
    log = []
    with life.running():
        life.advance([Step("first", "error", log), Step("second", "mode", log), Step("third", "model", log)], "ctx")
    assert log == [("third", "ctx")]   # "mode" was written at the start: that phase is done too
    state = life.state()
    assert state.run.model == "third" and state.results == {}
    life.advance([Step("first", "templates", log)], "ctx")
    assert life.state().results["g/a_b"].rouge1_before == 0.5
    assert life.state().measured(["g/a_b"], "rouge1_before") and not life.state().measured(["g/a_b"], "rouge1_after")
