"""The Live page's model, fed real protocol events (no rendering)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from bench_gui.services.live_model import SAMPLE_COLUMNS, LiveModel, RingBuffer
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import (
    DRIVER_RATIO,
    TPM_RATIO,
    EventScript,
    capacity,
    latency_avg,
    sweep_events,
)

pytestmark = pytest.mark.gui

VUS = (8, 16, 24)
RAMPUP = 3
DURATION = 5


def _feed_until(
    model: LiveModel, events: Iterator[Event], predicate: Callable[[Event], bool]
) -> None:
    """Feed events from an iterator up to and including the first that matches."""
    for event in events:
        model.feed(event)
        if predicate(event):
            return
    raise AssertionError("no such event")


def _sample(step: int, elapsed: float) -> Callable[[Event], bool]:
    return lambda e: e.kind == "sample" and e.get("step") == step and e.get("elapsed") == elapsed


def test_ring_buffer_drops_oldest_and_stays_contiguous() -> None:
    buf = RingBuffer(("t", "v"), capacity=4)
    for i in range(11):
        buf.append({"t": float(i), "v": 10.0 * i})
    assert len(buf) == 4
    assert buf.column("t").tolist() == [7.0, 8.0, 9.0, 10.0]
    assert buf.column("v").tolist() == [70.0, 80.0, 90.0, 100.0]
    assert buf.last("t", 2).tolist() == [9.0, 10.0]
    assert buf.column("t").flags["C_CONTIGUOUS"]
    with pytest.raises(ValueError, match="read-only"):
        buf.column("t")[0] = 1.0
    buf.append({"t": 11.0})  # a missing column is NaN
    assert math.isnan(buf.column("v")[-1])
    buf.clear()
    assert len(buf) == 0


def test_model_follows_a_sweep_step_by_step() -> None:
    all_events = sweep_events(VUS, RAMPUP, DURATION)
    events = iter(all_events)
    model = LiveModel(smoothing=5)
    model.begin(VUS, RAMPUP, DURATION, "scripted")
    assert model.phase == "starting"

    # hello: engine and server; nothing measured yet.
    model.feed(next(events))
    assert (model.engine, model.server) == ("postgresql", "PostgreSQL 16.4")
    assert model.tiles().nopm is None

    # First second of ramp-up in step 1 of 3.
    _feed_until(model, events, _sample(0, 1.0))
    assert model.phase == "rampup"
    assert model.phase_label == "Ramp-up"
    assert (model.step_number, model.step_count, model.vus) == (1, 3, 8)
    # 7 s left in the step, of which the 5 s measured window: 2 s of ramp-up left.
    assert model.remaining == RAMPUP + DURATION - 1
    assert model.phase_remaining() == pytest.approx(2.0)
    assert model.remaining_at is not None
    assert model.phase_remaining(now=model.remaining_at + 1.5) == pytest.approx(0.5)
    tiles = model.tiles()
    assert tiles.nopm == pytest.approx(capacity(8) / RAMPUP)
    assert tiles.tpm == pytest.approx(capacity(8) / RAMPUP * TPM_RATIO)
    assert tiles.nopm_driver == pytest.approx(capacity(8) / RAMPUP * DRIVER_RATIO)

    # Into the measured window.
    _feed_until(model, events, _sample(0, 4.0))
    assert model.phase == "measure"
    assert model.phase_label == "Measuring"
    assert model.phase_remaining() == pytest.approx(4.0)

    # Through the step's end.
    _feed_until(model, events, lambda e: e.kind == "step" and e.get("phase") == "end")
    assert model.phase == "between"
    assert model.phase_remaining() is None
    tiles = model.tiles()
    # The last 5 samples are all in the measured window, at full throughput.
    assert tiles.nopm == pytest.approx(capacity(8))
    assert tiles.latency_avg_ms == pytest.approx(latency_avg(8))
    assert tiles.latency_p999_ms == pytest.approx(latency_avg(8) * 5, abs=1e-3)
    assert tiles.vus == 8
    assert [(p.step, p.vus, p.complete) for p in model.points] == [(0, 8, True)]
    assert model.points[0].nopm == pytest.approx(capacity(8))
    assert model.points[0].latency_all["p99"] == pytest.approx(latency_avg(8) * 3, abs=1e-3)

    # The buffers hold one row per sample, on run time from the first event.
    buf = model.samples
    assert len(buf) == RAMPUP + DURATION
    assert buf.column("t").tolist() == pytest.approx([1.5 + k for k in range(8)])
    assert np.all(buf.column("vus") == 8)
    assert buf.column("nopm")[-1] == pytest.approx(capacity(8))
    assert buf.column("lat_p95")[-1] == pytest.approx(latency_avg(8) * 2, abs=1e-3)

    # Second step: the tiles average only this step's samples.
    _feed_until(model, events, _sample(1, 1.0))
    assert (model.step_number, model.vus, model.phase) == (2, 16, "rampup")
    assert model.tiles().nopm == pytest.approx(capacity(16) / RAMPUP)
    assert [m[2] for m in model.markers] == [8, 16]

    # To the end of the run.
    model.feed_all(events)
    assert model.phase == "ok"
    assert model.ended
    assert model.phase_label == "Finished"
    assert model.status_message == "sweep complete"
    assert [p.vus for p in model.points] == list(VUS)
    best = model.best_point()
    assert best is not None
    assert best.vus == 24
    assert len(model.samples) == len(VUS) * (RAMPUP + DURATION)
    assert model.tiles().rollbacks == sum(
        e.get("rollbacks") for e in all_events if e.kind == "sample"
    )


def test_a_stopped_run_keeps_its_partial_step() -> None:
    events = sweep_events(VUS, RAMPUP, DURATION, stop_in_step=1)
    model = LiveModel()
    model.begin(VUS, RAMPUP, DURATION, "stopped")
    model.feed_all(events)
    assert model.phase == "stopped"
    assert model.phase_label == "Stopped"
    assert [(p.vus, p.complete) for p in model.points] == [(8, True), (16, False)]
    # A partial step never counts as the best, as in the session store.
    best = model.best_point()
    assert best is not None
    assert best.vus == 8


def test_missing_database_counters_fall_back_to_the_driver() -> None:
    model = LiveModel()
    model.feed_all(sweep_events((4,), 1, 2, db_counters=False))
    nopm = model.samples.column("nopm")
    assert np.all(np.isnan(model.samples.column("nopm_db")))
    assert nopm.tolist() == pytest.approx(model.samples.column("nopm_driver").tolist())


def test_plan_shape_comes_from_hello_without_a_plan() -> None:
    model = LiveModel()
    model.feed_all(sweep_events((2, 4), 1, 2)[:3])
    assert model.planned_vus == [2, 4]
    assert model.step_count == 2


def test_errors_and_fatal_error_events() -> None:
    script = EventScript()
    script.emit("step", phase="start", step=0, vus=4)
    script.emit("sample", dt=1, step=0, vus=4, phase="measure", errors={"deadlock": 2})
    script.emit("sample", dt=1, step=0, vus=4, phase="measure", errors={"deadlock": 1, "x": 1})
    script.emit("error", message="lost the connection", fatal=False)
    model = LiveModel()
    model.feed_all(script.events)
    assert model.tiles().errors == 4
    assert not model.ended
    script.emit("error", message="server closed the connection", fatal=True)
    model.feed(script.events[-1])
    assert model.phase == "failed"
    assert model.status_message == "server closed the connection"
    assert model.error_messages == ["lost the connection", "server closed the connection"]


def test_the_reset_between_steps_is_followed_and_a_silent_database_said() -> None:
    """A reset's progress (issue 25) keeps the host's rows coming and says when the database
    has not answered for a while."""
    script = EventScript()
    model = LiveModel()
    model.feed(script.emit("step", phase="end", step=0, vus=8, summary={"step": 0, "vus": 8}))
    before = len(model.samples)
    host = {"cpu": {"user": 10.0, "system": 2.5, "iowait": 0.0, "idle": 87.5}}
    what = "step 2: resetting tpcc from tpcc_template"
    model.feed(script.emit("progress", 1.0, task="reset", done=1.0, message=what, host=host))
    assert model.phase_label == "Preparing the database"
    assert model.db_warning == ""
    model.feed(
        script.emit(
            "progress", 1.0, task="reset", done=4.0, message=what, db_not_answering_s=3.4, host=host
        )
    )
    assert model.db_warning == "database not answering for 3 s"
    assert len(model.samples) == before + 2


def test_odd_payloads_are_ignored_not_fatal() -> None:
    script = EventScript()
    script.emit("sample", step="x", vus=None, latency_ms="n/a", errors=[1], remaining="soon")
    script.emit("step", phase="end", step=0, vus=4, summary={"vus": "four"})
    script.emit("progress", task="build", done=1, total=2)
    model = LiveModel()
    model.feed_all(script.events)
    assert len(model.samples) == 1
    row = {name: model.samples.column(name)[0] for name in SAMPLE_COLUMNS}
    assert math.isnan(row["lat_avg"])
    assert math.isnan(row["nopm"])
    assert model.points == []
    assert model.tiles().nopm is None


def test_a_database_that_does_not_answer_is_said_until_it_answers() -> None:
    """Samples of a hung database carry how long it has been silent (issue 15)."""
    script = EventScript()
    model = LiveModel()
    model.feed(script.emit("step", phase="start", step=0, vus=8))
    base = {"step": 0, "vus": 8, "phase": "measure", "nopm_driver": 0.0}
    model.feed(script.emit("sample", 1.0, elapsed=1.0, nopm_db=900.0, **base))
    assert model.db_warning == ""
    model.feed(
        script.emit("sample", 1.0, elapsed=2.0, nopm_db=None, db_not_answering_s=0.5, **base)
    )
    model.feed(
        script.emit("sample", 1.0, elapsed=3.0, nopm_db=None, db_not_answering_s=1.5, **base)
    )
    assert model.db_silent_s == 1.5
    assert model.db_warning == ""  # a slow second is not worth a warning yet
    model.feed(script.emit("sample", 1.0, elapsed=3.5, db_not_answering_s=3.2, **base))
    assert model.db_warning == "database not answering for 3 s"
    assert model.samples.last("nopm")[-1] == 0.0  # the driver's rate stands in meanwhile
    model.feed(script.emit("sample", 1.0, elapsed=4.0, nopm_db=800.0, **base))
    assert model.db_warning == ""
    model.feed(script.emit("sample", 1.0, elapsed=4.5, nopm_db=700.0, vus_down=2, **base))
    assert model.db_warning == "2 users reconnecting"  # issue 25: their connection broke
    model.feed(script.emit("sample", 1.0, elapsed=4.7, db_not_answering_s=2.5, vus_down=1, **base))
    assert model.db_warning == "database not answering for 2 s · 1 user reconnecting"
    model.feed(script.emit("sample", 1.0, elapsed=5.0, db_not_answering_s=9.0, **base))
    model.feed(script.emit("done", 1.0, status="failed", message="the database has not answered"))
    assert model.db_warning == ""  # the run's end says what happened instead
