"""Screenshots of a replayed race and of the result card (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1920x1080x24" \
        .venv/bin/python -m tests.gui.present.screenshots_race artifacts

Stores two sweeps the way the runner stores them (scripted events, one sample a second: an
NVMe array and an HDD array with a quarter of its throughput and more noise, and a price for
the NVMe drives), then drives the booth (a loop of 3 replays, the second run failing) on the
Present view at 1920x1080, 1366x768 and 1280x720: the race mid-way through a step (the ratio,
the ghost curve), the end state with the result card over the race, and the corner error
(the loop carrying on after a failed run). ``ahead`` replays the NVMe array against the HDD
array, ``behind`` the HDD array against the NVMe one.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

SIZES = ((1920, 1080), (1366, 768), (1280, 720))


def _slow(events: list[Any], factor: float) -> list[Any]:
    """The same sweep at ``factor`` of the throughput (the HDD array)."""
    for event in events:
        for key in ("nopm_db", "nopm_driver", "tpm_db", "tpm_driver"):
            if event.kind == "sample" and isinstance(event.data.get(key), float):
                event.data[key] *= factor
        # Each step's summary, and the run's (its steps again: the screen reads those last).
        for summary in [event.data.get("summary"), *event.data.get("steps", [])]:
            if not isinstance(summary, dict):
                continue
            for key in ("nopm", "tpm", "nopm_driver"):
                summary[key] *= factor
            latency = summary.get("latency_ms", {}).get("all", {})
            for key in list(latency):
                latency[key] *= 9
    return events


class PausingClock:
    """A VirtualClock that holds the replay once its time reaches ``pause_at`` (stored
    seconds since the run began) until ``resume`` is set: the screenshot of a race mid-way."""

    def __init__(self, pause_at: float) -> None:
        from bench_gui.services.pacing import VirtualClock

        self.inner = VirtualClock()
        self.pause_at = pause_at
        self.paused = threading.Event()
        self.resume = threading.Event()

    def now(self) -> float:
        return self.inner.now()

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        cut = self.inner.wait(seconds, stop)
        if self.inner.time >= self.pause_at and not self.resume.is_set():
            self.paused.set()
            while not self.resume.wait(0.05):
                if stop.is_set():
                    return True
        return cut


def card_shots(app: Any, out: Path) -> None:
    """The result card over the Present view with three known figures (no price, no TPM)
    and with five (a race and a meter's watts and NOPM per watt, no price), at each size:
    ``card3_SIZE.png``, ``card5_SIZE.png``; every row should run the card's width."""
    from bench_gui.gui.present.result_card import ResultCard
    from bench_gui.gui.present.view import PresentView
    from bench_gui.services.result_figures import ResultFigures

    for count, power in ((3, None), (5, 412.0)):
        figures = ResultFigures(
            session_id=1,
            name="NVMe RAID 10 (4 x 3.84 TB)",
            status="complete",
            best_nopm=221_739.0,
            best_vus=64,
            p99_ms=19.9,
            times_text="4.2X",
            times_note="vs HDD array at 64 users",
            cost_text=None,
            cost_note="not priced",
            power_w=power,
        )
        for width, height in SIZES:
            view = PresentView()
            view.resize(width, height)
            view.show()
            view.show_overlay(ResultCard(figures, 2, 3, 15))
            for _ in range(40):
                app.processEvents()
            view.grab().save(str(out / f"card{count}_{width}x{height}.png"))
            view.close()


def main(out_dir: str) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-shots-"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.core.economics import ArrayInput, DevicePrice
    from bench_gui.gui.app import apply_theme
    from bench_gui.gui.present.booth import Booth
    from bench_gui.gui.present.view import PresentView
    from bench_gui.services.booth import BoothOptions, booth_setup
    from bench_gui.services.run_errors import RunError
    from bench_gui.store import SessionStore
    from tests._fixtures.scripted import sweep_events
    from tests._fixtures.seed_sessions import store_session

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    apply_theme(app)
    store = SessionStore(Path(os.environ["BENCH_GUI_DATA_DIR"]) / "sessions.sqlite3")
    vus = (8, 16, 32, 64)
    fast = store_session(
        store,
        "NVMe RAID 10 (4 x 3.84 TB)",
        sweep_events(vus=vus, rampup_s=10, duration_s=40, noise=0.04, seed=3),
    )
    slow = store_session(
        store,
        "HDD array (16 x 15K SAS)",
        _slow(sweep_events(vus=vus, rampup_s=10, duration_s=40, noise=0.12, seed=8), 0.24),
    )
    store.add_device_price(DevicePrice("NVMe 3.84TB", 689.0, "USD", "2025-05-01", "web shops"))
    store.set_run_array(fast, ArrayInput(device="NVMe 3.84TB", count=4))

    def settle() -> None:
        for _ in range(40):
            app.processEvents()

    races = (("ahead", (str(fast), str(slow))), ("behind", (str(slow), str(fast))))
    for width, height in SIZES:
        for kind, replay in races:
            screen = PresentView()
            screen.resize(width, height)
            screen.show()
            # Step 3 of run 1, 30 s into its 50 s (the steps start about 50.7 s apart).
            clock = PausingClock(pause_at=(2 * 50.7 + 0.5 + 30) / 10)  # at 10x
            setup = booth_setup(
                BoothOptions(replay=replay, speed=10, runs=3, card_seconds=15),
                store,
                clock=clock,  # type: ignore[arg-type]
            )
            inner = setup.run_factory

            def factory(number: int, inner: Any = inner) -> Any:
                if number == 2:
                    raise RunError("cannot connect to the database: connection refused")
                return inner(number)

            setup.run_factory = factory
            booth = Booth(setup, screen)  # type: ignore[arg-type]
            done: list[Any] = []
            booth.finished.connect(done.append)
            booth.start()
            while not clock.paused.is_set():
                app.processEvents()
                if done:
                    raise SystemExit("the replay ended before the pause: check pause_at")
            settle()
            booth.update_race()
            screen.refresh()
            settle()
            name = f"{kind}_race_{width}x{height}.png"
            screen.grab().save(str(out / name))
            sys.stdout.write(f"{name}: {screen.ratio_text}\n")
            clock.resume.set()
            while not done:
                app.processEvents()
            booth.shutdown(30)
            settle()
            name = f"{kind}_card_{width}x{height}.png"
            screen.grab().save(str(out / name))
            sys.stdout.write(f"{name}: {done[0]} | {booth.errors}\n")
            screen.show_overlay(None)
            screen.show_corner_error(booth.errors[0])
            settle()
            screen.grab().save(str(out / f"{kind}_error_{width}x{height}.png"))
            screen.close()
    store.close()
    card_shots(app, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
