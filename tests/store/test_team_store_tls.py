"""The team store over verified TLS, against a private PostgreSQL with ``ssl = on`` and a
certificate signed by a CA the test made (``pg_tls``): the right CA and host name work (the
password from the keyring, the connection really encrypted); a wrong CA or a certificate for
another host name are refused, the message naming the store and the cause."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from bench_gui.store import SessionStore, StoreError
from bench_gui.store.team_store import TeamStoreConfig, set_store_password
from bench_gui.store.team_sync import pull, push
from tests._fixtures.pg_tcp import TLS_PASSWORD, PgTls
from tests._fixtures.seed_sessions import build_seed000


@pytest.fixture
def tls_database(pg_tls: PgTls) -> Iterator[str]:
    """A fresh database on the TLS server for this test, dropped after it."""
    name = f"team_tls_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_tls.admin(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield name
    finally:
        with psycopg.connect(pg_tls.admin(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def tls_config(pg_tls: PgTls, database: str, host: str, ca: Path) -> TeamStoreConfig:
    config = TeamStoreConfig(
        f"postgresql://postgres@{host}:{pg_tls.port}/{database}",
        sslmode="verify-full",
        sslrootcert=str(ca),
    )
    set_store_password(config, TLS_PASSWORD)  # the in-memory keyring of the test
    return config


def test_verified_tls_push_and_pull(
    pg_tls: PgTls, tls_database: str, tmp_path: Path, data_dir: Path
) -> None:
    config = tls_config(pg_tls, tls_database, "localhost", pg_tls.ca_cert)
    with SessionStore(tmp_path / "a.sqlite3") as local, SessionStore(team=config) as team:
        hdd, ssd = build_seed000(local)
        local.add_tags(ssd, ["tls"])
        pushed = push(local, team)
        assert sorted(pushed.copied) == [hdd, ssd]
        with team._snapshot() as conn:
            row = conn.execute(
                "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
            ).fetchone()
        assert row[0] is True
        assert str(row[1]).startswith("TLS")
        with SessionStore(tmp_path / "b.sqlite3") as other:
            pulled = pull(team, other, tag="tls")
            assert list(pulled.copied) == [pushed.copied[ssd]]
            assert other.steps(pulled.copied[pushed.copied[ssd]]) == local.steps(ssd)


def test_a_certificate_of_another_ca_is_refused(
    pg_tls: PgTls, tls_database: str, data_dir: Path
) -> None:
    config = tls_config(pg_tls, tls_database, "localhost", pg_tls.other_ca)
    with pytest.raises(StoreError) as caught:
        SessionStore(team=config)
    message = str(caught.value)
    assert config.display in message
    assert "certificate is not signed by the CA" in caught.value.reason
    assert str(pg_tls.other_ca) in caught.value.reason
    assert "certificate verify failed" in caught.value.reason  # libpq's own words follow


def test_a_certificate_for_another_host_name_is_refused(
    pg_tls: PgTls, tls_database: str, data_dir: Path
) -> None:
    config = tls_config(pg_tls, tls_database, "127.0.0.1", pg_tls.ca_cert)
    with pytest.raises(StoreError) as caught:
        SessionStore(team=config)
    assert config.display in str(caught.value)
    assert "certificate is not for the host name 127.0.0.1" in caught.value.reason
    assert 'certificate for "localhost"' in caught.value.reason  # libpq's own words follow
    assert 'does not match host name "127.0.0.1"' in caught.value.reason


def test_without_tls_the_server_refuses(pg_tls: PgTls, tls_database: str, data_dir: Path) -> None:
    """The server takes logins over TLS only: the positive test above really used it."""
    config = TeamStoreConfig(
        f"postgresql://postgres@localhost:{pg_tls.port}/{tls_database}", sslmode="disable"
    )
    set_store_password(config, TLS_PASSWORD)
    with pytest.raises(StoreError, match="no encryption"):
        SessionStore(team=config)
