"""The driver hosts of a run on several hosts, as the Live page shows them (issue 18). Qt-free.

A run on several driver hosts (:mod:`bench_gui.services.run_stream`) sends merged per-second
samples whose ``hosts`` field holds each host's own figures (:func:`~bench_gui.services.
multi_samples.merge_samples`: its role, users, driver NOPM and TPM, CPU in use), step ends whose
summary keeps each host's figures over the measured window under ``driver_hosts``
(:func:`~bench_gui.core.multi_driver.merge_step`), an ``error`` with code ``driver_host_lost``
when a host is lost for good, and link notices (``on_notice(state, detail)``, the detail naming
the host as ``driver host 'name': ...``). :class:`LiveHosts` keeps one :class:`HostCard` per
host from those, so that an overloaded driver host is seen while the run goes: its CPU past
:data:`~bench_gui.core.multi_driver.CPU_WARN_PCT` is flagged.

A run on one host sends none of these: no card, and the page shows no strip.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.core.multi_driver import CPU_WARN_PCT
from bench_gui.wire.protocol import Event

# How the run names a host in its messages: ``driver host {name!r}``.
_NAMED: Final = re.compile(r"driver host ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
# The link states a host's transport reports, in words for its card.
LINK_WORDS: Final = {
    "lost": "link lost · reconnecting",
    "reconnecting": "reconnecting…",
    "restored": "link restored",
    "failed": "link failed",
    "gone": "host lost · the run fails",
}
# Link states shown in the warning colour (the others are fine or on their way back).
LINK_BAD: Final = frozenset({"lost", "reconnecting", "failed", "gone"})
CPU_WARNING: Final = f"CPU over {CPU_WARN_PCT:.0f}%: this driver may hold the figures back"


def host_named(text: str) -> str | None:
    """The host a run's message names (``driver host 'beta': ...``), or None."""
    found = _NAMED.search(text)
    if found is None:
        return None
    try:
        name = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


@dataclass
class HostCard:
    """One driver host's figures: the last second's, the last measured step's, its link."""

    name: str
    role: str = ""  # "primary" (reads the database's counters), "secondary", "" not yet known
    vus: int | None = None
    nopm_driver: float | None = None
    tpm_driver: float | None = None
    cpu_busy_pct: float | None = None  # the last second's; None without host metrics
    step: int | None = None  # the last ended step (from 0)
    step_transactions: int | None = None  # committed in that step's measured window
    step_cpu_pct: float | None = None  # CPU in use over that window
    link: str = ""  # a key of LINK_WORDS; "" while nothing was said
    link_detail: str = ""

    @property
    def cpu_warning(self) -> bool:
        """The last second's CPU is past the limit."""
        return self.cpu_busy_pct is not None and self.cpu_busy_pct > CPU_WARN_PCT

    @property
    def step_cpu_warning(self) -> bool:
        """The last step's window had the CPU past the limit (merge_step warned of it)."""
        return self.step_cpu_pct is not None and self.step_cpu_pct > CPU_WARN_PCT

    @property
    def warning(self) -> bool:
        """Something on the card asks for attention (CPU or link)."""
        return self.cpu_warning or self.step_cpu_warning or self.link in LINK_BAD

    def role_text(self) -> str:
        return {"primary": "primary · database counters", "secondary": "secondary"}.get(
            self.role, ""
        )

    def figures_text(self) -> str:
        """Its users and its driver's rates (its own New-Orders and transactions a minute)."""
        users = "— users" if self.vus is None else f"{self.vus} user{'' if self.vus == 1 else 's'}"
        return f"{users}  ·  {_fmt(self.nopm_driver)} NOPM  ·  {_fmt(self.tpm_driver)} TPM"

    def cpu_text(self) -> str:
        if self.cpu_busy_pct is None:
            return "CPU —"
        return f"CPU {self.cpu_busy_pct:.0f}%"

    def step_text(self) -> str:
        """The last measured step on this host ("" before any step ended)."""
        if self.step is None:
            return ""
        parts = [f"step {self.step + 1}"]
        if self.step_transactions is not None:
            parts.append(f"{self.step_transactions:,} tx")
        if self.step_cpu_pct is not None:
            parts.append(f"CPU {self.step_cpu_pct:.0f}% over the window")
        return "  ·  ".join(parts)

    def warning_text(self) -> str:
        """What is wrong, in words ("" when nothing)."""
        if self.link in LINK_BAD:
            return LINK_WORDS[self.link]
        if self.cpu_warning or self.step_cpu_warning:
            return CPU_WARNING
        return ""

    def link_text(self) -> str:
        return LINK_WORDS.get(self.link, "")


class LiveHosts:
    """The cards of a run's driver hosts, in the run's host order, fed its events and link
    notices. ``version`` goes up on every change (the page redraws on a change)."""

    def __init__(self) -> None:
        self.cards: dict[str, HostCard] = {}
        self.version = 0

    def begin(self) -> None:
        """A new run: no host yet."""
        self.cards.clear()
        self.version += 1

    @property
    def shown(self) -> bool:
        """The run is on several driver hosts (a strip of cards to show)."""
        return bool(self.cards)

    def card(self, name: str) -> HostCard:
        """The card of ``name``, made the first time the host is named."""
        if name not in self.cards:
            self.cards[name] = HostCard(name)
        return self.cards[name]

    def feed(self, event: Event) -> bool:
        """Take one event of the run; True when a card changed."""
        if event.kind == "sample":
            return self._sample(event.get("hosts"))
        if event.kind == "step":
            return self._step(event)
        if event.kind == "error" and event.get("code") == "driver_host_lost":
            name = host_named(str(event.get("message") or ""))
            if name is not None:
                return self._link(name, "gone", str(event.get("message")))
        return False

    def notice(self, state: str, detail: str) -> bool:
        """A link notice (``RunController.on_notice``); True when it named a host. A notice of
        a run on one host names none and changes nothing."""
        name = host_named(detail)
        if name is None:
            return False
        if state not in LINK_WORDS:
            raise ValueError(
                f"link state {state!r} of driver host {name!r} is not one of"
                f" {', '.join(sorted(LINK_WORDS))}"
            )
        return self._link(name, state, detail)

    def _in_run_order(self, names: list[str]) -> None:
        """The cards in the run's host order (the step's split follows the plan, primary
        first), whichever host an earlier notice or sample happened to name first."""
        order = names + [name for name in self.cards if name not in names]
        self.cards = {name: self.cards[name] for name in order if name in self.cards}

    def _link(self, name: str, state: str, detail: str) -> bool:
        card = self.card(name)
        if card.link == "gone":
            return False  # lost for good: a late notice does not bring it back
        card.link, card.link_detail = state, detail
        self.version += 1
        return True

    def _sample(self, hosts: Any) -> bool:
        if not isinstance(hosts, list):
            return False
        changed = False
        for figures in hosts:
            if not isinstance(figures, dict) or not isinstance(figures.get("host"), str):
                continue
            card = self.card(figures["host"])
            card.role = str(figures.get("role") or card.role)
            card.vus = _count(figures.get("vus"))
            card.nopm_driver = _number(figures.get("nopm_driver"))
            card.tpm_driver = _number(figures.get("tpm_driver"))
            card.cpu_busy_pct = _number(figures.get("cpu_busy_pct"))
            changed = True
        if changed:
            self.version += 1
        return changed

    def _step(self, event: Event) -> bool:
        if event.get("phase") == "start":
            split = event.get("driver_hosts")
            if not isinstance(split, dict):
                return False
            for name, vus in split.items():
                self.card(str(name)).vus = _count(vus)
            self._in_run_order([str(name) for name in split])
            self.version += 1
            return True
        summary = event.get("summary")
        per_host = summary.get("driver_hosts") if isinstance(summary, dict) else None
        if not isinstance(per_host, list):
            return False
        step = _count(event.get("step"))
        for figures in per_host:
            if not isinstance(figures, dict) or not isinstance(figures.get("host"), str):
                continue
            card = self.card(figures["host"])
            card.role = str(figures.get("role") or card.role)
            card.step = step
            card.step_transactions = _count(figures.get("transactions"))
            card.step_cpu_pct = _number(figures.get("cpu_busy_pct"))
        self.version += 1
        return True
