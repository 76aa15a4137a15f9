"""The session's PostgreSQL over TCP on loopback, for tests that spell its host as an address;
and a private PostgreSQL that speaks TLS (``pg_tls``), for the team store's verified logins.

The embedded server listens on a Unix socket only. ``pg_tcp`` starts a small relay process
that listens on 127.0.0.1 (and ::1 where the host has it) on a free port and passes each
connection, byte for byte, to the server's socket: a client that says ``127.0.0.1``,
``localhost`` or the socket directory reaches the same server, as it would on a host where the
server listens on every one of them. The relay is a separate process (no thread of the test
process), stopped at the end of the session.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from .pg import PgServer
from .ssh import free_port
from .wait import wait_until

RELAY = r"""
import os, selectors, socket, sys, threading
target, port = sys.argv[1], int(sys.argv[2])
listeners = []
for family, address in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    try:
        s = socket.socket(family)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((address, port))
        s.listen(64)
        listeners.append(s)
    except OSError:
        if family == socket.AF_INET:
            raise
def pump(a, b):
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
def serve(listener):
    while True:
        client, _ = listener.accept()
        server = socket.socket(socket.AF_UNIX)
        try:
            server.connect(target)
        except OSError:
            client.close()
            continue
        threading.Thread(target=pump, args=(client, server), daemon=True).start()
        threading.Thread(target=pump, args=(server, client), daemon=True).start()
for listener in listeners[1:]:
    threading.Thread(target=serve, args=(listener,), daemon=True).start()
print("ready", flush=True)
serve(listeners[0])
"""


@dataclass
class PgTcp:
    """The session's server reached over TCP: ``port`` on 127.0.0.1 and localhost."""

    server: PgServer
    port: int

    def uri(self, database: str = "postgres", host: str = "127.0.0.1") -> str:
        return f"host={host} port={self.port} user=postgres dbname={database} sslmode=disable"


@pytest.fixture(scope="session")
def pg_tcp(pg_server: PgServer) -> Iterator[PgTcp]:
    port = free_port()
    target = f"{pg_server.socket_dir}/.s.PGSQL.5432"
    proc = subprocess.Popen(
        [sys.executable, "-c", RELAY, target, str(port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"

        def listening() -> bool:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                return True
            return False

        wait_until(listening, 15, f"the PostgreSQL relay to listen on {port}")
        yield PgTcp(pg_server, port)
    finally:
        proc.kill()
        proc.wait()


# ---- a PostgreSQL that speaks TLS ---------------------------------------------------------------
#
# The embedded server above is built without OpenSSL (``ssl = on`` makes it refuse to start), and
# PostgreSQL never offers TLS on a Unix socket, so the relay cannot give it TLS either. The TLS
# server is therefore the Debian ``postgresql`` package's (scripts/install-system-deps.sh
# installs it for the tests), started from a fresh data directory of this test session with
# ``ssl = on``, a certificate for ``localhost`` signed by a CA the fixture makes with the
# openssl command, scram logins over TLS only (``hostnossl ... reject``).

TLS_PASSWORD = "tls-test-secret"


@dataclass
class PgTls:
    """A private PostgreSQL with TLS on 127.0.0.1:``port``: its certificate names
    ``localhost`` only, is signed by ``ca_cert``; ``other_ca`` signed nothing of it."""

    port: int
    ca_cert: Path
    other_ca: Path
    socket_dir: Path

    def admin(self, database: str = "postgres") -> str:
        """A superuser conninfo over the server's Unix socket (trusted, no TLS there)."""
        return f"host={self.socket_dir} port={self.port} user=postgres dbname={database}"


def _postgres_bin() -> Path | None:
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent if found else None


def _openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed: {done.stderr.strip()}")


def make_tls_files(folder: Path) -> None:
    """``ca.crt`` and ``other-ca.crt`` (two CAs), ``server.crt``/``server.key`` for
    ``localhost`` (DNS name only: 127.0.0.1 does not match it), signed by ``ca.crt``."""
    for name in ("ca", "other-ca"):
        _openssl(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", f"/CN=bench-gui test {name}", "-keyout", f"{name}.key", "-out", f"{name}.crt",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=folder,
        )  # fmt: skip
    _openssl(
        "req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
        "-keyout", "server.key", "-out", "server.csr", cwd=folder,
    )  # fmt: skip
    (folder / "server.ext").write_text(
        "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n", encoding="utf-8"
    )
    _openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server.crt",
        cwd=folder,
    )  # fmt: skip


@pytest.fixture(scope="session")
def pg_tls() -> Iterator[PgTls]:
    bin_dir = _postgres_bin()
    if bin_dir is None or shutil.which("openssl") is None:
        pytest.skip("a TLS PostgreSQL needs apt-get install -y postgresql openssl")
    as_root = os.geteuid() == 0
    user: str | None = "postgres" if as_root else None
    if as_root:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no postgres system user to run the TLS server as")
    # /tmp, not pytest's 0700 folders: the server runs as the postgres user.
    root = Path(tempfile.mkdtemp(prefix="bench-gui-pg-tls-"))
    data, tls = root / "data", root / "tls"
    tls.mkdir()
    make_tls_files(tls)
    run = {"capture_output": True, "text": True, "check": False, "user": user, "timeout": 120}
    port = free_port()
    try:
        if as_root:
            for path in (root, tls, *tls.iterdir()):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        root.chmod(0o700)
        (tls / "server.key").chmod(0o600)
        made = subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth-local=trust",
             "--auth-host=reject", "--no-sync"], **run,
        )  # fmt: skip
        if made.returncode != 0:
            pytest.fail(f"initdb failed: {made.stdout}{made.stderr}")
        (data / "pg_hba.conf").write_text(
            "local all all trust\n"
            "hostssl all all 127.0.0.1/32 scram-sha-256\n"
            "hostssl all all ::1/128 scram-sha-256\n"
            "hostnossl all all all reject\n",
            encoding="utf-8",
        )
        options = (
            f"-p {port} -h localhost -k {root} -c ssl=on -c ssl_cert_file={tls}/server.crt"
            f" -c ssl_key_file={tls}/server.key -c fsync=off -c shared_buffers=16MB"
        )
        started = subprocess.run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"),
             "-w", "start"], **run,
        )  # fmt: skip
        if started.returncode != 0:
            log = (root / "log").read_text(errors="replace") if (root / "log").exists() else ""
            pytest.fail(f"the TLS PostgreSQL did not start: {started.stderr}{log}")
        server = PgTls(port, tls / "ca.crt", tls / "other-ca.crt", root)
        with psycopg.connect(server.admin(), autocommit=True) as conn:
            conn.execute(f"ALTER USER postgres PASSWORD '{TLS_PASSWORD}'")
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], **run
            )
        shutil.rmtree(root, ignore_errors=True)
