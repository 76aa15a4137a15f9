"""The SSH transport end to end: deploy, run a real sweep over a real sshd, store it.

The sshd and the PostgreSQL server run on this machine, so the tests can also look at the
"driver host" side directly (the spool file, the agent's process group) to check that the
stored session has every event exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan_model import Plan, Target
from bench_gui.remote.ssh_transport import SSHAgentRun, SSHTransport
from bench_gui.services.agent_config import agent_config
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event, decode_line
from bench_gui.wire.run_config import Workload
from tests._fixtures.wait import wait_until

pytestmark = pytest.mark.integration

DATABASE = "ssh_tpcc"


@pytest.fixture(scope="module", autouse=True)
def _database(pg_server: Any) -> None:
    """The module's runs share one copy of the session's 1-warehouse build."""
    pg_server.clone_tpcc(DATABASE)


@pytest.fixture(scope="session")
def remote_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The driver host's cache, shared by the tests so the agent is uploaded once."""
    return tmp_path_factory.mktemp("driver-cache")


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def ssh_plan(pg_server: Any, **workload: Any) -> Plan:
    wl = Workload(warehouses=1, virtual_users=[1, 2], rampup_s=1, duration_s=3, processes=1)
    for key, value in workload.items():
        setattr(wl, key, value)
    target = Target(kind="postgresql", host=pg_server.socket_dir, database=DATABASE)
    return Plan(name="ssh sweep", target=target, workload=wl)


def make_transport(sshd: Any, remote_root: Path, **kwargs: Any) -> SSHTransport:
    sshd.trust()
    return SSHTransport(sshd.target(), remote_root=str(remote_root), **kwargs)


def spool_events(run_dir: str) -> list[Event]:
    """What the agent wrote on the driver host (here: this machine)."""
    lines = Path(run_dir, "events.jsonl").read_text().splitlines()
    return [decode_line(line) for line in lines if line.strip()]


def stored_seqs(store: SessionStore, run_id: int) -> list[int]:
    rows = store._rows(run_id, "SELECT seq FROM events WHERE run_id = ? ORDER BY seq", (run_id,))
    return [row[0] for row in rows]


def group_alive(pgid: int) -> bool:
    """Any live (non-zombie) process in the group."""
    out = subprocess.run(["ps", "-eo", "pgid=,stat="], capture_output=True, text=True).stdout
    return any(
        f[0] == str(pgid) and not f[1].startswith("Z")
        for f in (line.split() for line in out.splitlines())
        if len(f) >= 2
    )


def wait_group_gone(pgid: int, timeout: float = 2) -> None:
    wait_until(lambda: not group_alive(pgid), timeout, f"process group {pgid} to end")


def assert_complete(store: SessionStore, run_id: int, run_dir: str, seen: list[Event]) -> None:
    """Stored == spooled, every seq once, and the yielded stream had no duplicate either."""
    spooled = spool_events(run_dir)
    seqs = [e.seq for e in seen]
    assert seqs == sorted(set(seqs)), "the stream passed an event on twice or out of order"
    assert seqs == [e.seq for e in spooled]
    assert stored_seqs(store, run_id) == [e.seq for e in spooled]
    samples = [e.seq for e in spooled if e.kind == "sample"]
    assert [s.seq for s in store.samples(run_id)] == samples
    steps = [e for e in spooled if e.kind == "step" and e.get("phase") == "end"]
    assert len(store.steps(run_id)) == len(steps)


def test_deploy_uploads_once_and_reuses_the_cache(sshd: Any, tmp_path: Path) -> None:
    transport = make_transport(sshd, tmp_path / "fresh-cache")
    try:
        first = transport.deploy()
        # The driver host's python3 here has no psycopg: this desktop's copies were shipped.
        assert first.uploaded_bytes > 0
        assert first.with_deps == (not first.python_info.has_deps)
        assert Path(first.agent_dir, ".complete").is_file()
        second = transport.deploy()
        assert second.uploaded_bytes == 0
        assert second.agent_dir == first.agent_dir
        commands = [e.command for e in transport.command_log]
        assert sum("sftp put" in c for c in commands) == 1
    finally:
        transport.close()


def test_deploy_reuses_the_hosts_own_packages(sshd: Any, tmp_path: Path) -> None:
    sshd.trust()
    # An interpreter that has psycopg and hdrhistogram: only the agent itself is shipped.
    target = sshd.target(python=sys.executable)
    transport = SSHTransport(target, remote_root=str(tmp_path / "own-cache"))
    try:
        deployment = transport.deploy()
    finally:
        transport.close()
    assert deployment.python_info.has_deps
    assert not deployment.with_deps
    assert not Path(deployment.agent_dir, "deps").exists()
    assert 0 < deployment.uploaded_bytes < 200_000


def test_the_remote_root_comes_from_the_environment(
    sshd: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a ``remote_root``, the agent goes where $BENCH_GUI_REMOTE_ROOT says (every test
    has its own, see tests/conftest.py), never into the SSH user's real ~/.cache/bench-gui."""
    assert os.environ["BENCH_GUI_REMOTE_ROOT"] == str(tmp_path / "driver-host")
    monkeypatch.setenv("BENCH_GUI_REMOTE_ROOT", str(tmp_path / "elsewhere"))
    sshd.trust()
    transport = SSHTransport(sshd.target(python=sys.executable))
    try:
        deployment = transport.deploy()
    finally:
        transport.close()
    assert deployment.agent_dir.startswith(f"{tmp_path / 'elsewhere'}/agent-")
    monkeypatch.delenv("BENCH_GUI_REMOTE_ROOT")
    assert SSHTransport(sshd.target()).remote_root == "~/.cache/bench-gui"


def test_full_sweep_through_ssh(
    sshd: Any,
    pg_server: Any,
    remote_root: Path,
    store: SessionStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "s3cret-db-pass"
    monkeypatch.setenv("BENCH_GUI_TEST_PGPASSWORD", secret)
    plan = ssh_plan(pg_server)
    plan.target.password_env = "BENCH_GUI_TEST_PGPASSWORD"
    runs: list[SSHAgentRun] = []
    link: list[str] = []
    transport = make_transport(
        sshd, remote_root, on_started=runs.append, on_link_state=lambda s, d: link.append(s)
    )
    controller = RunController(plan, store, transport=transport)
    try:
        seen = list(controller.events())
    finally:
        transport.close()
    assert controller.final is not None
    assert controller.final.get("status") == "ok"
    run = runs[0]
    run_id = controller.session_id
    assert run_id is not None
    assert store.get_run(run_id).status == "complete"
    assert_complete(store, run_id, run.run_dir, seen)
    assert [s.vus for s in store.steps(run_id)] == [1, 2]
    # About one sample a second per step (ramp-up + measured window).
    assert len(store.samples(run_id)) >= 2 * (1 + 3) - 2
    assert link == []
    # The secret went through a file the agent deleted, never through a command line or log.
    assert not Path(run.run_dir, "env.json").exists()
    assert all(secret not in e.command for e in transport.command_log)
    assert any("setsid nohup" in e.command for e in transport.command_log)
    for name in os.listdir(run.run_dir):
        assert secret not in Path(run.run_dir, name).read_text(errors="replace"), name
    wait_group_gone(run.pid)


def test_link_cut_twice_loses_nothing(
    sshd: Any, pg_server: Any, remote_root: Path, store: SessionStore
) -> None:
    runs: list[SSHAgentRun] = []
    link: list[tuple[str, str]] = []
    transport = make_transport(
        sshd, remote_root, on_started=runs.append, on_link_state=lambda s, d: link.append((s, d))
    )
    controller = RunController(ssh_plan(pg_server, duration_s=4), store, transport=transport)
    seen: list[Event] = []
    cuts: list[list[int]] = []
    samples = 0
    try:
        for event in controller.events():
            seen.append(event)
            if event.kind != "sample":
                continue
            samples += 1
            if samples in (3, 7):
                run = runs[0]
                port = run.local_port
                assert port is not None
                cuts.append(sshd.cut(port))
                assert cuts[-1], "no sshd process served the follower's connection"
                os.kill(run.pid, 0)  # the agent runs on
    finally:
        transport.close()
    assert len(cuts) == 2
    states = [s for s, _ in link]
    assert states.count("lost") == 2, link
    assert states.count("restored") == 2, link
    assert "the run continues on the target" in link[0][1]
    assert controller.final is not None
    assert controller.final.get("status") == "ok"
    assert controller.session_id is not None
    assert_complete(store, controller.session_id, runs[0].run_dir, seen)
    assert len(store.steps(controller.session_id)) == 2


def test_second_run_is_refused_while_the_first_holds_the_lock(
    sshd: Any, pg_server: Any, remote_root: Path, store: SessionStore
) -> None:
    first_plan = ssh_plan(pg_server, virtual_users=[1], duration_s=120)
    transport = make_transport(sshd, remote_root)
    config, env = agent_config(first_plan, "run")
    first = transport.start_agent(config, env)
    try:
        events = (e for e in first.events() if isinstance(e, Event))
        for event in events:
            if event.kind == "sample":
                break
        second = RunController(
            ssh_plan(pg_server), store, transport=make_transport(sshd, remote_root)
        )
        with pytest.raises(
            RunError,
            match="another benchmark is running against the PostgreSQL server with system id",
        ):
            list(second.events())
        message = second.errors[-1]
        assert f"agent pid {first.pid}" in message
        assert "since" in message
        assert second.session_id is not None
        assert store.get_run(second.session_id).status == "failed"
        first.stop()
        rest = list(events)
        assert rest[-1].kind == "done"
        assert rest[-1].get("status") == "stopped"
        assert first.wait(30) == 0
    finally:
        first.kill()
        first.close()
        transport.close()


def test_stop_ends_the_process_group_and_keeps_the_partial_session(
    sshd: Any, pg_server: Any, remote_root: Path, store: SessionStore
) -> None:
    runs: list[SSHAgentRun] = []
    transport = make_transport(sshd, remote_root, on_started=runs.append)
    plan = ssh_plan(pg_server, virtual_users=[2, 2], duration_s=120, processes=2)
    controller = RunController(plan, store, transport=transport)
    seen: list[Event] = []
    try:
        for event in controller.events():
            seen.append(event)
            if event.kind == "sample" and event.get("phase") == "measure":
                assert group_alive(runs[0].pid)
                controller.stop()
    finally:
        transport.close()
    assert controller.final is not None
    assert controller.final.get("status") == "stopped"
    run_id = controller.session_id
    assert run_id is not None
    assert store.get_run(run_id).status == "incomplete"
    steps = store.steps(run_id)
    assert len(steps) == 1
    assert steps[0].complete is False
    assert_complete(store, run_id, runs[0].run_dir, seen)
    wait_group_gone(runs[0].pid)  # no process of the agent's group is left


DESKTOP_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from bench_gui.core.plan_model import Plan, Target
    from bench_gui.wire.run_config import Workload
    from bench_gui.remote.ssh_transport import SSHTransport
    from bench_gui.remote.targets import SSHTarget
    from bench_gui.services.run import RunController
    from bench_gui.store import SessionStore

    args = json.loads(sys.argv[1])
    plan = Plan(name="desktop that dies", target=Target(**args["target"]),
                workload=Workload(**args["workload"]))
    store = SessionStore(Path(args["store"]))
    transport = SSHTransport(SSHTarget(**args["ssh"]), remote_root=args["root"],
                             on_started=lambda run: print("STARTED", run.run_dir, flush=True))
    for event in RunController(plan, store, transport=transport).events():
        print("EVENT", event.kind, event.seq, flush=True)
    """
)


def test_reattach_after_the_desktop_is_killed(
    sshd: Any, pg_server: Any, remote_root: Path, tmp_path: Path
) -> None:
    sshd.trust()
    db_path = tmp_path / "desktop.sqlite3"
    target = sshd.target()
    args = {
        "target": {"kind": "postgresql", "host": pg_server.socket_dir, "database": DATABASE},
        "workload": {
            "warehouses": 1,
            "virtual_users": [1, 2],
            "rampup_s": 1,
            "duration_s": 3,
            "processes": 1,
        },
        "store": str(db_path),
        "ssh": {
            k: getattr(target, k) for k in ("name", "host", "port", "user", "auth", "key_path")
        },
        "root": str(remote_root),
    }
    desktop = subprocess.Popen(
        [sys.executable, "-c", DESKTOP_SCRIPT, json.dumps(args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    run_dir = None
    samples = 0
    assert desktop.stdout is not None
    try:
        for line in desktop.stdout:
            if line.startswith("STARTED"):
                run_dir = line.split(None, 1)[1].strip()
            elif line.startswith("EVENT sample"):
                samples += 1
                if samples == 3:
                    break
    finally:
        desktop.send_signal(signal.SIGKILL)
        desktop.wait()
    assert run_dir is not None, desktop.stderr.read() if desktop.stderr else ""
    assert samples == 3

    with SessionStore(db_path) as store:
        (info,) = store.list_runs()
        assert info.status == "running"  # the desktop died without closing it
        last = store.last_seq(info.id)
        assert last > 0
        transport = make_transport(sshd, remote_root)
        try:
            listed = {r.run_dir: r for r in transport.list_runs()}
            assert listed[run_dir].state in ("running", "finished")
            assert listed[run_dir].meta["target"] == target.name
            run = transport.attach(run_dir, from_seq=last)
            fetched = [e for e in run.events() if isinstance(e, Event)]
            assert fetched
            assert all(e.seq > last for e in fetched)
            assert all(store.add_event(info.id, e) for e in fetched), "a duplicate was passed on"
            assert fetched[-1].kind == "done"
            assert fetched[-1].get("status") == "ok"
            assert run.wait(30) == 0
            run.close()
            again = {r.run_dir: r for r in transport.list_runs()}[run_dir]
            assert again.state == "finished"
            assert again.done == "ok"
        finally:
            transport.close()
        spooled = spool_events(run_dir)
        assert stored_seqs(store, info.id) == [e.seq for e in spooled]
        assert len(store.steps(info.id)) == 2
        assert store.get_run(info.id).status == "complete"  # from the agent's done event
