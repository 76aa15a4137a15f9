"""A run's hosts' events as the one stream of its session.

:class:`AgentStream` (one host): the agent's events, stored as the agent numbered them.

:class:`MergedStream` (several hosts, issue 18): the hosts' events become one stream of one
session, numbered by the run: samples paired by time, each at its second from the step's
instant, so a skipped or doubled sample shifts no later pair (:mod:`bench_gui.services.
multi_samples`: database counters from the primary, driver counts summed, each host's figures
under ``hosts``), one step start, step summaries merged by :func:`bench_gui.core.multi_driver.
merge_step` (the 2% check against the summed driver New-Orders), the primary's ``hello``; the
secondaries' logs and errors named by host. When every host has said it is ready for step N
(a ``progress`` event of task ``barrier``, stage ``ready``), the barrier writes one start
instant to each host's go file (:mod:`bench_gui.services.step_barrier`); the secondaries are
started once the primary is ready for the first step, i.e. after its schema build. A host whose
agent ends without finishing is lost: an error naming it, and the run fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from bench_gui.core.events import BadEvent, check_event
from bench_gui.services.host_links import Host
from bench_gui.services.multi_samples import SampleMerger
from bench_gui.services.run_errors import RunError
from bench_gui.services.run_events import stored_status
from bench_gui.services.run_inventory import RunInventory, database_record
from bench_gui.services.run_session import RunSession
from bench_gui.services.step_barrier import StepBarrier
from bench_gui.services.step_merge import StepMerge
from bench_gui.wire.protocol import Event, decode_line, encode_event

_STATUS_RANK: Final = {"ok": 0, "stopped": 1, "failed": 2}


class AgentStream:
    """The one host's events, stored as its agent numbered them (a re-attach resumes after the
    seqs stored). ``errors``: the run's list of error messages."""

    def __init__(
        self,
        session: RunSession,
        inventory: RunInventory,
        host: Host,
        errors: list[str],
        action: str,
    ) -> None:
        self.session = session
        self.store = session.store
        self.inventory = inventory
        self.host = host
        self.errors = errors
        self.action = action
        self.final: Event | None = None
        self.summary: Event | None = None
        self.reattached = False

    def handle(self, host: Host, event: Event) -> Iterator[Event]:
        if event.kind == "error":
            self.errors.append(str(event.get("message", "")))
        elif event.kind == "done":
            self.final = host.final = event
        elif event.kind == "summary":
            self.summary = event
        if self.session.id is not None:
            self.store.add_event(self.session.id, event)
            if event.kind == "hello":
                self.inventory.hello(self.session.id, event)
        yield event

    def host_ended(self, host: Host) -> Iterator[Event]:
        return iter(())

    def end(self, failure: str) -> Iterator[Event]:
        """Close the session as the agent's ``done`` says (or as incomplete without one)."""
        agent = self.host.agent
        assert agent is not None
        code = agent.wait(30)
        if self.final is None and self.reattached and self.session.status() != "running":
            return  # re-attached to a run whose end the store already has: nothing was missing
        if self.final is None:
            detail = agent.diagnostics().strip().splitlines()
            reason = detail[-1] if detail else f"exit status {code}"
            message = f"the agent ended without finishing the run: {reason}"
            self.session.finish("incomplete", message)
            raise RunError(message)
        status = str(self.final.get("status", "failed"))
        message = str(self.final.get("message", ""))
        # A failed run keeps its measured steps visible as a partial result.
        has_steps = self.action == "run" and self.session.has_steps()
        self.session.finish(stored_status(status, has_steps), message)
        if status == "failed":
            raise RunError(self.errors[-1] if self.errors else message or "the run failed")
        yield from ()

    @property
    def steps(self) -> list[dict[str, Any]]:
        return []


class MergedStream:
    """The hosts' events merged into one numbered stream (see the module docstring).
    ``start(host)``: start a secondary host's agent; ``stopped()``: whether the run was asked to
    stop."""

    def __init__(
        self,
        session: RunSession,
        hosts: list[Host],
        errors: list[str],
        lead_s: float,
        start: Callable[[Host], object],
        stopped: Callable[[], bool],
    ) -> None:
        self.session = session
        self.store = session.store
        self.hosts = hosts
        self.primary = hosts[0].name
        self.errors = errors
        self.final: Event | None = None
        self.summary: Event | None = None
        self.reattached = False
        self._start = start
        self._stopped = stopped
        self._seq = 0
        self._source_t: float | None = None  # the newest host event's time, this machine's clock
        self.merger = SampleMerger([h.name for h in hosts], self.primary)
        self.barrier = StepBarrier(hosts, lead_s)
        self.step_merge = StepMerge(hosts, self.merger, self.barrier, errors)

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The merged step summaries so far."""
        return self.step_merge.steps

    def _emit(self, kind: str, t: float | None = None, **data: Any) -> Event:
        """One event of the run's merged stream, checked and stored. Merged again after a
        re-attach, an event takes the time of the host event that made it (on this machine's
        clock), not the time of its merging."""
        if t is None and self.reattached:
            t = self._source_t
        self._seq += 1
        event = decode_line(encode_event(kind, self._seq, t, **data))
        try:
            checked = check_event(event)
        except BadEvent as exc:
            return self.session.log("warning", f"unusable merged event, skipped: {exc}")
        if checked.dropped:
            self.session.log("warning", checked.warning())
        event = checked.event
        if self.session.id is not None:
            self.store.add_event(self.session.id, event)
        return event

    def host_ended(self, host: Host) -> Iterator[Event]:
        """A host's agent ended (or following it did): without its ``done``, it is lost."""
        why = host.why
        if host.final is None and not why:
            assert host.agent is not None
            code = host.agent.wait(30)
            detail = host.agent.diagnostics().strip().splitlines()
            why = detail[-1] if detail else f"its agent ended (exit status {code})"
            why = f"its agent ended without finishing the run: {why}"
        if host.final is None:
            step = max((s for h in self.hosts for s in h.go), default=None)
            where = f" in step {step + 1}" if step is not None else ""
            host.lost = f"driver host {host.name!r} was lost{where}: {why}"
            self.errors.append(host.lost)
            yield self._emit("error", message=host.lost, fatal=True, code="driver_host_lost")
        for sample in self.merger.host_gone(host.name):
            yield self._emit("sample", **sample)

    def handle(self, host: Host, event: Event) -> Iterator[Event]:
        offset = host.clock.offset_ms / 1000.0 if host.clock is not None else 0.0
        self._source_t = event.t - offset
        kind, data = event.kind, event.data
        primary = host.name == self.primary
        if kind == "hello":
            if primary:
                yield self._emit("hello", event.t, **data)
                self.store.update_inventory(self.session.sid, {"database": database_record(event)})
            else:
                self.store.add_log(
                    self.session.sid,
                    "info",
                    f"driver host {host.name!r}: agent {data.get('agent_version')} started",
                )
        elif kind == "progress" and data.get("task") == "barrier":
            yield from self._barrier(host, event)
        elif kind == "progress":
            if primary:
                yield self._emit("progress", event.t, **data)
        elif kind == "sample":
            for sample in self.merger.add(host.name, data):
                yield self._emit("sample", **sample)
        elif kind == "step":
            for merged_kind, merged in self.step_merge.add(host, event):
                yield self._emit(merged_kind, **merged)
        elif kind in ("log", "error"):
            text = str(data.get("message", ""))
            named = f"driver host {host.name!r}: {text}"
            if kind == "error":
                self.errors.append(named)
            yield self._emit(kind, event.t, **{**data, "message": named})
        elif kind == "summary":
            pass  # the run's summary is the merged steps' (at the end)
        elif kind == "done":
            host.final = event
        else:
            yield self._emit(kind, event.t, **data)

    def _barrier(self, host: Host, event: Event) -> Iterator[Event]:
        step = event.get("step")
        if not isinstance(step, int):
            return
        stage = event.get("stage")
        if stage == "go":
            self.barrier.went(host, event)
            late = event.get("late_s")
            if isinstance(late, int | float) and not isinstance(late, bool):
                self.merger.went(host.name, step, float(late))  # its samples placed by time
            yield self._emit("progress", event.t, **{**event.data, "driver_host": host.name})
            return
        if stage != "ready":
            return
        every = self.barrier.ready(host, step, str(event.get("go_file") or ""))
        if step == 0 and host.role == "primary":
            # The schema is prepared: start the secondaries (each deployed already).
            for other in self.hosts[1:]:
                if other.agent is None and not self._stopped():
                    self._start(other)
        if every:
            yield self.session.log("info", self.barrier.go(step))

    def end(self, failure: str) -> Iterator[Event]:
        """The run's merged summary and ``done``; the session closed with the worst status."""
        statuses = [str(h.final.get("status", "failed")) for h in self.hosts if h.final is not None]
        status = max(statuses or ["failed"], key=lambda s: _STATUS_RANK.get(s, 2))
        if failure:
            status = "failed"
        elif self._stopped() and status == "ok":
            status = "stopped"
        primary = self.hosts[0].final
        message = failure or (str(primary.get("message", "")) if primary is not None else "")
        if status != "ok" and not failure:
            failed = [
                h for h in self.hosts if h.final is not None and h.final.get("status") != "ok"
            ]
            if failed:
                message = "; ".join(
                    f"driver host {h.name!r}: {h.final.get('message', '')}"
                    for h in failed
                    if h.final
                )
        self.summary = self._emit("summary", steps=self.step_merge.steps, status=status)
        yield self.summary
        self.final = self._emit("done", status=status, message=message)
        yield self.final
        # The finished steps stay visible as a partial result.
        self.session.finish(stored_status(status, bool(self.step_merge.steps)), message)
        if status == "failed":
            raise RunError(
                failure or (self.errors[-1] if self.errors else message or "the run failed")
            )
