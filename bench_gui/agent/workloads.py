"""The workloads the agent runs besides its own TPROC-C sweep, each from its kit's ``agent/``.

A configuration's ``kind`` names its workload. TPROC-C is the agent's own sweep
(:mod:`bench_gui.agent.driver`, through an engine of :mod:`bench_gui.agent.engines`); any
other kind is looked up here: :data:`AGENT_WORKLOADS` for the built-in kits
(``bench_gui/workloads/<kit>/agent/``), else the
:data:`~bench_gui.wire.names.AGENT_WORKLOAD_GROUP` entry point of a third-party kit. The entry
point is an object keeping :class:`AgentWorkload`; nothing here knows what it measures.
"""

from __future__ import annotations

import importlib
import threading
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from bench_gui.wire.names import AGENT_WORKLOAD_GROUP

if TYPE_CHECKING:
    from bench_gui.wire.protocol import EventWriter
    from bench_gui.wire.run_config import RunConfig

# Workload kind -> "module:attribute" of its agent side; imported only when a run asks for it.
AGENT_WORKLOADS: Final[dict[str, str]] = {
    "random_read": "bench_gui.workloads.random_read.agent.sweep:AGENT_WORKLOAD",
}


class AgentWorkload(Protocol):
    """What the agent's entry point asks of a workload's agent side."""

    # One host per run: the agent refuses a step barrier or a secondary role for it.
    single_host: bool

    def lock_key(self) -> tuple[str, list[str]]:
        """(label, keys) of the run lock this workload takes on the host."""
        ...

    def run(
        self,
        cfg: RunConfig,
        out: EventWriter,
        stop: threading.Event,
        hello_extra: dict[str, Any] | None = None,
    ) -> int:
        """The run from its check to ``done``; the process exit code (0 ran, 2 expected
        failure, 3 unexpected)."""
        ...


def _load(spec: str) -> AgentWorkload:
    module, _, attribute = spec.partition(":")
    return cast(AgentWorkload, getattr(importlib.import_module(module), attribute))


def agent_workload(kind: str) -> AgentWorkload | None:
    """The agent side of workload ``kind``; None for the agent's own sweep (TPROC-C)."""
    spec = AGENT_WORKLOADS.get(kind)
    if spec is not None:
        return _load(spec)
    for ep in entry_points(group=AGENT_WORKLOAD_GROUP):
        if ep.name == kind:
            return cast(AgentWorkload, ep.load())
    return None
