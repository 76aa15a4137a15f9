"""How a run treats its driver hosts, as data: the few ways a run on one host differs from a
run on several (one orchestrator, :class:`bench_gui.services.run.RunController`, reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from bench_gui.core.plan_model import Plan


@dataclass(frozen=True)
class RunPolicy:
    """``lost_host``: a host whose link cannot be restored (or whose follower fails) ``keep``s
    the run going there (the session is incomplete, its OS knobs stay, it can be re-attached)
    or ``fail``s the run naming the host, the other hosts stopped. ``numbering``: the session
    stores the ``agent``'s own events as it numbered them (a re-attach resumes after the seqs
    stored), or the run numbers the ``merged`` stream of every host (a re-attach merges the
    spools again from the start). ``clocks_first``: every host's clock is measured against
    this machine's before the session is created (the barrier's go files need them)."""

    lost_host: Literal["keep", "fail"]
    numbering: Literal["agent", "merged"]
    clocks_first: bool

    @property
    def merged(self) -> bool:
        return self.numbering == "merged"


ONE_HOST: Final = RunPolicy(lost_host="keep", numbering="agent", clocks_first=False)
SEVERAL_HOSTS: Final = RunPolicy(lost_host="fail", numbering="merged", clocks_first=True)


def run_policy(plan: Plan, action: str) -> RunPolicy:
    """The policy of ``action`` on ``plan``: a run on several driver hosts merges them; a build,
    check or status of such a plan runs on its first host, the primary, as on one host."""
    return SEVERAL_HOSTS if action == "run" and len(plan.driver.targets) > 1 else ONE_HOST
