"""SSH targets for the runner: connect, test, and run the agent on a driver host.

:class:`SSHTransport` deploys the agent (:mod:`bench_gui.remote.deploy`), starts it detached in
its own session and process group (``setsid nohup``), so a dropped link does not stop a run, and
follows the spool file the agent writes on the host (:class:`SSHAgentRun`, which reconnects
after a link cut and resumes where it was).

Secrets reach the agent through a 0600 file it reads and deletes (``--env-file``), never through a
command line. One benchmark per database server at a time: the agent holds the server's run lock
in the host's shared lock folder (:mod:`bench_gui.agent.runlock`), the same one a local run on
that host takes.

The code is in modules named for what they hold: :mod:`~bench_gui.remote.ssh_agent_run` (the
followed run, its resume after a link cut, the link-state notices),
:mod:`~bench_gui.remote.run_listing` (the run directories on a host),
:mod:`~bench_gui.remote.target_check` (testing a target), with the connection and its errors in
:mod:`~bench_gui.remote.connection` and :mod:`~bench_gui.remote.errors`; this module holds
:class:`SSHTransport` and names them all for its importers.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from bench_gui.remote.connection import (
    DEFAULT_TIMEOUT,
    CommandLogEntry,
    CommandResult,
    SSHConnection,
    connect,
)
from bench_gui.remote.deploy import Deployment, deploy
from bench_gui.remote.errors import (
    AuthFailed,
    ChangedHostKey,
    CommandTimeout,
    ConnectError,
    ConnectionRefused,
    DeployError,
    HostKeyError,
    HostNotFound,
    KeyPassphraseNeeded,
    NoAnswer,
    NoSudo,
    RemotePythonUnsupported,
    SSHError,
    UnknownHostKey,
)
from bench_gui.remote.run_listing import _LIST_SCRIPT, RemoteRun, _remote_run
from bench_gui.remote.secrets import TargetSecrets
from bench_gui.remote.ssh_agent_run import LINK_LOST, LINK_RESTORED, SSHAgentRun
from bench_gui.remote.target_check import TargetReport, check_database, check_target, test_target
from bench_gui.remote.targets import SSHTarget
from bench_gui.remote.transport import LOCK_HOLDER_ENV, Transport, desktop_identity
from bench_gui.wire.names import LOCK_DIR_ENV

__all__ = [
    "LINK_LOST",
    "LINK_RESTORED",
    "AuthFailed",
    "ChangedHostKey",
    "CommandLogEntry",
    "CommandResult",
    "CommandTimeout",
    "ConnectError",
    "ConnectionRefused",
    "DeployError",
    "HostKeyError",
    "HostNotFound",
    "KeyPassphraseNeeded",
    "NoAnswer",
    "NoSudo",
    "RemotePythonUnsupported",
    "RemoteRun",
    "SSHAgentRun",
    "SSHError",
    "SSHConnection",
    "SSHTransport",
    "TargetReport",
    "UnknownHostKey",
    "check_database",
    "check_target",
    "connect",
    "default_remote_root",
    "desktop_identity",
    "test_target",
]

DEFAULT_REMOTE_ROOT: Final = "~/.cache/bench-gui"
# Where the agent and its runs go on every driver host instead, when set on the desktop (tests
# and CI give each test its own folder; a host whose home is small or shared can use another).
REMOTE_ROOT_ENV: Final = "BENCH_GUI_REMOTE_ROOT"
# The longest env.json (the database password) may stay in a run directory: the agent deletes
# it on reading it, at its start; a janitor beside it deletes it when the agent ended without
# reading it, or after this long whatever happens.
ENV_FILE_LIMIT_S: Final = 60
# The janitor: $1 the agent's pid, $2 the limit in tenths of a second; run in the run directory.
# It asks whether the pid lives, not what its command line says: a process in the middle of its
# exec chain (setsid, nohup, env, python) can show an empty one, and an agent whose env.json
# went before it read it runs without its password and without the desktop's name in its lock.
_ENV_JANITOR: Final = r"""
i=0
while [ -e env.json ] && [ "$i" -lt "$2" ]; do
  kill -0 "$1" 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
rm -f env.json
"""


def default_remote_root() -> str:
    """The folder of the agent's copies and run directories on a driver host:
    ``$BENCH_GUI_REMOTE_ROOT`` of this desktop when set (``~/`` is the remote home), else
    ``~/.cache/bench-gui``."""
    return os.environ.get(REMOTE_ROOT_ENV, "").strip() or DEFAULT_REMOTE_ROOT


class SSHTransport(Transport):
    """Starts agents on a driver host reached over SSH, and re-attaches to their runs.

    ``known_hosts`` is the app's known-hosts file (see :func:`connect`); ``remote_root`` the
    cache on the host (agent copies, run directories; None: :func:`default_remote_root`);
    ``lock_dir`` the folder of the run
    locks on the host (None: the host's shared one, which every local and SSH run there uses).
    A follower whose link is down keeps reconnecting (the run goes on on the host) until
    ``max_outage`` seconds have passed (None: for ever; :meth:`SSHAgentRun.close` gives up).
    ``on_command`` receives every command run on the host (secrets redacted), for the session's
    command log; ``on_started`` receives each :class:`SSHAgentRun` as soon as it exists (to
    record its ``run_dir`` with the session, for re-attaching).
    """

    name = "ssh"

    def __init__(
        self,
        target: SSHTarget,
        *,
        accept_fingerprint: str | None = None,
        known_hosts: Path | None = None,
        remote_root: str | None = None,
        connect_timeout: float = DEFAULT_TIMEOUT,
        max_outage: float | None = None,
        secrets: TargetSecrets | None = None,
        ssh_config: Path | None = None,
        follow: str = "tail",
        on_link_state: Callable[[str, str], None] | None = None,
        on_command: Callable[[CommandLogEntry], None] | None = None,
        on_started: Callable[[SSHAgentRun], None] | None = None,
        lock_dir: str | None = None,
    ) -> None:
        if follow not in ("tail", "sftp"):
            raise ValueError("follow must be 'tail' or 'sftp'")
        self.target = target
        self.accept_fingerprint = accept_fingerprint
        self.known_hosts = known_hosts
        self.remote_root = remote_root or default_remote_root()
        self.connect_timeout = connect_timeout
        self.max_outage = max_outage
        self.secrets = secrets
        self.ssh_config = ssh_config
        self.follow = follow
        self.on_link_state = on_link_state
        self.on_command = on_command
        self.on_started = on_started
        # BENCH_GUI_LOCK_DIR, when the desktop has it, names the driver hosts' lock folder too
        # (a test suite keeps its locks to itself); otherwise the agent picks the host's own.
        self.lock_dir = lock_dir or os.environ.get(LOCK_DIR_ENV, "").strip() or None
        self.command_log: list[CommandLogEntry] = []
        self.deployment: Deployment | None = None
        self._control: SSHConnection | None = None
        self._lock = threading.Lock()

    # -- sessions -----------------------------------------------------------------------------

    def _record(self, entry: CommandLogEntry) -> None:
        self.command_log.append(entry)
        if self.on_command is not None:
            self.on_command(entry)

    def connect(self) -> SSHConnection:
        """A new SSH session to the target (its commands land in :attr:`command_log`)."""
        return connect(
            self.target,
            accept_fingerprint=self.accept_fingerprint,
            timeout=self.connect_timeout,
            known_hosts=self.known_hosts,
            secrets=self.secrets,
            ssh_config=self.ssh_config,
            on_command=self._record,
        )

    def session(self) -> SSHConnection:
        """The transport's own session for short commands, reopened if the link dropped."""
        with self._lock:
            if self._control is None or not self._control.is_active():
                if self._control is not None:
                    self._control.close()
                self._control = self.connect()
            return self._control

    def close(self) -> None:
        with self._lock:
            if self._control is not None:
                self._control.close()
                self._control = None

    def root(self, session: SSHConnection) -> str:
        return session.abspath(self.remote_root)

    # -- agent --------------------------------------------------------------------------------

    def deploy(self) -> Deployment:
        """Make sure the agent is on the host (uploaded once per version and dependencies)."""
        session = self.session()
        self.deployment = deploy(session, self.target.python, self.remote_root)
        return self.deployment

    def start_agent(self, config: dict[str, Any], env: dict[str, str]) -> SSHAgentRun:
        session = self.session()
        deployment = self.deploy()
        root = self.root(session)
        run_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]
        run_dir = f"{root}/runs/{run_id}"
        for value in env.values():
            session.redact.add(value)
        session.run(["mkdir", "-p", "-m", "700", run_dir], check=True)
        session.put_bytes(b"", f"{run_dir}/events.jsonl", 0o600)  # for tail -F from the start
        meta = {
            "run_id": run_id,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "desktop": desktop_identity(),
            "target": self.target.name,
            "action": config.get("action"),
            "engine": config.get("engine"),
            "database": config.get("database"),
            "session_id": config.get("session_id"),
            "agent_dir": deployment.agent_dir,
        }
        session.put_bytes(json.dumps(config, indent=1).encode(), f"{run_dir}/config.json", 0o600)
        session.put_bytes(json.dumps(meta, indent=1).encode(), f"{run_dir}/meta.json", 0o600)
        secrets = dict(env)
        secrets[LOCK_HOLDER_ENV] = desktop_identity()
        session.put_bytes(json.dumps(secrets).encode(), f"{run_dir}/env.json", 0o600)
        lock_args = ["--lock-dir", session.abspath(self.lock_dir)] if self.lock_dir else []
        agent = deployment.command(
            "--config",
            "config.json",
            "--spool",
            "events.jsonl",
            *lock_args,
            "--env-file",
            "env.json",
        )
        # setsid: its own session and process group, so a dropped link (or a closed channel)
        # never reaches it; nohup: no SIGHUP either. $! is the agent itself: a background job
        # of a non-interactive shell is no group leader, so setsid does not fork.
        script = (
            f"cd {shlex.quote(run_dir)} || exit 1\n"
            f"setsid nohup {shlex.join(agent)} >/dev/null 2>agent.stderr </dev/null &\n"
            "echo $! > agent.pid\n"
            # A janitor of its own (a cut link cannot stop it): env.json goes as soon as the
            # agent has ended without reading it, or after ENV_FILE_LIMIT_S whatever happens.
            f"setsid nohup sh -c {shlex.quote(_ENV_JANITOR)} sh $! {ENV_FILE_LIMIT_S * 10}"
            " >/dev/null 2>&1 </dev/null &\n"
            "cat agent.pid\n"
        )
        try:
            result = session.run(["sh", "-c", script], timeout=30)
            pid = int(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError, SSHError) as exc:
            with contextlib.suppress(SSHError):
                session.run(["rm", "-f", "--", f"{run_dir}/env.json"], timeout=30)
            detail = str(exc) if isinstance(exc, SSHError) else result.first_error_line()
            raise DeployError(f"the agent did not start on {session.host}: {detail}") from None
        run = SSHAgentRun(self, run_dir, pid, session, follow=self.follow)
        if self.on_started is not None:
            self.on_started(run)
        return run

    def list_runs(self) -> list[RemoteRun]:
        """Run directories on the host, newest last, with their state (for re-attaching)."""
        session = self.session()
        python = self.target.python
        result = session.run([python, "-c", _LIST_SCRIPT, self.root(session)], timeout=60)
        if result.exit_status == -1 and session.went_down():
            raise ConnectError(f"the link to {session.host} went down while listing the runs")
        if not result.ok:
            raise SSHError(f"cannot list the runs on {session.host}: {result.first_error_line()}")
        try:
            rows = json.loads(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError, RecursionError):
            return []
        runs = (_remote_run(r) for r in rows) if isinstance(rows, list) else ()
        return [r for r in runs if r is not None]

    def attach(
        self, run_dir: str, from_seq: int = 0, have: frozenset[int] | None = None
    ) -> SSHAgentRun:
        """Follow a run already on the host, passing on only events after ``from_seq`` (only
        those not in ``have``, when the caller knows exactly which seqs it has)."""
        session = self.session()
        run_dir = session.abspath(run_dir)
        try:
            pid = int(session.read_bytes(f"{run_dir}/agent.pid").decode().strip())
        except FileNotFoundError:
            raise SSHError(f"{run_dir} on {session.host} is not a run directory") from None
        except ValueError:
            raise SSHError(f"{run_dir}/agent.pid on {session.host} is unreadable") from None
        run = SSHAgentRun(
            self, run_dir, pid, self.connect(), from_seq=from_seq, follow=self.follow, have=have
        )
        if self.on_started is not None:
            self.on_started(run)
        return run

    def remove_run(self, run_dir: str) -> None:
        """Delete a finished run's directory on the host (refused while it runs)."""
        session = self.session()
        run_dir = session.abspath(run_dir)
        root = self.root(session)
        if not run_dir.startswith(f"{root}/runs/") or "/../" in run_dir:
            raise SSHError(f"{run_dir} is not a run directory of bench-gui")
        for run in self.list_runs():
            if run.run_dir == run_dir and run.state == "running":
                raise SSHError(f"the run in {run_dir} is still going on")
        session.run(["rm", "-rf", "--", run_dir], check=True)
