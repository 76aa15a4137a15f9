"""Re-attaching to runs the app lost on SSH driver hosts (after a crash or a close): what does
not need Qt. The dialog and the workflow of the main window are in :mod:`bench_gui.gui.reattach`.

A run on a driver host goes on when the app goes away: the agent runs detached and writes every
event to its spool. At the next start the app finds those runs, asks which to follow, and
fetches everything they recorded (:meth:`bench_gui.services.run.RunController.reattach`).

Which sessions are offered (:func:`find_candidates`), always runs (kind ``run``) whose plan
named an SSH driver target:

- every session still marked "running": the app that ran it is gone;
- "incomplete" sessions created in the last :data:`RECENT_DAYS` days whose message says the
  run was lost rather than ended: the app stopped while it went on (``STALE_MESSAGE``), or the
  link could not be restored, or the host was out of reach when last offered (messages that
  end in :data:`REATTACH_LATER`). So a second crash, or a host that is back, is offered again;
- by the "Re-attach runs…" action only: also those the user declined when offered
  (:data:`DECLINED_MESSAGE`). A declined run is not offered again at each start.

Never a run that a live process on this machine is following and storing (a ``bench-gui run``
or ``attach`` in a terminal, another window): it holds the run's claim
(:mod:`bench_gui.store.run_claims`).

Runs not found on their host, or fetched to the end, get a message outside these families and
are never offered again.

:func:`scan` asks each driver host that has candidates for its runs (blocking: the GUI runs it
in a background task; an unknown host key is never accepted here, the user accepts it on the
Targets page) and gives each candidate its state there. A :class:`ReattachController` follows
one chosen run to its end, as the run worker drives any run controller.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import PlanError
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.ssh_transport import RemoteRun, SSHTransport, desktop_identity
from bench_gui.services.host_links import ssh_transport
from bench_gui.services.run import RunController
from bench_gui.services.run_dirs import session_run, utc
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.store.sessions import STALE_MESSAGE
from bench_gui.wire.protocol import Event

log = logging.getLogger(__name__)

RECENT_DAYS: Final = 7
# The end of every message that means "the run may still be there": the runner's when a link
# could not be restored, and ours when a host was out of reach.
REATTACH_LATER: Final = "re-attach later"
DECLINED_MESSAGE: Final = (
    "not re-attached when bench-gui offered it; “Re-attach runs…” can still fetch it"
)

# A candidate's state on its driver host, after the scan.
ATTACHABLE: Final = ("running", "finished", "ended")
STATE_WORDS: Final = {
    "unknown": "not checked yet",
    "running": "still running",
    "finished": "finished",
    "ended": "ended without finishing",
    "missing": "not found on the host",
    "unreachable": "host unreachable",
    "hostkey": "host key not accepted",
    "no-target": "target no longer saved",
}


@dataclass
class Candidate:
    """A stored session that may have events left on its driver host, and what the scan found."""

    session_id: int
    name: str
    target: str  # the SSH target's name (plan.driver.target)
    created_at: str  # UTC, ISO 8601
    status: str  # the stored status: running or incomplete
    message: str
    events: int  # the last event seq the store has
    steps: int
    plan: dict[str, Any] = field(repr=False, default_factory=dict)
    state: str = "unknown"  # a key of STATE_WORDS
    detail: str = ""  # why (unreachable...), or the run directory on the host
    run_dir: str = ""
    remote_seq: int = 0  # the last event seq in the host's spool

    @property
    def where(self) -> str:
        """The driver host(s) the run is on, as the user reads them: ``alpha + beta`` for a run
        on several (the scan asks the first, the primary: :attr:`target`)."""
        driver = self.plan.get("driver")
        targets = driver.get("targets") if isinstance(driver, dict) else None
        if isinstance(targets, list) and len(targets) > 1:
            return " + ".join(str(name) for name in targets)
        return self.target

    @property
    def attachable(self) -> bool:
        return self.state in ATTACHABLE

    @property
    def needs_attention(self) -> bool:
        """Worth showing in the dialog: the user can fetch it, or should know why not."""
        return self.state != "missing"

    def state_text(self) -> str:
        """The state column: a few words, with the number of events waiting."""
        words = STATE_WORDS.get(self.state, self.state)
        if self.state in ("finished", "ended"):
            new = max(0, self.remote_seq - self.events)
            short = "finished" if self.state == "finished" else "ended early"
            return f"{short} · {new:,} new event{'s' if new != 1 else ''}"
        return words

    def closing_message(self) -> str:
        """The session's message when it is not re-attached now."""
        where = self.where
        if self.state == "missing":
            return f"not found on {where} (its run directory is gone); nothing more to fetch"
        if self.state == "unreachable":
            return (
                f"{where} could not be reached ({self.detail}); the run may still be there:"
                f" {REATTACH_LATER}"
            )
        if self.state == "hostkey":
            return (
                f"the host key of {where} is not accepted yet (accept it on the Targets page);"
                f" the run may still be there: {REATTACH_LATER}"
            )
        if self.state == "no-target":
            return f"the SSH target {where!r} is no longer saved: add it again to re-attach"
        if self.state in ATTACHABLE:
            return DECLINED_MESSAGE
        return STALE_MESSAGE


def local_time(text: str) -> str:
    """A stored UTC timestamp as local time, to the minute."""
    value = utc(text)
    return text if value is None else value.astimezone().strftime("%Y-%m-%d %H:%M")


def offered(status: str, message: str, at_start: bool) -> bool:
    """Whether a session's status and message make it a candidate (see the module docstring)."""
    if status == "running":
        return True
    if status != "incomplete":
        return False
    lost = message == STALE_MESSAGE or message.rstrip(". ").endswith(REATTACH_LATER)
    return lost or (not at_start and message == DECLINED_MESSAGE)


def find_candidates(
    store: SessionStore,
    at_start: bool = True,
    exclude: Collection[int] = (),
    now: datetime | None = None,
) -> list[Candidate]:
    """Sessions to look for on their driver hosts, oldest first (reads the store only)."""
    since = (now or datetime.now(UTC)) - timedelta(days=RECENT_DAYS)
    found = []
    for info in store.list_runs("run"):
        if info.id in exclude or info.status not in ("running", "incomplete"):
            continue
        created = utc(info.created_at)
        if info.status != "running" and (created is None or created < since):
            continue
        run = store.get_run(info.id)
        driver = str(run.target.get("driver") or run.plan.get("driver", {}).get("target") or "")
        if not driver or not offered(run.status, run.message, at_start):
            continue
        if store.claims.held(run.id):
            continue  # a live process follows it (``bench-gui run`` or ``attach``, a window)
        found.append(
            Candidate(
                session_id=run.id,
                name=run.name,
                target=driver,
                created_at=run.created_at,
                status=run.status,
                message=run.message,
                events=store.last_seq(run.id),
                steps=run.steps,
                plan=run.plan,
            )
        )
    found.sort(key=lambda c: c.session_id)
    return found


def match_run(candidate: Candidate, runs: Sequence[RemoteRun], me: str) -> RemoteRun | None:
    """The run directory of a candidate on its host (:func:`session_run`)."""
    return session_run(runs, candidate.session_id, candidate.created_at, me)


TransportFactory = Callable[[str], SSHTransport]


def _scan_target(
    name: str, candidates: list[Candidate], factory: TransportFactory, me: str
) -> list[Candidate]:
    try:
        transport = factory(name)
    except RunError as exc:
        return [replace(c, state="no-target", detail=str(exc)) for c in candidates]
    try:
        runs = transport.list_runs()
    except UnknownHostKey as exc:
        detail = f"{exc.key_type} key {exc.fingerprint_sha256}"
        return [replace(c, state="hostkey", detail=detail) for c in candidates]
    except SSHError as exc:
        return [replace(c, state="unreachable", detail=str(exc)) for c in candidates]
    finally:
        transport.close()
    out = []
    for c in candidates:
        run = match_run(c, runs, me)
        if run is None:
            out.append(replace(c, state="missing", detail=f"no run of this session on {name}"))
        else:
            found = replace(c, state=run.state, detail=run.run_dir, run_dir=run.run_dir)
            out.append(replace(found, remote_seq=run.last_seq))
    return out


def scan(
    candidates: Sequence[Candidate], transport_factory: TransportFactory = ssh_transport
) -> list[Candidate]:
    """Blocking (for a worker thread): each candidate with its state on its host, in order.

    The targets are asked at the same time, so one host that does not answer costs one
    connection timeout, not one per host.
    """
    by_target: dict[str, list[Candidate]] = {}
    for c in candidates:
        by_target.setdefault(c.target, []).append(c)
    me = desktop_identity()
    results: dict[int, Candidate] = {}
    with ThreadPoolExecutor(max_workers=min(8, max(1, len(by_target)))) as pool:
        futures = [
            pool.submit(_scan_target, name, group, transport_factory, me)
            for name, group in by_target.items()
        ]
        for future in futures:
            for c in future.result():
                results[c.session_id] = c
    return [results[c.session_id] for c in candidates]


def stored_events(store: SessionStore, session_id: int) -> list[Event]:
    """What the store has of a run, as the events it came from, in seq order (to replay into
    the Live page before following the rest). Histograms are left out: the page shows none."""
    data = store.run_to_json(session_id)
    events = [Event(e["kind"], e["seq"], e["t"], dict(e["data"] or {})) for e in data["events"]]
    for s in data["samples"]:
        body = {k: v for k, v in s.items() if k not in ("seq", "t", "extra")}
        body.update(s.get("extra") or {})
        events.append(Event("sample", s["seq"], s["t"], body))
    for step in data["steps"]:
        summary = dict(step.get("summary") or {})
        body = {"phase": "end", "step": step["step"], "vus": step["vus"], "summary": summary}
        events.append(Event("step", step["seq"], step["t"], body))
    for line in data["log"]:
        if line["seq"] is None:
            continue  # a desktop-side line, not an event of the agent
        if line["level"] in ("error", "fatal"):
            body = {"message": line["message"], "fatal": line["level"] == "fatal"}
            events.append(Event("error", line["seq"], line["t"], body))
        else:
            body = {"level": line["level"], "message": line["message"]}
            events.append(Event("log", line["seq"], line["t"], body))
    events.sort(key=lambda e: e.seq)
    return events


class ReattachController:
    """A controller for :class:`~bench_gui.gui.worker.RunWorker` that follows a lost run.

    ``replay``: first yield what the store has (for the Live page; never stored again). A run
    that cannot be re-attached, or whose agent ended without its ``done``, is never left
    "running": it is closed as incomplete with the reason.
    """

    def __init__(self, candidate: Candidate, store: SessionStore, replay: bool = False) -> None:
        self.candidate = candidate
        self.store = store
        self.replay = replay
        self.session_id: int | None = candidate.session_id
        self.inner: RunController | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            inner = self.inner
        if inner is not None:
            inner.stop()

    def _give_up(self, message: str) -> RunError:
        self.store.close_unfinished(self.candidate.session_id, message)
        return RunError(message)

    def events(self) -> Iterator[Event]:
        c = self.candidate
        try:
            plan = plan_from_dict(c.plan)
        except PlanError as exc:
            raise self._give_up(f"cannot re-attach: the stored plan is not valid ({exc})") from exc
        if not plan.driver.target:
            plan.driver.target = c.target
        try:
            inner = RunController(plan, self.store)
        except RunError as exc:
            raise self._give_up(f"cannot re-attach: {exc}") from exc
        with self._lock:
            self.inner = inner
            stopped = self._stopped
        if stopped:
            self.store.close_unfinished(c.session_id, STALE_MESSAGE)
            return
        if self.replay and inner.policy.numbering == "agent":
            # (A run on several driver hosts is merged again from the start: every event
            # comes anew.)
            yield from stored_events(self.store, c.session_id)
        try:
            yield from inner.reattach(c.session_id, c.run_dir or None)
        except RunError as exc:
            if self.store.get_run(c.session_id).status == "running":
                self.store.close_unfinished(c.session_id, f"re-attaching failed: {exc}")
            raise
        if inner.final is None and self.store.get_run(c.session_id).status != "complete":
            # The spool had no done: everything there is stored now, and nothing will follow.
            self.store.close_unfinished(
                c.session_id,
                f"the agent on {c.where} ended without finishing the run;"
                " everything it recorded was fetched",
            )


__all__ = [
    "ATTACHABLE",
    "DECLINED_MESSAGE",
    "RECENT_DAYS",
    "REATTACH_LATER",
    "STATE_WORDS",
    "Candidate",
    "ReattachController",
    "TransportFactory",
    "find_candidates",
    "local_time",
    "match_run",
    "offered",
    "scan",
    "stored_events",
]
