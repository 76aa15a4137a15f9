"""The steps of a run on several driver hosts as one run's steps: one step start once every
host started it (the users summed, each host's named), one step summary once every host ended
it (:func:`bench_gui.core.multi_driver.merge_step`, with the hosts' measured start spread), and
the per-second samples of the step flushed before its summary.
"""

from __future__ import annotations

from typing import Any

from bench_gui.core.multi_driver import MergeError, merge_step
from bench_gui.services.host_links import Host
from bench_gui.services.multi_samples import SampleMerger
from bench_gui.services.step_barrier import StepBarrier
from bench_gui.wire.protocol import Event

# An event of the merged stream, still to be numbered and stored: (kind, data).
Merged = tuple[str, dict[str, Any]]


class StepMerge:
    """The hosts' ``step`` events, merged; ``errors``: the run's list, to which a step that
    cannot be merged is added."""

    def __init__(
        self,
        hosts: list[Host],
        samples: SampleMerger,
        barrier: StepBarrier,
        errors: list[str],
    ) -> None:
        self.hosts = hosts
        self.primary = hosts[0].name
        self.samples = samples
        self.barrier = barrier
        self.errors = errors
        self.steps: list[dict[str, Any]] = []  # the merged summaries, in order
        # Each step's summaries as each host gave them (step -> host -> summary).
        self.host_summaries: dict[int, dict[str, dict[str, Any]]] = {}
        self._starts: dict[int, dict[str, Event]] = {}

    def add(self, host: Host, event: Event) -> list[Merged]:
        """A host's ``step`` event; the merged stream's events it completes, in order."""
        step = event.get("step")
        if not isinstance(step, int):
            return []
        if event.get("phase") == "start":
            return self._started(host, step, event)
        summary = event.get("summary")
        if not isinstance(summary, dict):
            return []
        ends = self.host_summaries.setdefault(step, {})
        ends[host.name] = summary
        if len(ends) < len(self.hosts):
            return []
        out: list[Merged] = [("sample", s) for s in self.samples.step_ended(step)]
        try:
            merged = merge_step([(h.name, ends[h.name]) for h in self.hosts], self.primary)
        except MergeError as exc:
            self.errors.append(str(exc))
            return [*out, ("error", {"message": f"step {step + 1}: {exc}", "fatal": False})]
        out += [("log", {"level": "warning", "message": w}) for w in merged.warnings]
        start = self.barrier.spread(step)
        if start is not None:
            merged.summary["start"] = start
            if start.get("flag"):
                merged.summary["start_flag"] = start["flag"]
                out.append(("log", {"level": "warning", "message": start["flag"]}))
        self.steps.append(merged.summary)
        end = {"phase": "end", "step": step, "vus": merged.summary["vus"]}
        return [*out, ("step", {**end, "summary": merged.summary})]

    def _started(self, host: Host, step: int, event: Event) -> list[Merged]:
        starts = self._starts.setdefault(step, {})
        starts[host.name] = event
        if len(starts) < len(self.hosts):
            return []
        data = dict(starts[self.primary].data)
        data["vus"] = sum(int(e.get("vus") or 0) for e in starts.values())
        # In the run's host order (primary first), not the order the starts came in.
        data["driver_hosts"] = {h.name: starts[h.name].get("vus") for h in self.hosts}
        return [("step", data)]
