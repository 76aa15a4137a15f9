"""The session's PostgreSQL over TCP on loopback, for tests that spell its host as an address.

The embedded server listens on a Unix socket only. ``pg_tcp`` starts a small relay process
that listens on 127.0.0.1 (and ::1 where the host has it) on a free port and passes each
connection, byte for byte, to the server's socket: a client that says ``127.0.0.1``,
``localhost`` or the socket directory reaches the same server, as it would on a host where the
server listens on every one of them. The relay is a separate process (no thread of the test
process), stopped at the end of the session.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

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
