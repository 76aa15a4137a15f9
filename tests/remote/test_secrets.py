"""Database passwords: the OS keyring per server and user; from the environment only the
variables a plan may name (PGPASSWORD, BENCH_GUI_*), and always said where it came from."""

from __future__ import annotations

import keyring
import keyring.backends.fail
import pytest

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import PlanError, Target
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.secrets import (
    database_password,
    db_server_name,
    delete_db_password,
    get_db_password,
    get_secret,
    set_db_password,
    set_secret,
)
from tests._fixtures.isolation import MemoryKeyring

DB1 = Target(kind="postgresql", host="db1.example.net", port=5433, user="bench")


def test_the_keyring_holds_one_password_per_server_and_user(
    isolated_keyring: MemoryKeyring,
) -> None:
    set_db_password(DB1, "s3cret")
    assert db_server_name(DB1) == "postgresql:bench@db1.example.net:5433"
    assert isolated_keyring.entries == {
        ("bench-gui", "postgresql:bench@db1.example.net:5433"): "s3cret"
    }
    found = database_password(DB1, environ={})
    assert found.value == "s3cret"
    assert found.source == "the OS keyring (postgresql:bench@db1.example.net:5433)"
    assert "s3cret" not in repr(found)
    # Another port or user is another entry; an SSH target's secrets are apart.
    other = Target(kind="postgresql", host="db1.example.net", port=5432, user="bench")
    assert database_password(other, environ={}).value is None
    set_secret("db1", "password", "ssh-pass")
    assert get_db_password(DB1) == "s3cret"
    assert get_secret("db1", "password") == "ssh-pass"
    assert delete_db_password(DB1)
    assert not delete_db_password(DB1)
    assert database_password(DB1, environ={}).source == (
        "none (the OS keyring holds no password for postgresql:bench@db1.example.net:5433)"
    )


def test_an_allowed_variable_the_plan_names_comes_first() -> None:
    set_db_password(DB1, "from-keyring")
    for name in ("PGPASSWORD", "BENCH_GUI_DB1"):
        target = Target(**{**DB1.__dict__, "password_env": name})
        found = database_password(target, environ={name: "from-env", "HOME": "/root"})
        assert (found.value, found.source) == ("from-env", f"environment variable {name}")
        # Not set: the keyring's.
        assert database_password(target, environ={}).value == "from-keyring"
    # Without password_env, even PGPASSWORD of the desktop is not sent.
    assert database_password(DB1, environ={"PGPASSWORD": "x"}).value == "from-keyring"


@pytest.mark.parametrize("name", ["AWS_SECRET_ACCESS_KEY", "HOME", "SSH_AUTH_SOCK", "pgpassword"])
def test_a_plan_cannot_name_any_other_variable(name: str) -> None:
    with pytest.raises(PlanError) as caught:
        plan_from_dict({"target": {"kind": "postgresql", "password_env": name}})
    assert caught.value.problems[0][0] == "target.password_env"
    assert "only PGPASSWORD or a BENCH_GUI_* variable" in caught.value.problems[0][1]
    # A Target built without the plan's checks is refused where the password is read.
    target = Target(**{**DB1.__dict__, "password_env": name})
    with pytest.raises(SecretStoreError, match="is not allowed"):
        database_password(target, environ={name: "stolen"})


def test_a_named_variable_that_is_not_set_says_what_to_do() -> None:
    target = Target(**{**DB1.__dict__, "password_env": "BENCH_GUI_DB1"})
    with pytest.raises(SecretStoreError) as caught:
        database_password(target, environ={})
    assert "BENCH_GUI_DB1, which is not set" in str(caught.value)
    assert "bench-gui target db-password" in str(caught.value)


def test_without_a_keyring_a_run_that_needs_no_password_still_goes() -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        found = database_password(DB1, environ={})
        assert found.value is None
        assert found.source.startswith("none (no password in the environment, and cannot read")
        target = Target(**{**DB1.__dict__, "password_env": "PGPASSWORD"})
        with pytest.raises(SecretStoreError, match="PGPASSWORD, which is not set"):
            database_password(target, environ={})
    finally:
        keyring.set_keyring(previous)


def test_the_demo_needs_no_password() -> None:
    found = database_password(Target(), environ={"PGPASSWORD": "x"})
    assert found.value is None
