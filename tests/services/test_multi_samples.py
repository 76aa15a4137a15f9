"""Several driver hosts' samples paired by time, not by order: a host that skipped seconds (its
sampler stalled) or gave two samples within one second shifts no later pair, and no count is
lost or counted twice.

The samples are two real agents' (``two_host_samples/``: the ``go`` events and samples of a
primary and a secondary run at one start barrier against the suite's PostgreSQL, two steps of
1 s ramp-up and 6 s measured, host metrics on); a test changes one host's samples the way a
loaded host's sampler does.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench_gui.services.multi_samples import SampleMerger, second_of
from bench_gui.wire.protocol import Event, decode_line

HERE = Path(__file__).parent / "two_host_samples"
HOSTS = ["alpha", "beta"]


def recorded(name: str) -> list[Event]:
    return [decode_line(line) for line in (HERE / f"{name}.jsonl").read_text().splitlines()]


def late_s(events: list[Event]) -> dict[int, float]:
    return {e.get("step"): e.get("late_s") for e in events if e.kind == "progress"}


def samples(events: list[Event], step: int) -> list[dict[str, Any]]:
    return [copy.deepcopy(e.data) for e in events if e.kind == "sample" and e.get("step") == step]


def merged_run(per_host: dict[str, list[Event]], lost: str | None = None) -> list[dict[str, Any]]:
    """The merged samples, fed as the run does: each host's go, then the step's samples of
    both hosts in the order they were taken, then the step's end (``lost``: that host is gone
    once its samples of step 1 are in)."""
    merger = SampleMerger(HOSTS, HOSTS[0])
    out: list[dict[str, Any]] = []
    for step in (0, 1):
        queue: list[tuple[float, str, dict[str, Any]]] = []
        for name, events in per_host.items():
            late = late_s(events)[step]
            merger.went(name, step, late)
            queue += [(s["elapsed"] + late, name, s) for s in samples(events, step)]
        for _at, name, sample in sorted(queue, key=lambda q: (q[0], q[1])):
            out += merger.add(name, sample)
        if lost is not None:
            out += merger.host_gone(lost)
            return out
        out += merger.step_ended(step)
    return out


def total(items: Iterable[dict[str, Any]]) -> int:
    return sum(sum(s["counts"].values()) + s["rollbacks"] for s in items)


def by_second(merged: list[dict[str, Any]], step: int) -> dict[int, dict[str, dict[str, Any]]]:
    """Step ``step``'s merged samples: second -> host -> its entry (each host's own sample
    gives the second; a second given twice fails)."""
    out: dict[int, dict[str, dict[str, Any]]] = {}
    for sample in merged:
        if sample["step"] != step:
            continue
        hosts = {h["host"]: h for h in sample["hosts"]}
        own = {second_of(h["at_s"]) for h in hosts.values() if not h.get("covering")}
        assert len(own) == 1, sample["hosts"]  # the hosts' own samples are of one second
        (second,) = own
        assert second not in out, (second, sample["hosts"])
        out[second] = hosts
    return out


def test_the_recorded_hosts_pair_second_by_second() -> None:
    per_host = {name: recorded(name) for name in HOSTS}
    merged = merged_run(per_host)
    for step in (0, 1):
        seconds = by_second(merged, step)
        assert sorted(seconds) == list(range(1, 8))
        for hosts in seconds.values():
            assert list(hosts) == HOSTS
            assert not any(h.get("covering") for h in hosts.values())
    assert total(merged) == sum(total(samples(per_host[n], s)) for n in HOSTS for s in (0, 1))
    # The database's rates are the primary's, the drivers' summed.
    first = merged[0]
    alpha, beta = (samples(per_host[n], 0)[0] for n in HOSTS)
    assert first["nopm_db"] == alpha["nopm_db"]
    assert first["nopm_driver"] == round(alpha["nopm_driver"] + beta["nopm_driver"], 1)
    assert first["vus"] == alpha["vus"] + beta["vus"]


def stalled(events: list[Event], step: int, seconds: tuple[int, ...], at: float) -> list[Event]:
    """``events`` with the samples of those ``seconds`` of ``step`` given as one, taken at
    ``at`` s (a sampler that stalled: its one late sample covers them all)."""
    out: list[Event] = []
    held: list[dict[str, Any]] = []
    for event in events:
        second = round(event.get("elapsed", 0))
        if event.kind == "sample" and event.get("step") == step and second in seconds:
            held.append(event.data)
            if second != seconds[-1]:
                continue
            data = copy.deepcopy(event.data)
            data["elapsed"] = at
            data["counts"] = {k: sum(h["counts"].get(k, 0) for h in held) for k in data["counts"]}
            data["rollbacks"] = sum(h["rollbacks"] for h in held)
            span = at - (seconds[0] - 1)
            data["nopm_driver"] = round(sum(h["nopm_driver"] for h in held) / span, 1)
            event = Event(event.kind, event.seq, event.t, data)
        out.append(event)
    return out


def test_a_host_that_skipped_seconds_shifts_no_later_pair() -> None:
    """Beta's sampler stalls in step 1: its samples of seconds 3, 4 and 5 come as one at
    5.5 s, then it goes on at 6 s. Every later second still pairs alpha's and beta's own
    samples of that second; in 3, 4 and 5 beta is counted with its late sample's rates (it
    covers them), its counts once, in the second that sample is placed at."""
    alpha = recorded("alpha")
    beta = stalled(recorded("beta"), 0, (3, 4, 5), 5.5)
    merged = merged_run({"alpha": alpha, "beta": beta})
    seconds = by_second(merged, 0)
    assert sorted(seconds) == list(range(1, 8))
    for second, hosts in seconds.items():
        assert list(hosts) == HOSTS  # both hosts in every second
        assert not hosts["alpha"].get("covering")
        assert bool(hosts["beta"].get("covering")) == (second in (3, 4, 5)), second
    covering = seconds[3]["beta"]
    assert covering["at_s"] > 5
    assert covering["vus"] == 1
    # The seconds after the stall are each host's own, as without it (step 2 untouched).
    clean = by_second(merged_run({n: recorded(n) for n in HOSTS}), 0)
    for second in (1, 2, 7):
        assert seconds[second] == clean[second]
    assert by_second(merged, 1) == by_second(merged_run({n: recorded(n) for n in HOSTS}), 1)
    assert total(merged) == total(samples(alpha, 0) + samples(alpha, 1)) + total(
        samples(beta, 0) + samples(beta, 1)
    )


def doubled(events: list[Event], step: int, second: int, early: float) -> list[Event]:
    """``events`` with the sample of ``second`` of ``step`` given as two, the first ``early``
    s before it with half its counts (a sampler catching up on a late tick)."""
    out: list[Event] = []
    for event in events:
        if (
            event.kind == "sample"
            and event.get("step") == step
            and round(event.get("elapsed")) == second
        ):
            first = copy.deepcopy(event.data)
            first["elapsed"] = event.get("elapsed") - early
            first["counts"] = {k: v // 2 for k, v in first["counts"].items()}
            first["rollbacks"] //= 2
            rest = copy.deepcopy(event.data)
            rest["counts"] = {k: v - first["counts"][k] for k, v in rest["counts"].items()}
            rest["rollbacks"] -= first["rollbacks"]
            out.append(Event(event.kind, event.seq, event.t - early, first))
            out.append(Event(event.kind, event.seq, event.t, rest))
            continue
        out.append(event)
    return out


def test_a_host_that_sampled_twice_in_a_second_shifts_no_later_pair() -> None:
    alpha = recorded("alpha")
    beta = doubled(recorded("beta"), 0, 3, early=0.4)
    assert len(samples(beta, 0)) == len(samples(alpha, 0)) + 1
    merged = merged_run({"alpha": alpha, "beta": beta})
    seconds = by_second(merged, 0)
    clean = by_second(merged_run({n: recorded(n) for n in HOSTS}), 0)
    assert sorted(seconds) == sorted(clean) == list(range(1, 8))
    for second, hosts in seconds.items():
        assert list(hosts) == HOSTS
        assert not any(h.get("covering") for h in hosts.values())
        if second != 3:
            assert hosts == clean[second], second
    # The two samples of second 3 are one: their counts together, as the one they split.
    three = next(s for s in merged if s["step"] == 0 and second_of(s["hosts"][0]["at_s"]) == 3)
    original = samples(recorded("beta"), 0)[2]
    alpha_three = samples(alpha, 0)[2]
    assert total([three]) == total([original, alpha_three])
    assert total(merged) == sum(total(samples(e, s)) for e in (alpha, beta) for s in (0, 1))


def test_a_lost_host_leaves_the_seconds_it_gave() -> None:
    """Beta is gone after its step-1 samples: step 1's seconds go out with what each host gave,
    none waits for beta any more."""
    per_host = {name: recorded(name) for name in HOSTS}
    merged = merged_run(per_host, lost="beta")
    seconds = by_second(merged, 0)
    assert sorted(seconds) == list(range(1, 8))
    assert total(merged) == sum(total(samples(per_host[n], 0)) for n in HOSTS)
