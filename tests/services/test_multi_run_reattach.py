"""Re-attaching to a run on two driver hosts after the desktop that started it died: a real
``bench-gui`` process runs the plan and is killed mid-step (its agents go on); this process
finds the session among the candidates, follows it again through the re-attach controller,
and the session ends complete with every step once, the hosts' spools merged again from the
start (nothing lost, nothing twice), the next step started though its barrier came after the
crash. A host without the session's run is named (by the controller and by ``bench-gui
attach``), and nothing stored changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bench_gui.services.reattach import ReattachController, find_candidates, scan
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event, decode_line
from tests._fixtures.wait import wait_until as wait_for
from tests.services.plans import two_host_plan

pytestmark = pytest.mark.integration

# The desktop that starts the run: it stops existing (no cleanup at all) once the first step
# is being measured, and prints its session id. A third argument: the seconds its agents wait
# past the plan's max_outage_s for a desktop gone (instead of the product's allowance).
CRASHING_DESKTOP = """
import json, os, sys
from bench_gui.core.plan import plan_from_dict
from bench_gui.services import step_barrier
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore

if len(sys.argv) > 3:
    step_barrier.DESKTOP_SLACK_S = float(sys.argv[3])
plan = plan_from_dict(json.loads(sys.argv[1]))
controller = RunController(plan, SessionStore(sys.argv[2]))
for event in controller.events():
    if event.kind == "sample" and event.get("phase") == "measure":
        print(controller.session_id, flush=True)
        os._exit(9)
print("the run ended before the crash", flush=True)
"""


def crash_mid_step(plan: Any, store_path: Path, *slack: str) -> int:
    env = dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    script = [CRASHING_DESKTOP, json.dumps(plan.to_dict()), str(store_path), *slack]
    done = subprocess.run(
        [sys.executable, "-c", *script],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 9, done.stdout + done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_a_lost_run_is_followed_again_to_its_end(
    pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    plan = two_host_plan(pg_server, two_hosts, duration_s=3)
    session_id = crash_mid_step(plan, store.path)
    assert store.get_run(session_id).status == "running"
    stored_before = store.last_seq(session_id)
    assert stored_before > 0

    (candidate,) = [c for c in find_candidates(store) if c.session_id == session_id]
    assert candidate.target == two_hosts[0]  # the primary is asked
    assert candidate.where == " + ".join(two_hosts)  # as the dialog names the run's hosts
    (candidate,) = scan([candidate])
    assert candidate.attachable, candidate.detail
    controller = ReattachController(candidate, store, replay=True)
    seen = list(controller.events())

    run = store.get_run(session_id)
    assert run.status == "complete", run.message
    assert seen[-1].kind == "done"
    assert seen[-1].get("status") == "ok"
    # Every step once, each from both hosts (the second began after the crash).
    steps = store.steps(session_id)
    assert [s.vus for s in steps] == [2, 4]
    assert all(s.nopm and s.nopm > 0 for s in steps)  # the primary read the counters
    assert all([h["host"] for h in s.summary["driver_hosts"]] == two_hosts for s in steps)
    # One stream again: the merged seqs run 1, 2, 3... with none missing and none twice.
    numbered = [e.seq for e in seen if e.seq]
    assert numbered == list(range(1, len(numbered) + 1))
    assert store.last_seq(session_id) == numbered[-1]
    samples = [s.seq for s in store.samples(session_id)]
    assert samples == sorted(set(samples))
    assert {s.step for s in store.samples(session_id) if s.phase == "measure"} == {0, 1}
    log = [line.message for line in store.log(session_id)]
    assert any("re-attached to the run on 2 driver hosts" in line for line in log)
    assert any("step 1: started before the re-attach" in line for line in log)
    assert any("step 2: every driver host ready" in line for line in log)
    # Merged again, the events keep the times they happened at, not the re-attach's.
    hello = [e for e in seen if e.kind == "hello"]
    assert hello
    assert hello[0].t < steps[-1].t

    # A host whose run directory is gone: named, and the stored stream is left as it was.
    inner = controller.inner
    assert inner is not None
    beta = inner.hosts[1]
    assert beta.agent is not None
    beta.ssh.remove_run(beta.agent.run_dir)  # type: ignore[attr-defined]
    last = store.last_seq(session_id)
    with pytest.raises(RunError, match=f"driver host '{two_hosts[1]}': no run of session"):
        list(RunController(plan, store).reattach(session_id))
    # ... and so says ``bench-gui attach``.
    attach = subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(store.path), "attach", str(session_id)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring"),
        check=False,
    )
    assert attach.returncode != 0
    assert f"on driver hosts {', '.join(two_hosts)}: merging" in attach.stderr
    assert f"driver host '{two_hosts[1]}': no run of session {session_id}" in attach.stderr
    assert store.last_seq(session_id) == last
    assert len(store.steps(session_id)) == 2


def spools() -> dict[str, list[Event]]:
    """Each agent's events, read from its spool on this machine (both hosts' run folders are
    in the test's own folder), by the role it said in its hello."""
    found: dict[str, list[Event]] = {}
    for spool in Path(os.environ["BENCH_GUI_REMOTE_ROOT"]).glob("runs/*/events.jsonl"):
        lines = spool.read_text(encoding="utf-8").splitlines(keepends=True)
        events = [decode_line(line) for line in lines if line.endswith("\n")]
        hello = next((e for e in events if e.kind == "hello"), None)
        if hello is not None:
            found[str(hello.get("role"))] = events
    return found


def ended(events: list[Event]) -> bool:
    return any(e.kind == "done" for e in events)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_agents_whose_desktop_vanished_end_the_run_at_the_next_barrier(
    pg_server: Any, two_hosts: list[str], store: SessionStore
) -> None:
    """The desktop dies mid-step 1 and no other follows the run: both agents finish the step,
    wait at step 2's barrier until no desktop has probed them for the plan's max_outage_s
    and the allowance past it, end the run there naming why (not the 600 s barrier timeout),
    and leave: their processes gone, the run lock free. Re-attached later, the session ends
    with step 1 kept and the agents' reason."""
    plan = two_host_plan(pg_server, two_hosts, duration_s=3)
    plan.driver.max_outage_s = 1.0
    session_id = crash_mid_step(plan, store.path, "14")
    wait_for(
        lambda: len(found := spools()) == 2 and all(map(ended, found.values())),
        300,
        "both agents to end the run on their own",
        interval=0.5,
    )
    for role, events in spools().items():
        (hello,) = [e for e in events if e.kind == "hello"]
        assert hello.get("barrier")["desktop_timeout_s"] == 15.0, role
        wait_for(partial(gone, hello.get("pid")), 60, f"the {role}'s agent to exit")
        (error,) = [e for e in events if e.kind == "error" and e.get("fatal")]
        assert error.get("code") == "desktop_lost", (role, error.data)
        assert error.get("message").startswith("step 2 (2 VU): the desktop has not probed")
        assert [e.get("step") for e in events if e.kind == "step" and e.get("phase") == "end"] == [
            0
        ]
        (done,) = [e for e in events if e.kind == "done"]
        assert done.get("status") == "failed"

    (candidate,) = [c for c in find_candidates(store) if c.session_id == session_id]
    (candidate,) = scan([candidate])
    assert candidate.attachable, candidate.detail
    with pytest.raises(RunError, match="the desktop has not probed this run"):
        list(ReattachController(candidate, store).events())
    run = store.get_run(session_id)
    assert run.status == "incomplete", run.message
    assert [s.vus for s in store.steps(session_id)] == [2]
