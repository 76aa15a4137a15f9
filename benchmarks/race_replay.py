"""The cost of a race and of a replay: what a booth's second and a replayed hour cost the CPU.

A race recomputes its ghost curve and figure once a second from the whole run so far; a replay
reads a session back and feeds it to the live model. Both are timed on a long sweep stored the
way the runner stores one (one sample a second), with no wall-clock waiting (VirtualClock).

    python benchmarks/race_replay.py                 # 12 steps of 5 minutes
    python benchmarks/race_replay.py --steps 24 --step-s 600
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_gui.services.live_model import LiveModel
from bench_gui.services.pacing import VirtualClock
from bench_gui.services.race import Race, load_rival
from bench_gui.services.replay import ReplayController
from bench_gui.store import SessionStore
from tests._fixtures.scripted import sweep_events
from tests._fixtures.seed_sessions import store_session


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--step-s", type=int, default=300, help="seconds per step")
    args = parser.parse_args()
    vus = tuple(8 * (i + 1) for i in range(args.steps))
    with tempfile.TemporaryDirectory() as folder:
        store = SessionStore(Path(folder) / "sessions.sqlite3")
        events = sweep_events(vus=vus, rampup_s=30, duration_s=args.step_s - 30, noise=0.05)
        t0 = time.perf_counter()
        live_id = store_session(store, "live", events)
        rival_id = store_session(
            store, "rival", sweep_events(vus=vus, rampup_s=30, duration_s=args.step_s - 30)
        )
        stored_s = time.perf_counter() - t0
        samples = len(store.samples(live_id))
        print(f"stored 2 sessions of {samples:,} samples each in {stored_s:.1f} s")

        t0 = time.perf_counter()
        rival = load_rival(store, rival_id)
        print(f"load_rival: {1000 * (time.perf_counter() - t0):.1f} ms")

        model = LiveModel()
        replay = ReplayController(store, live_id, speed=1, clock=VirtualClock())
        t0 = time.perf_counter()
        model.feed_all(replay.events())
        replay_s = time.perf_counter() - t0
        print(
            f"replay into the live model: {replay.emitted:,} events in {replay_s:.2f} s"
            f" ({replay.emitted / replay_s:,.0f} events/s; the run lasted"
            f" {samples / 3600:.1f} h)"
        )

        race = Race(rival)
        rounds = 50
        t0 = time.perf_counter()
        for _ in range(rounds):
            frame = race.frame(model)
        per_frame = (time.perf_counter() - t0) / rounds
        print(
            f"race frame at the end of the run ({len(frame.ghost):,} ghost points):"
            f" {1000 * per_frame:.2f} ms (one a second)"
        )
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
