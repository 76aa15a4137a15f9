"""Live page under a firehose: an hour of a 64-user run, every series, fed as fast as it takes.

The events are real protocol events (encoded and decoded as the runner receives them), one a
second of run time: a sweep of 8 to 64 users in eight 450-second steps (60 s ramp-up) after a
30-second idle baseline, each sample with latency, NOPM/TPM, power, CPU (two sockets), memory
and five block devices (an MD array and four NVMe members). A producer thread hands them to the
GUI thread one queued signal per event, as the run worker does, in bursts of ``--burst``
events; after each burst it waits until the GUI thread's event loop has turned once (its
timers have run), so the feed goes exactly as fast as the Live page takes it. (Without that
wait, signals posted faster than they are handled would keep the loop in its posted events and
starve every timer, whatever the page did.)

Printed:

- the longest event-loop stall: the largest gap between two ticks of a 2 ms heartbeat timer
  (goal: under 50 ms);
- the redraw time: one tick of the page's redraw timer (tiles, ``setData`` on the charts whose
  turn it is) plus the window's repaint that follows it (the backing store's sync on the
  window's ``UpdateRequest``), per redraw (goal: under 16 ms);
- resident memory before the feed, after its first tenth and at the end (goal: flat: the
  buffers are preallocated).

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python benchmarks/gui_stream.py
    ... benchmarks/gui_stream.py --charts default     # the default six charts, three columns
    ... benchmarks/gui_stream.py --hours 12           # twelve hours of samples
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

STEP_S = 450
RAMPUP_S = 60
IDLE_S = 30
DEVICES = ("md0", "nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1")


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return math.nan


def build_events(hours: float, seed: int = 7) -> list[Any]:
    """The run's events, decoded as the runner receives them."""
    from bench_gui.wire.protocol import TX_KEYS, decode_line, encode_event

    rng = random.Random(seed)
    seq = 0
    t = 1_760_000_000.0
    out = []

    def emit(kind: str, dt: float = 0.0, **data: Any) -> None:
        nonlocal seq, t
        seq += 1
        t += dt
        out.append(decode_line(encode_event(kind, seq, t, **data)))

    total_s = int(hours * 3600)
    steps = max(1, total_s // STEP_S)
    vus_list = [8 * (1 + i % 8) for i in range(steps)]
    emit(
        "hello",
        agent_version="0.1.0",
        engine="postgresql",
        server="PostgreSQL 16.4 on x86_64-pc-linux-gnu",
        settings={"shared_buffers": "64GB"},
        config={
            "action": "run",
            "virtual_users": vus_list,
            "rampup_s": RAMPUP_S,
            "duration_s": STEP_S - RAMPUP_S,
            "power": {"meter": "ipmi", "scope": "wall", "label": "IPMI DCMI (BMC 10.0.0.42)"},
        },
        pid=4242,
    )

    def host(busy: float, iops: float) -> dict[str, Any]:
        j = rng.uniform(0.95, 1.05)
        cpu = {
            "user": round(0.7 * busy * j, 2),
            "system": round(0.25 * busy, 2),
            "iowait": round(0.05 * busy, 2),
            "idle": round(100 - busy * j, 2),
            "steal": 0.0,
        }
        cpu["sockets"] = {
            "0": dict(cpu, user=round(cpu["user"] * 1.05, 2)),
            "1": dict(cpu, user=round(cpu["user"] * 0.95, 2)),
        }

        def dev(share: float) -> dict[str, float]:
            w = iops * share * rng.uniform(0.9, 1.1)
            r = w * 0.4
            return {
                "r_iops": round(r, 1),
                "w_iops": round(w, 1),
                "r_mbs": round(r * 0.0082, 3),
                "w_mbs": round(w * 0.0164, 3),
                "r_await": round(0.09 * j, 3),
                "w_await": round(0.14 * j, 3),
                "await": round(0.12 * j, 3),
                "aqu_sz": round((r + w) * 0.00012, 3),
                "util": round(min(100.0, (r + w) / 900), 1),
            }

        disks = {d: dev(1.0 if d == "md0" else 0.5) for d in DEVICES}
        return {
            "interval_s": 1.0,
            "cpu": cpu,
            "disks": disks,
            "disk_total": disks["md0"],
            "mem": {
                "used_mb": round(60_000 + busy * 100, 1),
                "cache_mb": round(300_000 + busy * 50, 1),
                "dirty_mb": round(50 + busy, 1),
                "writeback_mb": 0.0,
                "total_mb": 412_316.9,
            },
        }

    for second in range(IDLE_S):
        emit(
            "progress",
            dt=1.0,
            task="idle",
            done=float(second + 1),
            total=float(IDLE_S),
            unit="s",
            host=host(1.0, 10.0),
            power={"watts": round(rng.gauss(212.0, 2.0), 2)},
        )
    for step, vus in enumerate(vus_list):
        emit("step", dt=0.5, phase="start", step=step, vus=vus)
        capacity = 9000.0 * vus / (1.0 + vus / 40.0)
        for second in range(1, STEP_S + 1):
            phase = "rampup" if second <= RAMPUP_S else "measure"
            ramp = min(1.0, second / RAMPUP_S)
            nopm = capacity * ramp * rng.uniform(0.94, 1.06)
            lat = 1.5 + 0.08 * vus
            stats = {
                "avg": round(lat, 3),
                "p50": round(lat * 0.9, 3),
                "p95": round(lat * 2, 3),
                "p99": round(lat * 3, 3),
                "p999": round(lat * rng.choice((5, 5, 5, 12)), 3),
                "max": round(lat * 8, 3),
            }
            orders = int(nopm / 60)
            emit(
                "sample",
                dt=1.0,
                step=step,
                vus=vus,
                phase=phase,
                elapsed=float(second),
                remaining=float(STEP_S - second),
                counts={
                    k: orders if k in ("new_order", "payment") else orders // 10 for k in TX_KEYS
                },
                rollbacks=orders // 100,
                errors={"serialization": 1} if rng.random() < 0.02 else {},
                latency_ms={"all": stats, "new_order": stats},
                nopm_driver=round(nopm * 0.99, 1),
                tpm_driver=round(nopm * 2.3 * 0.99, 1),
                nopm_db=round(nopm, 1),
                tpm_db=round(nopm * 2.3, 1),
                host=host(min(95.0, 8 + 1.4 * vus) * ramp, nopm / 60 * 8),
                power={"watts": round(212.0 + 0.0012 * nopm * rng.uniform(0.98, 1.02), 2)},
            )
        summary = {
            "step": step,
            "vus": vus,
            "nopm": round(capacity, 1),
            "tpm": round(capacity * 2.3, 1),
            "nopm_driver": round(capacity * 0.99, 1),
            "window_s": float(STEP_S - RAMPUP_S),
            "complete": True,
            "latency_ms": {"all": stats},
            "errors": {},
            "power_w": round(212.0 + 0.0012 * capacity, 3),
            "mw_per_nopm": round(1000 * (212.0 + 0.0012 * capacity) / capacity, 4),
            "idle_power_w": 212.0,
        }
        emit("step", dt=0.2, phase="end", step=step, vus=vus, summary=summary)
    emit("done", dt=0.1, status="ok", message="sweep complete")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=float, default=1.0, help="hours of samples (default 1)")
    parser.add_argument(
        "--charts", choices=("all", "default"), default="all", help="charts shown (default all)"
    )
    parser.add_argument(
        "--burst", type=int, default=32, help="events handed over between two loop turns"
    )
    args = parser.parse_args()

    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-bench-"))
    from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QThread, QTimer, Signal
    from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

    QSettings.setPath(
        QSettings.Format.IniFormat,
        QSettings.Scope.UserScope,
        tempfile.mkdtemp(prefix="bench-gui-settings-"),
    )
    from bench_gui.core.plan_model import Plan, Power
    from bench_gui.gui.app import apply_theme
    from bench_gui.gui.pages.live.page import LivePage
    from bench_gui.gui.widgets.chart_layout import CHART_KEYS, LiveLayout

    app = QApplication(sys.argv[:1])
    apply_theme(app)
    t_build = time.perf_counter()
    events = build_events(args.hours)
    build_s = time.perf_counter() - t_build
    # The prebuilt feed is millions of small objects the app would never hold at once: keep
    # them out of the garbage collector's full passes, which would otherwise be charged to
    # the page (a full pass over a twelve-hour feed takes about half a second).
    gc.collect()
    gc.freeze()

    plan = Plan(name="gui_stream benchmark: RAID 10, 4x NVMe, 64 users")
    plan.workload.virtual_users = sorted({8 * (1 + i % 8) for i in range(8)})
    plan.workload.rampup_s = RAMPUP_S
    plan.workload.duration_s = STEP_S - RAMPUP_S
    plan.power = Power(meter="ipmi", options={"host": "10.0.0.42"}, idle_s=IDLE_S)
    # Redraw time: a tick of the page's timer, plus the repaint of the window that follows
    # (Qt paints every widget marked dirty when the window handles its UpdateRequest).
    ticks: list[float] = []
    paints: list[float] = []
    debug_log: list[tuple[float, str, float]] = []
    pending_tick: list[float] = []

    class Window(QWidget):
        def event(self, event: QEvent) -> bool:
            if event.type() != QEvent.Type.UpdateRequest:
                return super().event(event)
            start = time.perf_counter()
            handled = super().event(event)
            debug_log.append((start, "paint", time.perf_counter() - start))
            if pending_tick:
                paints.append(time.perf_counter() - start)
                ticks.append(pending_tick.pop())
            return handled

    window = Window()
    QVBoxLayout(window).setContentsMargins(0, 0, 0, 0)
    page = LivePage()
    window.layout().addWidget(page)
    layout = LiveLayout(list(CHART_KEYS), 4, []) if args.charts == "all" else LiveLayout()
    page.view.apply_layout(layout)
    window.resize(1920, 1080)
    window.show()
    page.begin_run(plan)
    for _ in range(20):
        app.processEvents()
    original_tick = page.tick

    def timed_tick() -> None:
        start = time.perf_counter()
        original_tick()
        pending_tick[:] = [time.perf_counter() - start]
        debug_log.append((start, "tick", pending_tick[0]))

    page.timer.timeout.disconnect()
    page.timer.timeout.connect(timed_tick)

    # Heartbeat: the event loop's responsiveness.
    beats: list[float] = []
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(2)
    heartbeat.timeout.connect(lambda: beats.append(time.perf_counter()))

    go = threading.Event()
    fed = [0]
    rss: dict[str, float] = {}
    tenth = len(events) // 10

    class Producer(QObject):
        """The run worker's side: one queued signal per event, in bursts; after each burst it
        waits until the GUI thread's event loop has turned once (its timers have run)."""

        event = Signal(object)
        burst_done = Signal()

        def run(self) -> None:
            for start in range(0, len(events), args.burst):
                go.clear()
                for item in events[start : start + args.burst]:
                    self.event.emit(item)
                self.burst_done.emit()
                go.wait()

    class Consumer(QObject):
        """Lives in the GUI thread: queued events are handled there, as the run worker's."""

        def on_event(self, item: Any) -> None:
            page.handle_event(item)
            fed[0] += 1
            if fed[0] == tenth:
                rss["tenth"] = rss_mb()

        def on_burst_done(self) -> None:
            if fed[0] >= len(events):
                QTimer.singleShot(200, app.quit)
            # A 1 ms timer, not a posted call: it fires only once the loop reaches its timers.
            QTimer.singleShot(1, go.set)

    consumer = Consumer()
    thread = QThread()
    producer = Producer()
    producer.moveToThread(thread)
    producer.event.connect(consumer.on_event, Qt.ConnectionType.QueuedConnection)
    producer.burst_done.connect(consumer.on_burst_done, Qt.ConnectionType.QueuedConnection)
    thread.started.connect(producer.run)

    rss["before"] = rss_mb()
    heartbeat.start()
    t0 = time.perf_counter()
    thread.start()
    app.exec()
    elapsed = time.perf_counter() - t0
    heartbeat.stop()
    thread.quit()
    thread.wait()
    rss["after"] = rss_mb()

    gaps = [b - a for a, b in zip(beats, beats[1:], strict=False)]
    if os.environ.get("GUI_STREAM_DEBUG"):
        worst = sorted(range(len(gaps)), key=lambda i: -gaps[i])[:8]
        for i in sorted(worst):
            print(f"  gap {gaps[i] * 1000:.0f} ms at {beats[i] - t0:.3f} s")
        for when, what, took in debug_log:
            if took > 0.02:
                print(f"  {what} at {when - t0:.3f} s took {took * 1000:.0f} ms")
    longest = max(gaps) if gaps else math.nan
    over = sum(1 for g in gaps if g > 0.050)
    frames = sorted(t + p for t, p in zip(ticks, paints, strict=True))
    samples = len(page.model.samples)

    def ms(x: float) -> str:
        return f"{x * 1000:.1f} ms"

    print(
        f"events: {len(events):,} ({samples:,} rows in the live buffer), built in {build_s:.1f} s"
    )
    shown = page.view.layout_choice
    print(f"charts shown: {len(shown.charts)} ({args.charts}), columns {shown.columns}")
    print(f"fed in {elapsed:.1f} s: {len(events) / elapsed:,.0f} events/s")
    print(
        f"longest event-loop stall: {ms(longest)}  (gaps over 50 ms: {over};"
        f" heartbeat ticks: {len(beats):,})"
    )
    if frames:
        p95 = frames[int(0.95 * (len(frames) - 1))]
        print(
            f"redraw (timer tick + repaint): median {ms(statistics.median(frames))},"
            f" p95 {ms(p95)}, max {ms(frames[-1])} over {len(frames)} redraws"
            f" (tick alone: median {ms(statistics.median(ticks))}, max {ms(max(ticks))};"
            f" repaint alone: median {ms(statistics.median(paints))}, max {ms(max(paints))})"
        )
    print(
        f"resident memory: before {rss['before']:.0f} MB, after a tenth"
        f" {rss.get('tenth', math.nan):.0f} MB, after {rss['after']:.0f} MB"
        f" (growth over the last nine tenths {rss['after'] - rss.get('tenth', math.nan):+.0f} MB)"
    )
    median = statistics.median(frames) if frames else math.nan
    growth = rss["after"] - rss.get("tenth", math.nan)
    print(
        "goals: no stall over 50 ms: "
        + ("met" if longest < 0.050 else "NOT met")
        + f"; redraw under 16 ms: median {'met' if median < 0.016 else 'NOT met'}"
        + f" ({ms(median)}; p95 {ms(frames[int(0.95 * (len(frames) - 1))]) if frames else '-'})"
        + f"; memory flat: {'yes' if abs(growth) < 16 else 'NO'} ({growth:+.0f} MB)"
    )
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
