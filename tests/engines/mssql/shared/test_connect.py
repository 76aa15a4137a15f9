"""Connection strings for SQL Server: what they hold, and that the password is never in them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench_gui.engines.mssql.shared.connect import (
    PASSWORD_ENV,
    ConnectionSpecError,
    MssqlTarget,
    build_connection_string,
    connect,
    redact,
    with_password,
)
from bench_gui.wire.engine_errors import EngineError

SECRET = "s3cr;et}pw"


def _fields(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(";"):
        key, _, value = part.partition("=")
        out[key.upper()] = value
    return out


def test_driver_18_sql_login() -> None:
    text = build_connection_string(
        MssqlTarget(server="db1", database="tpcc", user="bench", trust_server_certificate=True)
    )
    fields = _fields(text)
    assert fields["DRIVER"] == "{ODBC Driver 18 for SQL Server}"
    assert fields["SERVER"] == "tcp:db1,1433"
    assert fields["ENCRYPT"] == "yes"
    assert fields["TRUSTSERVERCERTIFICATE"] == "yes"
    assert fields["UID"] == "bench"
    assert fields["DATABASE"] == "tpcc"
    assert "PWD" not in fields
    assert "pwd" not in text.lower()


def test_encrypt_and_trust_are_always_written() -> None:
    text = build_connection_string(MssqlTarget(server="db1", user="sa", encrypt="no"))
    fields = _fields(text)
    assert fields["ENCRYPT"] == "no"
    assert fields["TRUSTSERVERCERTIFICATE"] == "no"
    strict = _fields(build_connection_string(MssqlTarget(server="h", user="u", encrypt="strict")))
    assert strict["ENCRYPT"] == "strict"


def test_integrated_authentication_has_no_user() -> None:
    text = build_connection_string(MssqlTarget(server="db1", authentication="integrated"))
    fields = _fields(text)
    assert fields["TRUSTED_CONNECTION"] == "yes"
    assert "UID" not in fields
    with pytest.raises(ConnectionSpecError, match="user must be empty"):
        build_connection_string(
            MssqlTarget(server="db1", authentication="integrated", user="bench")
        )


def test_dsn_replaces_driver_and_server() -> None:
    fields = _fields(build_connection_string(MssqlTarget(dsn="lab", user="bench")))
    assert fields["DSN"] == "lab"
    assert "DRIVER" not in fields
    assert "SERVER" not in fields


def test_freetds() -> None:
    target = MssqlTarget(
        server="db1", port=14330, user="bench", driver="FreeTDS", trust_server_certificate=True
    )
    fields = _fields(build_connection_string(target))
    assert fields["DRIVER"] == "{FreeTDS}"
    assert fields["SERVER"] == "db1"
    assert fields["PORT"] == "14330"
    assert fields["TDS_VERSION"] == "7.4"
    assert fields["ENCRYPTION"] == "require"
    with pytest.raises(ConnectionSpecError, match="FreeTDS cannot be told to validate"):
        build_connection_string(MssqlTarget(server="db1", user="bench", driver="FreeTDS"))


@pytest.mark.parametrize(
    ("target", "field"),
    [
        (MssqlTarget(server="", user="u"), "server is empty"),
        (MssqlTarget(server="h", user=""), "user is empty"),
        (MssqlTarget(server="h", user="u", encrypt="maybe"), "encrypt 'maybe'"),
        (MssqlTarget(server="h", user="u", authentication="kerberos"), "authentication"),
        (MssqlTarget(server="h", user="u", port=0), "port 0"),
        (MssqlTarget(server="h", user="u", database="x;PWD=oops"), "PWD="),
    ],
)
def test_bad_settings_name_the_field(target: MssqlTarget, field: str) -> None:
    with pytest.raises(ConnectionSpecError, match=field.replace("(", r"\(")):
        build_connection_string(target)


def test_special_characters_are_braced() -> None:
    text = build_connection_string(MssqlTarget(server="h", user="u", database="my db;x"))
    assert "DATABASE={my db;x}" in text


def test_password_goes_only_into_the_drivers_string_and_redacts() -> None:
    base = build_connection_string(MssqlTarget(server="h", user="u"))
    full = with_password(base, SECRET)
    assert full.endswith("PWD={s3cr;et}}pw}")
    assert SECRET not in redact(full)
    assert redact(full).endswith("PWD=***")
    assert redact("DRIVER={x};pwd = plain;UID=u") == "DRIVER={x};pwd = ***;UID=u"
    with pytest.raises(ConnectionSpecError, match=PASSWORD_ENV):
        with_password(full, "again")


def test_failed_connect_never_shows_the_password() -> None:
    """Through the real pyodbc and unixODBC: a driver that does not exist fails at once."""
    base = "DRIVER={No Such Driver For Tests};SERVER=tcp:127.0.0.1,1;UID=u"
    # The driver manager's refusal is said as such (issue 26), with the drivers installed.
    with pytest.raises(EngineError, match="'No Such Driver For Tests' is not installed") as info:
        connect(base, env={PASSWORD_ENV: SECRET})
    assert "nothing reached the server" in str(info.value)
    assert "ODBC drivers on this host: " in str(info.value)
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value.__cause__)


def test_package_imports_without_pyodbc() -> None:
    code = (
        "import sys; sys.modules['pyodbc'] = None\n"
        "import bench_gui.engines.mssql.agent.loader, bench_gui.engines.mssql.agent.transactions\n"
        "import bench_gui.engines.mssql.agent.counters, bench_gui.engines.mssql.agent.checks\n"
        "import bench_gui.engines.mssql.shared.settings\n"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
