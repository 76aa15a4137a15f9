"""Connecting to a real sshd: host keys, authentication, the usual failures, commands, sudo.

Each failure must come out as an :class:`SSHError` whose message a user can act on.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bench_gui.remote import secrets
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.ssh_transport import (
    AuthFailed,
    ChangedHostKey,
    CommandTimeout,
    ConnectionRefused,
    KeyPassphraseNeeded,
    NoAnswer,
    NoSudo,
    UnknownHostKey,
    check_database,
    check_target,
    connect,
)
from bench_gui.store.paths import data_dir


def app_file() -> Path:
    """The app's known-hosts file, as the CLI and GUI name it (in the test's data dir)."""
    return data_dir() / APP_KNOWN_HOSTS


def test_unknown_host_key_is_refused_with_its_fingerprint(sshd: Any) -> None:
    with pytest.raises(UnknownHostKey) as info:
        connect(sshd.target())
    err = info.value
    assert err.fingerprint_sha256 == sshd.fingerprint
    assert err.fingerprint_sha256.startswith("SHA256:")
    assert not err.fingerprint_sha256.endswith("=")
    assert sshd.fingerprint in str(err)
    assert f"[127.0.0.1]:{sshd.port}" in str(err)
    assert err.key_type == "ED25519"
    assert not app_file().exists()  # nothing trusted behind the user's back


def test_a_wrong_fingerprint_does_not_accept_the_key(sshd: Any) -> None:
    with pytest.raises(UnknownHostKey):
        connect(sshd.target(), accept_fingerprint="SHA256:" + "A" * 43, known_hosts=app_file())
    assert not app_file().exists()


def test_accepting_the_fingerprint_records_the_key(sshd: Any) -> None:
    target = sshd.target()
    with connect(target, accept_fingerprint=sshd.fingerprint, known_hosts=app_file()) as session:
        assert session.run(["echo", "hi"]).stdout == "hi\n"
    assert sshd.host_key_line in app_file().read_text()
    # Known from now on, without accepting again; ~/.ssh/known_hosts was never written.
    with connect(target, known_hosts=app_file()) as session:
        assert session.run(["true"]).ok
    assert not (Path.home() / ".ssh" / "known_hosts").exists()


def test_hashed_known_hosts_entries_are_honoured(sshd: Any) -> None:
    sshd.trust()
    known = Path.home() / ".ssh" / "known_hosts"
    subprocess.run(["ssh-keygen", "-q", "-H", "-f", str(known)], check=True, capture_output=True)
    assert "|1|" in known.read_text()
    assert "127.0.0.1" not in known.read_text()
    with connect(sshd.target()) as session:
        assert session.run(["true"]).ok


def test_changed_host_key_is_refused_naming_the_line(sshd: Any) -> None:
    other = Path(f"{sshd.stranger_key}.pub").read_text().split()[:2]
    known = Path.home() / ".ssh" / "known_hosts"
    known.write_text(f"# a comment\n[127.0.0.1]:{sshd.port} {other[0]} {other[1]}\n")
    with pytest.raises(ChangedHostKey) as info:
        # Accepting cannot override a changed key.
        connect(sshd.target(), accept_fingerprint=sshd.fingerprint, known_hosts=app_file())
    text = str(info.value)
    assert "man-in-the-middle" in text
    assert f"{known} line 2" in text
    assert sshd.fingerprint in text
    assert not app_file().exists()


def test_wrong_key_is_refused(sshd: Any) -> None:
    sshd.trust()
    with pytest.raises(AuthFailed, match=r"authentication failed for root@127\.0\.0\.1") as info:
        connect(sshd.target(key_path=str(sshd.stranger_key)))
    assert str(sshd.stranger_key) in str(info.value)


def test_encrypted_key_needs_its_passphrase(sshd: Any) -> None:
    sshd.trust()
    target = sshd.target(key_path=str(sshd.encrypted_key))
    with pytest.raises(KeyPassphraseNeeded, match="encrypted and no passphrase is stored"):
        connect(target)
    secrets.set_secret(target.name, "passphrase", "not it")
    with pytest.raises(AuthFailed, match="passphrase is wrong"):
        connect(target)
    secrets.set_secret(target.name, "passphrase", sshd.passphrase)
    with connect(target) as session:
        assert session.run(["true"]).ok


def test_password_login_and_wrong_password(sshd: Any) -> None:
    if sshd.nosudo_user is None:
        pytest.skip("password logins need a dedicated user, which only root can create")
    sshd.trust()
    target = sshd.target(name="pw", user=sshd.nosudo_user, auth="password", key_path=None)
    with pytest.raises(AuthFailed, match="no .*password.* is stored|none is stored"):
        connect(target)
    secrets.set_secret("pw", "password", "wrong-password")
    with pytest.raises(AuthFailed) as info:
        connect(target)
    assert f"authentication failed for {sshd.nosudo_user}@127.0.0.1" in str(info.value)
    assert "password" in str(info.value)
    secrets.set_secret("pw", "password", sshd.password)
    with connect(target) as session:
        assert session.run(["id", "-un"]).stdout.strip() == sshd.nosudo_user
        # The password never shows in the command log, even if a command carried it.
        session.run(["echo", sshd.password])
        assert all(sshd.password not in e.command for e in session.command_log)
        assert "***" in session.command_log[-1].command


def test_connection_refused(sshd: Any) -> None:
    port = sshd.free_port()
    target = sshd.target(port=port)
    with pytest.raises(ConnectionRefused, match=rf"nothing listens on 127\.0\.0\.1:{port}"):
        connect(target)


def test_no_answer_times_out_with_a_clear_message(sshd: Any) -> None:
    # Only loopback is allowed here: a listener that accepts and never speaks SSH plays the
    # part of a host that does not answer.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    port = listener.getsockname()[1]
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept)
    thread.start()
    try:
        t0 = time.monotonic()
        with pytest.raises(NoAnswer, match=rf"no answer from 127\.0\.0\.1:{port} within 2 s"):
            connect(sshd.target(port=port), timeout=2)
        assert time.monotonic() - t0 < 6
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def test_commands_are_quoted_drained_and_logged(sshd: Any) -> None:
    sshd.trust()
    seen: list[Any] = []
    with connect(sshd.target(), on_command=seen.append) as session:
        tricky = "a b; echo injected $(id) `id` 'q'"
        result = session.run(["echo", tricky])
        assert result.stdout == tricky + "\n"
        # Megabytes on stdout and stderr at once: drained, no hang on recv_exit_status.
        big = session.run(
            [
                "sh",
                "-c",
                "head -c 3000000 /dev/zero | tr '\\0' a; head -c 2000000 /dev/zero >&2; exit 3",
            ]
        )
        assert big.exit_status == 3
        assert len(big.stdout) == 3_000_000
        assert len(big.stderr) == 2_000_000
        assert session.run(["sh", "-c", "cat"], input="from stdin").stdout == "from stdin"
        with pytest.raises(CommandTimeout, match="did not finish within 0.5 s"):
            session.run(["sleep", "5"], timeout=0.5)
        log = session.command_log
    assert [e.exit_status for e in log] == [0, 3, 0, None]
    assert log[0].command.startswith("echo 'a b; echo injected")
    assert all(e.duration >= 0 for e in log)
    assert seen == log
    assert "exit 3" in log[1].format()


def test_target_report_as_root(sshd: Any, pg_server: Any) -> None:
    sshd.trust()
    report = check_target(sshd.target(), conninfo=pg_server.uri())
    assert report.ok, report.format()
    assert report.python_ok
    assert report.python.startswith("3.")
    assert report.sudo == "root"
    assert report.database_ok is True
    assert "PostgreSQL" in report.database or "accepting" in report.database
    bad = check_target(sshd.target(), conninfo=f"host=127.0.0.1 port={sshd.free_port()} user=x")
    assert bad.database_ok is False
    assert "not reachable" in bad.format()


def test_unreachable_target_is_a_report_line(sshd: Any) -> None:
    report = check_target(sshd.target(port=sshd.free_port()))
    assert not report.connected
    assert not report.ok
    assert "nothing listens on" in report.format()


def test_no_sudo_is_a_clear_message(sshd: Any) -> None:
    if sshd.nosudo_user is None:
        pytest.skip("needs a dedicated user, which only root can create")
    sshd.trust()
    target = sshd.target(name="nosudo", user=sshd.nosudo_user, auth="password", key_path=None)
    secrets.set_secret("nosudo", "password", sshd.password)
    report = check_target(target)
    assert report.connected
    assert report.sudo == "none"
    assert "no sudo" in report.format()
    with connect(target) as session, pytest.raises(NoSudo, match='has no sudo \\(sudo = "none"'):
        session.run(["id", "-u"], sudo=True)
    secrets.set_secret("nosudo", "sudo_password", sshd.password)
    report = check_target(target)
    assert report.sudo == "none"
    if "sudo is not installed" not in report.format():
        assert "not in the sudoers file" in report.format()
    target.sudo = "password"
    with connect(target) as session, pytest.raises(NoSudo, match="sudo refused|not installed"):
        session.run(["id", "-u"], sudo=True)


def test_sudo_with_the_keyring_password(sshd: Any) -> None:
    if sshd.sudo_user is None:
        pytest.skip("needs root and sudo installed (apt-get install -y sudo)")
    sshd.trust()
    target = sshd.target(
        name="sudoer", user=sshd.sudo_user, auth="password", key_path=None, sudo="password"
    )
    secrets.set_secret("sudoer", "password", sshd.password)
    secrets.set_secret("sudoer", "sudo_password", sshd.password)
    report = check_target(target)
    assert report.sudo == "password", report.format()
    assert report.sudo_ok
    with connect(target) as session:
        assert session.run(["id", "-u"], sudo=True).stdout.strip() == "0"
        assert all(sshd.password not in e.command for e in session.command_log)


def test_proxyjump_alias_from_ssh_config(sshd: Any) -> None:
    sshd.trust()
    (Path.home() / ".ssh" / "config").write_text(
        f"Host jumpy\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n"
        f"  IdentityFile {sshd.client_key}\n\n"
        f"Host inner\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n"
        f"  IdentityFile {sshd.client_key}\n  ProxyJump jumpy\n"
    )
    from bench_gui.remote.targets import SSHTarget, resolve

    target = SSHTarget(name="inner", host="inner", auth="key")
    resolved = resolve(target)
    assert resolved.hop.port == sshd.port
    assert [j.alias for j in resolved.jumps] == ["jumpy"]
    with connect(target) as session:
        assert session.run(["echo", "through the jump host"]).stdout == "through the jump host\n"
        assert len(session._clients) == 2


def _debian_pg_isready() -> str | None:
    """The installed PostgreSQL version behind Debian's pg_isready wrapper, if this host has
    that wrapper and its python3 has no psycopg (the probe then falls back to pg_isready)."""
    exe = shutil.which("pg_isready")
    if exe is None or not os.path.realpath(exe).endswith("/pg_wrapper"):
        return None
    has_psycopg = subprocess.run(["python3", "-c", "import psycopg"], capture_output=True)
    if has_psycopg.returncode == 0:
        return None
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_isready"))
    return versions[-1].parts[-3] if versions else None


def test_database_check_over_ssh_passes_the_port_to_pg_isready(
    sshd: Any, pg_server: Any, tmp_path: Path
) -> None:
    """A host whose default cluster is elsewhere (here: PGCLUSTER names a cluster on a port
    nothing listens on) must not lend its port to a conninfo that has none."""
    version = _debian_pg_isready()
    if version is None:
        pytest.skip("needs Debian's pg_isready wrapper and a python3 without psycopg")
    python = tmp_path / "python3-elsewhere"
    python.write_text(
        f'#!/bin/sh\nPGCLUSTER={version}/127.0.0.1:{sshd.free_port()} exec python3 "$@"\n'
    )
    python.chmod(0o755)
    conninfo = pg_server.uri()
    assert "port" not in conninfo  # the embedded server's socket, on the default port
    sshd.trust()
    with connect(sshd.target()) as session:
        ok, detail = check_database(session, conninfo, python=str(python))
    assert ok, detail
    assert detail.endswith("(checked with pg_isready)")
