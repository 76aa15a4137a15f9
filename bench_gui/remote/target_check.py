"""Testing a target: can a benchmark run from this driver host?

:func:`check_target` connects and checks what a run needs there (Python, sudo, the database as
the driver host sees it) and returns a :class:`TargetReport`, one line per check, for the CLI's
and the Targets page's connection test. Host-key problems are raised, since they need a person;
every other failure is a line of the report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bench_gui.remote.connection import DEFAULT_TIMEOUT, SSHConnection, connect
from bench_gui.remote.deploy import check_python_version, probe_python
from bench_gui.remote.errors import HostKeyError, SSHError
from bench_gui.remote.secrets import TargetSecrets
from bench_gui.remote.targets import SSHTarget

_DB_PROBE: Final = r"""
import json, os, shutil, socket, subprocess, sys
req = json.loads(sys.stdin.read())
if req.get("password"):
    os.environ["PGPASSWORD"] = req["password"]
def done(ok, method, detail):
    print(json.dumps({"ok": ok, "method": method, "detail": detail}))
    sys.exit(0)
try:
    import psycopg
except ImportError:
    psycopg = None
if psycopg is not None:
    try:
        with psycopg.connect(req["conninfo"], connect_timeout=5) as conn:
            version = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
        done(True, "psycopg", "PostgreSQL " + version)
    except Exception as exc:
        done(False, "psycopg", str(exc).strip())
# The port libpq would use: Debian's pg_isready wrapper otherwise fills in its default cluster's.
port = str(req.get("port") or os.environ.get("PGPORT") or 5432)
exe = shutil.which("pg_isready")
if exe:
    r = subprocess.run([exe, "-d", req["conninfo"], "-p", port, "-t", "5"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    done(r.returncode == 0, "pg_isready", r.stdout.strip())
host = (req.get("host") or "localhost").split(",")[0]
try:
    port = int(port.split(",")[0])
except ValueError:
    done(False, "tcp", "port %r is not a number" % port)
try:
    if host.startswith("/"):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(os.path.join(host, ".s.PGSQL.%d" % port))
    else:
        s = socket.create_connection((host, port), 5)
    s.close()
    done(True, "tcp", "%s:%d accepts connections (server not identified)" % (host, port))
except OSError as exc:
    done(False, "tcp", "%s:%d: %s" % (host, port, exc))
"""


@dataclass
class TargetReport:
    """What :func:`test_target` found, one line per check in ``lines``."""

    target: str
    connected: bool = False
    login: str = ""
    python: str = ""
    python_ok: bool = False
    sudo: str = "unknown"  # root | passwordless | password | none
    sudo_ok: bool = False
    database: str = ""  # detail of the database check ("" when not checked)
    database_ok: bool | None = None
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.connected and self.python_ok and not self.problems

    def format(self) -> str:
        return "\n".join(self.lines)

    def _good(self, text: str) -> None:
        self.lines.append(f"ok: {text}")

    def _bad(self, text: str) -> None:
        self.lines.append(f"PROBLEM: {text}")
        self.problems.append(text)


def _check_sudo(session: SSHConnection, report: TargetReport) -> None:
    if session.user == "root":
        report.sudo, report.sudo_ok = "root", True
        report._good("logged in as root: no sudo needed")
        return
    if not session.run(["sh", "-c", "command -v sudo"], timeout=20).ok:
        report.sudo = "none"
        report._bad(
            f"no sudo: sudo is not installed on {session.host}, and {session.user} is not root"
            " (storage preparation and tuning need root)"
        )
        return
    if session.run(["sudo", "-n", "true"], timeout=20).ok:
        report.sudo, report.sudo_ok = "passwordless", True
        hint = "" if session.target.sudo == "passwordless" else " (set sudo = passwordless)"
        report._good(f"sudo works without a password{hint}")
        return
    password = session.secrets.get("sudo_password")
    if not password:
        report.sudo = "none"
        report._bad(
            f"no sudo: sudo asks {session.user} for a password and none is stored in the keyring"
            " for this target"
        )
        return
    session.redact.add(password)
    result = session.run(["sudo", "-S", "-p", "", "true"], input=password + "\n", timeout=30)
    if result.ok:
        report.sudo, report.sudo_ok = "password", True
        hint = "" if session.target.sudo == "password" else " (set sudo = password)"
        report._good(f"sudo works with the password from the keyring{hint}")
        return
    report.sudo = "none"
    reason = session.redact(result.first_error_line()).removeprefix("sudo: ")
    report._bad(f"no sudo for {session.user} on {session.host}: {reason}")


def check_database(
    session: SSHConnection,
    conninfo: str,
    password: str | None = None,
    python: str = "python3",
    pythonpath: str | None = None,
) -> tuple[bool, str]:
    """Can the driver host reach this database? (psycopg there, else pg_isready, else TCP)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    host, port = "", ""
    try:
        params = conninfo_to_dict(conninfo)
        host, port = str(params.get("host", "")), str(params.get("port", ""))
    except (psycopg.Error, ValueError):
        pass  # a conninfo psycopg cannot parse: the probe over there reports the problem
    if password:
        session.redact.add(password)
    argv = [python, "-c", _DB_PROBE]
    if pythonpath:
        argv = ["env", f"PYTHONPATH={pythonpath}", *argv]
    request = json.dumps({"conninfo": conninfo, "password": password, "host": host, "port": port})
    result = session.run(argv, input=request, timeout=40)
    try:
        answer = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, f"the check did not run: {result.first_error_line()}"
    detail = session.redact(str(answer.get("detail", "")))
    return bool(answer.get("ok")), f"{detail} (checked with {answer.get('method')})"


def check_target(
    target: SSHTarget,
    conninfo: str | None = None,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    secrets: TargetSecrets | None = None,
    db_password: str | None = None,
    known_hosts: Path | None = None,
    ssh_config: Path | None = None,
) -> TargetReport:
    """Connect and check what a benchmark needs: Python, sudo, the database from over there.

    Host-key problems are raised (the caller must show the fingerprint and ask); every other
    failure is a line of the report.
    """
    report = TargetReport(target=target.name)
    try:
        session = connect(
            target,
            accept_fingerprint,
            timeout,
            secrets=secrets,
            known_hosts=known_hosts,
            ssh_config=ssh_config,
        )
    except HostKeyError:
        raise
    except SSHError as exc:
        report._bad(str(exc))
        return report
    with session:
        report.connected = True
        report.login = session.label
        report._good(f"connected to {session.label}")
        try:
            info = probe_python(session, target.python)
            report.python = info.version_text
            check_python_version(info, session.host)
            report.python_ok = True
            deps = (
                "has psycopg and hdrhistogram"
                if info.has_deps
                else ("lacks psycopg/hdrhistogram (the app will copy its own)")
            )
            report._good(f"{target.python} is Python {info.describe()}; {deps}")
        except SSHError as exc:
            report._bad(str(exc))
        try:
            _check_sudo(session, report)
        except SSHError as exc:
            report._bad(f"sudo check failed: {exc}")
        if conninfo:
            try:
                ok, detail = check_database(session, conninfo, db_password, target.python)
            except SSHError as exc:
                ok, detail = False, str(exc)
            report.database, report.database_ok = detail, ok
            if ok:
                report._good(f"the database answers from {session.host}: {detail}")
            else:
                report._bad(f"the database is not reachable from {session.host}: {detail}")
    return report


check_target.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
# The name the issue uses; pytest does not collect it (see __test__ above).
test_target = check_target
