"""Targets in targets.toml, aliases of ~/.ssh/config, secrets in the keyring, host-key files."""

from __future__ import annotations

import base64
import hashlib
import hmac
from pathlib import Path
from typing import Any

import keyring.errors
import pytest

from bench_gui.remote import secrets
from bench_gui.remote.connection import Redactor
from bench_gui.remote.errors import (
    ChangedHostKey,
    RevokedHostKey,
    SecretStoreError,
    TargetError,
    UnknownHostKey,
)
from bench_gui.remote.hostkeys import HostKeyChecker, fingerprint_sha256, parse_known_hosts
from bench_gui.remote.targets import (
    TARGETS_FILE,
    SSHTarget,
    add_target,
    get_target,
    load_targets,
    remove_target,
    resolve,
    target_from_dict,
)
from bench_gui.store.paths import data_dir


def targets_path() -> Path:
    return data_dir() / TARGETS_FILE


def test_targets_round_trip_without_secrets(isolated: Any) -> None:
    add_target(
        SSHTarget(
            name="db1",
            host="10.0.0.5",
            port=2222,
            user="bench",
            auth="key",
            key_path="~/.ssh/id_bench",
            sudo="passwordless",
        ),
        targets_path(),
    )
    add_target(SSHTarget(name="lab", host="lab-alias"), targets_path())
    secrets.set_secret("db1", "passphrase", "hunter2-passphrase")
    text = targets_path().read_text()
    assert "hunter2" not in text
    assert "[targets.db1]" in text
    assert targets_path().stat().st_mode & 0o077 == 0
    loaded = load_targets(targets_path())
    assert loaded["db1"] == SSHTarget(
        name="db1",
        host="10.0.0.5",
        port=2222,
        user="bench",
        auth="key",
        key_path="~/.ssh/id_bench",
        sudo="passwordless",
    )
    assert loaded["lab"].port is None
    assert loaded["lab"].auth == "agent"
    with pytest.raises(TargetError, match="exists already"):
        add_target(SSHTarget(name="lab", host="x"), targets_path())
    assert remove_target("db1", targets_path()).host == "10.0.0.5"
    assert secrets.forget_target("db1") == ["passphrase"]
    with pytest.raises(TargetError, match=r"no target named 'db1' \(known: lab\)"):
        get_target("db1", targets_path())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"host": "h", "password": "x"}, "password is a secret and never goes into targets.toml"),
        ({"host": "h", "port": 70000}, "port must be a number from 1 to 65535"),
        ({"host": "h", "auth": "kerberos"}, "auth must be one of agent, key, password"),
        ({"host": "h", "sudo": "always"}, "sudo must be one of none, passwordless, password"),
        ({"host": "two words"}, "host must be a host name"),
        ({"host": "h", "colour": "red"}, "colour is not a target field"),
        ({"host": "h", "user": "a@b"}, "user must be a user name without spaces"),
    ],
)
def test_bad_fields_are_named(data: dict[str, Any], message: str) -> None:
    with pytest.raises(TargetError, match=message):
        target_from_dict("t", data)


def test_bad_name_and_bad_file(isolated: Any) -> None:
    with pytest.raises(TargetError, match="target name 'a b'"):
        target_from_dict("a b", {"host": "h"})
    targets_path().parent.mkdir(parents=True, exist_ok=True)
    targets_path().write_text("[targets.x\n")
    with pytest.raises(TargetError, match="is not valid TOML"):
        load_targets(targets_path())


def test_ssh_config_alias_is_resolved(isolated: Any) -> None:
    config = Path.home() / ".ssh" / "config"
    config.write_text(
        "Host bench-*\n  User perf\n  IdentityFile ~/.ssh/id_perf\n\n"
        "Host bench-db\n  HostName 192.0.2.10\n  Port 2200\n  ProxyJump gw.example:2201,ops@gw2\n"
    )
    target = SSHTarget(name="db", host="bench-db")
    resolved = resolve(target)
    assert (resolved.hostname, resolved.port, resolved.user) == ("192.0.2.10", 2200, "perf")
    assert resolved.hop.key_paths == (str(Path.home() / ".ssh" / "id_perf"),)
    assert [(j.hostname, j.port) for j in resolved.jumps] == [("gw.example", 2201), ("gw2", 22)]
    assert resolved.jumps[1].user == "ops"
    # A value set on the target wins over the file.
    mine = resolve(SSHTarget(name="db", host="bench-db", port=22, user="root"))
    assert (mine.port, mine.user) == (22, "root")


def test_secrets_keyring_errors_are_clear(isolated: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: Any) -> None:
        raise keyring.errors.NoKeyringError("no backend")

    monkeypatch.setattr(keyring, "get_password", broken)
    with pytest.raises(SecretStoreError, match="no OS keyring is available"):
        secrets.get_secret("x", "password")
    assert "hunter" not in repr(secrets.TargetSecrets(password="hunter2"))


def test_redactor_hides_secrets_and_password_fields() -> None:
    redact = Redactor(["hunter2"])
    text = redact("echo hunter2; PGPASSWORD=abc psql 'host=x password=p4ss' postgres://u:pw@h/db")
    assert "hunter2" not in text
    assert "abc" not in text
    assert "p4ss" not in text
    assert "pw@" not in text
    assert text.count("***") == 4


KEY_A = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + b"A" * 32).decode()
KEY_B = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + b"B" * 32).decode()


def _hashed(name: str) -> str:
    salt = b"0123456789abcdefghij"
    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def test_known_hosts_matching(tmp_path: Path) -> None:
    user = tmp_path / "known_hosts"
    user.write_text(
        "# comment\n"
        f"{_hashed('[db]:2222')} ssh-ed25519 {KEY_A}\n"
        f"*.lab,!bad.lab ssh-ed25519 {KEY_A}\n"
        f"@revoked * ssh-ed25519 {KEY_B}\n"
        "garbage line\n"
    )
    checker = HostKeyChecker(user_file=user, app_file=tmp_path / "app_known_hosts")
    blob_a, blob_b = base64.b64decode(KEY_A), base64.b64decode(KEY_B)
    checker.check("[db]:2222", "ssh-ed25519", blob_a)
    checker.check("x.lab", "ssh-ed25519", blob_a)
    assert checker.preferred_algorithms("x.lab") == ["ssh-ed25519"]
    with pytest.raises(UnknownHostKey):
        checker.check("bad.lab", "ssh-ed25519", blob_a)
    with pytest.raises(UnknownHostKey):
        checker.check("db", "ssh-ed25519", blob_a)  # port 22 is another name than [db]:2222
    with pytest.raises(RevokedHostKey, match="@revoked"):
        checker.check("x.lab", "ssh-ed25519", blob_b)
    other = blob_a[:-1] + b"C"
    with pytest.raises(ChangedHostKey, match="line 2"):
        checker.check("[db]:2222", "ssh-ed25519", other)
    assert len(parse_known_hosts(user)) == 3
    fp = fingerprint_sha256(blob_a)
    HostKeyChecker(user_file=user, app_file=tmp_path / "app", accept_fingerprint=fp).check(
        "new", "ssh-ed25519", blob_a
    )
    assert (tmp_path / "app").read_text().startswith(f"new ssh-ed25519 {KEY_A}")
    assert HostKeyChecker(user_file=user, app_file=tmp_path / "app").forget("new") == 1
