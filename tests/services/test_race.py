"""Racing a run against a stored session: alignment by step, the ghost curve, the live figure.

The live side is a real LiveModel fed real protocol events; the stored side is a real
SessionStore holding the seed briefs' sessions (tests/_fixtures/seed_sessions.py) or sweeps
recorded the way the runner records them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.core.compare import format_ratio
from bench_gui.services.live_model import LiveModel
from bench_gui.services.race import (
    AHEAD,
    BEHIND,
    LEVEL,
    MEASURE,
    NEUTRAL,
    RAMPUP,
    RESULT,
    UNMATCHED,
    Race,
    RaceError,
    find_session,
    load_rival,
    session_label,
)
from bench_gui.services.replay import stored_stream
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import capacity, sweep_events
from tests._fixtures.seed_sessions import (
    SEED003_BASELINE,
    SEED003_SCALED,
    TABLE1,
    build_seed000,
    build_seed003,
    store_session,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    opened = SessionStore(tmp_path / "sessions.sqlite3")
    yield opened
    opened.close()


def _step_ends(events: list[Event]) -> Iterator[tuple[Event, int | None]]:
    """Each event, with its user count when it ends a step (else None)."""
    for event in events:
        ends = event.kind == "step" and event.get("phase") == "end"
        yield event, (int(event.get("vus")) if ends else None)


def test_seed000_races_step_by_step_with_the_published_ratios(store: SessionStore) -> None:
    """The S650DC sweep replayed against the stored HDD sweep: after each step the figure is
    seed 000's Table 1 ratio at that user count, aligned by the same users."""
    hdd, ssd = build_seed000(store)
    rival = load_rival(store, hdd)
    assert rival.label == "HDD RAID 10"
    race = Race(rival)
    model = LiveModel()
    seen: dict[int, str] = {}
    for event, vus in _step_ends(stored_stream(store, ssd)):
        model.feed(event)
        if vus:
            frame = race.frame(model)
            assert frame.state == RESULT
            assert frame.alignment is not None
            assert frame.alignment.by_users
            assert frame.alignment.stored.vus == vus
            seen[vus] = frame.ratio_text or ""
    assert seen == {vus: f"{ratio} vs HDD RAID 10 at {vus} users" for vus, ratio in TABLE1.items()}


def test_steps_with_other_user_counts_are_matched_by_step_order(store: SessionStore) -> None:
    """Seed 003: the scaled sweep has 192, 288, 408, 480 users where the baseline has 144, 192,
    240. Same users where there are some, else the same step index, and the UI says which."""
    base, scaled = build_seed003(store)
    race = Race(load_rival(store, base))
    model = LiveModel()
    aligned: list[tuple[int, int | None, bool | None, str]] = []
    for event, vus in _step_ends(stored_stream(store, scaled)):
        model.feed(event)
        if vus:
            frame = race.frame(model)
            a = frame.alignment
            text = frame.ratio_text or ""
            aligned.append((vus, a.stored.vus if a else None, a.by_users if a else None, text))
    base_nopm = {v: n for v, n, *_ in SEED003_BASELINE}
    scaled_nopm = {v: n for v, n, *_ in SEED003_SCALED}
    assert [(v, s, b) for v, s, b, _ in aligned] == [
        (48, 48, True),
        (96, 96, True),
        (192, 192, True),
        (288, 192, False),  # step 4: no 288 stored, the baseline's step 4 has 192 users
        (408, 240, False),
        (480, None, None),  # the baseline has no step 6 and no step at 480 users
    ]
    label = "2x 9300 PRO mirrored"
    assert aligned[0][3] == f"+5% vs {label} at 48 users"  # 210,000 / 200,000
    assert aligned[3][3] == f"+25% vs {label} step 4 (192 users)"  # 550,000 / 440,000
    assert scaled_nopm[288] / base_nopm[192] == pytest.approx(1.25)
    assert aligned[5][3] == f"{label} has no step 6 and no step at 480 users to race"
    frame = race.frame(model)
    assert frame.state == UNMATCHED


def _store_sweep(store: SessionStore, name: str, vus: tuple[int, ...], rampup: int) -> int:
    return store_session(store, name, sweep_events(vus=vus, rampup_s=rampup, duration_s=6))


def test_the_ghost_is_the_stored_step_placed_at_the_live_step_start(store: SessionStore) -> None:
    """Per-second stored NOPM, shifted to where each live step began, never ahead of the live
    run's latest second; the figure is live NOPM over the stored step's NOPM."""
    rival_id = _store_sweep(store, "HDD array (scripted)", (8, 16), rampup=2)
    race = Race(load_rival(store, rival_id))
    live = sweep_events(vus=(8, 16), rampup_s=3, duration_s=6)
    model = LiveModel()
    t0 = live[0].t
    starts: list[float] = []
    checked_rampup = checked_measure = False
    for event in live:
        model.feed(event)
        if event.kind == "step" and event.get("phase") == "start":
            starts.append(event.t - t0)
        if event.kind != "sample":
            continue
        frame = race.frame(model)
        now = event.t - t0
        # Every ghost point: the stored step's second ``elapsed`` at live step start + elapsed.
        expected = []
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else now
            users = (8, 16)[i]
            for second in range(1, 9):
                if start + second > end:
                    break
                ramp = second / 2 if second <= 2 else 1.0
                expected.append((start + second, round(capacity(users) * ramp, 3)))
        assert [t for t, _ in frame.ghost] == pytest.approx([t for t, _ in expected])
        assert [n for _, n in frame.ghost] == pytest.approx([n for _, n in expected])
        assert all(t <= now for t, _ in frame.ghost)
        if event.get("phase") == "rampup":
            assert frame.state == RAMPUP
            assert frame.ratio is None
            assert frame.ratio_text == (
                f"Ramp-up: vs HDD array at {event.get('vus')} users once measuring starts"
            )
            checked_rampup = True
        else:
            assert frame.state == MEASURE
            stored_nopm = frame.alignment.stored.nopm if frame.alignment else None
            live_nopm = model.tiles().nopm
            assert live_nopm is not None
            assert stored_nopm is not None
            assert frame.ratio == pytest.approx(live_nopm / stored_nopm)
            at = f"at {event.get('vus')} users"
            figure = format_ratio(live_nopm / stored_nopm)
            assert frame.ratio_text == f"{figure} vs HDD array {at}"
            if event.get("elapsed") >= 3 + 5:  # the tile's 5 s average is all measured seconds
                assert frame.ratio_text == f"±0% vs HDD array {at}"  # the same curve on both
                assert frame.headline is not None
                assert frame.headline.tone == LEVEL
            assert frame.ghost_label == f"HDD array at {event.get('vus')} users"
            checked_measure = True
    assert checked_rampup
    assert checked_measure


def test_a_step_stored_without_samples_ghosts_its_result_over_the_measured_window(
    store: SessionStore,
) -> None:
    hdd, _ssd = build_seed000(store)  # steps only, no per-second samples
    race = Race(load_rival(store, hdd))
    model = LiveModel()
    model.begin([8], rampup_s=3, duration_s=6, name="live")
    for event in sweep_events(vus=(8,), rampup_s=3, duration_s=6):
        model.feed(event)
        if event.kind == "sample" and event.get("elapsed") == 5.0:
            break
    start = model.markers[0][0]
    now = float(model.samples.last("t")[-1])
    assert race.ghost(model) == [(start + 3.0, 1365.0), (now, 1365.0)]


def test_find_session_by_id_or_name(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    assert find_session(store, str(hdd)) == hdd
    assert find_session(store, f"#{ssd}") == ssd
    assert find_session(store, "hdd raid 10 (16 x 15k sas)") == hdd  # whole name, any case
    assert find_session(store, "S650DC") == ssd  # part of exactly one name
    with pytest.raises(RaceError, match=f"2 stored sessions match 'RAID 10'.*{hdd} .*{ssd} "):
        find_session(store, "RAID 10")
    with pytest.raises(RaceError, match="no stored session is named 'NVMe'"):
        find_session(store, "NVMe")
    with pytest.raises(RaceError, match="no stored session with id 999"):
        find_session(store, "999")
    with pytest.raises(RaceError, match="no session given"):
        find_session(store, "  ")


def test_a_session_without_steps_cannot_be_raced(store: SessionStore) -> None:
    empty = store.create_run("nothing yet", {}, "", {"kind": "demo"}, "postgresql")
    with pytest.raises(RaceError, match=f"session {empty} \\(nothing yet\\) has no measured step"):
        load_rival(store, empty)
    with pytest.raises(RaceError, match="no stored session with id 4242"):
        load_rival(store, 4242)


def test_labels(store: SessionStore) -> None:
    assert session_label("S650DC RAID 10 (4 x 800GB SAS SSD)") == "S650DC RAID 10"
    assert session_label("(scratch)") == "(scratch)"
    assert session_label("NVMe") == "NVMe"
    hdd, _ = build_seed000(store)
    assert load_rival(store, hdd, label="  the HDD array ").label == "the HDD array"


def _scaled(events: list[Event], factor: float) -> list[Event]:
    """The same sweep with every NOPM/TPM figure times ``factor``."""
    for event in events:
        for key in ("nopm_db", "nopm_driver", "tpm_db", "tpm_driver"):
            if event.kind == "sample" and isinstance(event.data.get(key), float):
                event.data[key] *= factor
        summaries = [event.data.get("summary")] + list(event.data.get("steps") or [])
        for summary in summaries:
            if isinstance(summary, dict):
                for key in ("nopm", "tpm", "nopm_driver"):
                    summary[key] *= factor
    return events


@pytest.mark.parametrize(("factor", "tone", "figure"), [(0.75, BEHIND, "-25%"), (3, AHEAD, "3.0X")])
def test_the_headline_says_ahead_or_behind_against_what_and_at_how_many_users(
    store: SessionStore, factor: float, tone: str, figure: str
) -> None:
    """A slower run is BEHIND (amber on screen), a faster one AHEAD (green); every form of the
    headline is whole, the longest names the rival and the users, the shortest is the figure."""
    rival_id = _store_sweep(store, "HDD array (scripted)", (1, 8), rampup=2)
    race = Race(load_rival(store, rival_id))
    model = LiveModel()
    seen: dict[str, set[tuple[str, ...]]] = {}
    for event in _scaled(sweep_events(vus=(1, 8), rampup_s=2, duration_s=6), factor):
        model.feed(event)
        frame = race.frame(model)
        head = frame.headline
        if head is None:
            continue
        assert head.text == frame.ratio_text
        seen.setdefault(frame.state, set()).add(head.forms)
        if frame.state == RAMPUP:
            assert head.tone == NEUTRAL
            assert head.forms[-1] == "Ramp-up"
        elif frame.ratio is not None and model.tiles().nopm and event.get("elapsed", 0) >= 2 + 5:
            assert head.tone == tone
            assert head.forms[-1] == figure
    ends = {forms[0] for forms in seen[RESULT]}
    assert ends == {f"{figure} vs HDD array at 1 user", f"{figure} vs HDD array at 8 users"}
    assert any(
        f[0] == "Ramp-up: vs HDD array at 1 user once measuring starts" for f in seen[RAMPUP]
    )
    assert any("at 8 users" in f[0] for f in seen[MEASURE])
