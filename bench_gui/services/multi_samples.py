"""Several driver hosts' per-second samples as one stream (issue 18). Pure: no I/O.

Every host starts a step at the same instant (the agents' start barrier) and samples once a
second, so the n-th sample of a step on each host covers the same second. :class:`SampleMerger`
pairs them: once every host still running has given its n-th sample of the step, one sample
goes out with

- the database's rates (``nopm_db``, ``tpm_db``, ``db_not_answering_s``) from the primary
  alone (never summed: every host's would count every host's orders);
- the drivers' counts, rollbacks, errors and rates summed, ``vus`` summed;
- the time of the step (phase, elapsed, remaining), the latency line and the host metrics of
  the primary (the step's exact latency comes from the merged histograms of its summary);
- each host's own figures under ``hosts`` (its users, driver NOPM and TPM, CPU in use).
"""

from __future__ import annotations

from typing import Any

_SUMMED_RATES = ("nopm_driver", "tpm_driver")
_DATABASE_FIELDS = ("nopm_db", "tpm_db", "db_not_answering_s")


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _rate(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _add_counts(total: dict[str, int], part: Any) -> None:
    if isinstance(part, dict):
        for key, value in part.items():
            total[str(key)] = total.get(str(key), 0) + _count(value)


def _cpu_busy(sample: dict[str, Any]) -> float | None:
    host = sample.get("host")
    cpu = host.get("cpu") if isinstance(host, dict) else None
    idle = _rate(cpu.get("idle")) if isinstance(cpu, dict) else None
    if idle is None or not isinstance(cpu, dict):
        return None
    iowait = _rate(cpu.get("iowait")) or 0.0
    return round(min(100.0, max(0.0, 100.0 - idle - iowait)), 1)


def merge_samples(samples: list[tuple[str, dict[str, Any]]], primary: str) -> dict[str, Any]:
    """One second's samples of every host (name, payload) as one payload (module docstring).
    Without the primary's (it was lost), the first host's gives the step's time."""
    by_name = dict(samples)
    base = dict(by_name.get(primary) or samples[0][1])
    counts: dict[str, int] = {}
    errors: dict[str, int] = {}
    rollbacks = 0
    rates: dict[str, float | None] = dict.fromkeys(_SUMMED_RATES, 0.0)
    hosts: list[dict[str, Any]] = []
    for name, sample in samples:
        _add_counts(counts, sample.get("counts"))
        _add_counts(errors, sample.get("errors"))
        rollbacks += _count(sample.get("rollbacks"))
        for key in _SUMMED_RATES:
            value, total = _rate(sample.get(key)), rates[key]
            rates[key] = None if value is None or total is None else round(total + value, 1)
        hosts.append(
            {
                "host": name,
                "role": "primary" if name == primary else "secondary",
                "vus": _count(sample.get("vus")),
                "nopm_driver": _rate(sample.get("nopm_driver")),
                "tpm_driver": _rate(sample.get("tpm_driver")),
                "cpu_busy_pct": _cpu_busy(sample),
            }
        )
    if primary not in by_name:
        for key in _DATABASE_FIELDS:
            base.pop(key, None)
    base.update(
        vus=sum(h["vus"] for h in hosts),
        counts=counts,
        errors=errors,
        rollbacks=rollbacks,
        hosts=hosts,
        **rates,
    )
    return base


class SampleMerger:
    """Pairs the hosts' samples of each step by their order and hands out the merged ones."""

    def __init__(self, hosts: list[str], primary: str) -> None:
        self.hosts = list(hosts)
        self.primary = primary
        self._live = set(hosts)
        # (step, n) -> {host: payload}; the n-th sample each host gave of the step.
        self._pending: dict[tuple[int, int], dict[str, dict[str, Any]]] = {}
        self._next: dict[tuple[str, int], int] = {}

    def add(self, host: str, sample: dict[str, Any]) -> list[dict[str, Any]]:
        """Take one host's sample; the merged samples now complete, in order."""
        step = _count(sample.get("step"))
        n = self._next.get((host, step), 0)
        self._next[(host, step)] = n + 1
        self._pending.setdefault((step, n), {})[host] = sample
        return self._ready(force=False)

    def host_gone(self, host: str) -> list[dict[str, Any]]:
        """A host ended (or was lost): its missing seconds are no longer waited for."""
        self._live.discard(host)
        return self._ready(force=False)

    def step_ended(self, step: int) -> list[dict[str, Any]]:
        """Every host ended ``step``: what is left of it goes out with the hosts that gave it."""
        out = []
        for key in sorted(k for k in self._pending if k[0] == step):
            out.append(self._merged(self._pending.pop(key)))
        return out

    def _merged(self, got: dict[str, dict[str, Any]]) -> dict[str, Any]:
        ordered = [(name, got[name]) for name in self.hosts if name in got]
        return merge_samples(ordered, self.primary)

    def _ready(self, force: bool) -> list[dict[str, Any]]:
        out = []
        for key in sorted(self._pending):
            got = self._pending[key]
            if force or self._live <= set(got):
                out.append(self._merged(self._pending.pop(key)))
        return out
