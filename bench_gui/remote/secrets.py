"""Target secrets in the OS keyring: login password, key passphrase, sudo password, and the
password of a database server (:func:`database_password`).

Nothing secret is written by the app itself: ``keyring`` hands each value to the platform's
store (Secret Service, macOS Keychain, Windows Credential Locker). Entries are under the
service ``bench-gui`` with the user name ``<target>:<kind>``. Tests and headless CI install a
backend of their own with :func:`keyring.set_keyring`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import keyring
import keyring.errors

from bench_gui.core.plan_checks import password_env_problem
from bench_gui.core.plan_model import Target
from bench_gui.remote.errors import SecretStoreError

SERVICE: Final = "bench-gui"
SECRET_KINDS: Final = ("password", "passphrase", "sudo_password")


def _entry(target: str, kind: str) -> str:
    if kind not in SECRET_KINDS:
        raise ValueError(f"secret kind must be one of {', '.join(SECRET_KINDS)}, got {kind!r}")
    return f"{target}:{kind}"


def _keyring_error(action: str, exc: Exception) -> SecretStoreError:
    if isinstance(exc, keyring.errors.NoKeyringError):
        return SecretStoreError(
            f"cannot {action}: no OS keyring is available ({exc}). Install and unlock one"
            " (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Locker), or use"
            " ssh-agent for keys."
        )
    return SecretStoreError(f"cannot {action} in the OS keyring: {exc}")


def set_secret(target: str, kind: str, value: str) -> None:
    """Store (or replace) one secret of a target."""
    try:
        keyring.set_password(SERVICE, _entry(target, kind), value)
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"save the {kind} of target {target!r}", exc) from exc


def get_secret(target: str, kind: str) -> str | None:
    """One secret of a target, or None when none is stored."""
    try:
        return keyring.get_password(SERVICE, _entry(target, kind))
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"read the {kind} of target {target!r}", exc) from exc


def delete_secret(target: str, kind: str) -> bool:
    """Forget one secret; False if there was none."""
    try:
        keyring.delete_password(SERVICE, _entry(target, kind))
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"delete the {kind} of target {target!r}", exc) from exc
    return True


def forget_target(target: str) -> list[str]:
    """Forget every secret of a target (when it is removed); returns the kinds deleted."""
    return [kind for kind in SECRET_KINDS if delete_secret(target, kind)]


@dataclass(frozen=True)
class TargetSecrets:
    """The secrets one connection may need, looked up once. ``repr`` never shows them."""

    password: str | None = None
    passphrase: str | None = None
    sudo_password: str | None = None

    def __repr__(self) -> str:
        shown = [k for k in SECRET_KINDS if getattr(self, k)]
        return f"TargetSecrets(set={shown})"

    def values(self) -> list[str]:
        """Every non-empty secret (for redaction of logs)."""
        return [v for v in (self.password, self.passphrase, self.sudo_password) if v]

    @classmethod
    def from_keyring(cls, target: str) -> TargetSecrets:
        return cls(
            password=get_secret(target, "password"),
            passphrase=get_secret(target, "passphrase"),
            sudo_password=get_secret(target, "sudo_password"),
        )


# ---- database passwords -------------------------------------------------------------------------


def db_server_name(target: Target) -> str:
    """The name a database server's password is kept under: ``postgresql:user@host:port``
    (an SSH target's name has neither ``@`` nor ``:``, so the two never collide)."""
    return f"{target.kind}:{target.user}@{target.host}:{target.port}"


def set_db_password(target: Target, value: str) -> None:
    """Store (or replace) the password of the plan target's database user."""
    server = db_server_name(target)
    try:
        keyring.set_password(SERVICE, server, value)
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"save the database password of {server}", exc) from exc


def get_db_password(target: Target) -> str | None:
    """The stored password of the plan target's database user, or None."""
    server = db_server_name(target)
    try:
        return keyring.get_password(SERVICE, server)
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"read the database password of {server}", exc) from exc


def delete_db_password(target: Target) -> bool:
    """Forget the stored database password; False if there was none."""
    server = db_server_name(target)
    try:
        keyring.delete_password(SERVICE, server)
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise _keyring_error(f"delete the database password of {server}", exc) from exc
    return True


@dataclass(frozen=True)
class DbPassword:
    """A database password and where it came from (said to the user); ``repr`` hides it."""

    value: str | None
    source: str  # "the OS keyring (postgresql:postgres@db1:5432)", "environment variable X"

    def __repr__(self) -> str:
        return f"DbPassword(set={self.value is not None}, source={self.source!r})"


def database_password(target: Target, environ: Mapping[str, str] | None = None) -> DbPassword:
    """The password to send with a plan's database connection, looked up once.

    The variable the plan names (``password_env``: PGPASSWORD or BENCH_GUI_*, nothing else of
    the desktop's environment) when it is set, else the OS keyring's entry for the server.
    Raise :class:`SecretStoreError` when the plan names a variable that is not allowed, or one
    that is not set while the keyring has nothing either.
    """
    if target.kind == "demo":
        return DbPassword(None, "none (the embedded demo needs none)")
    env = os.environ if environ is None else environ
    name = target.password_env
    problem = password_env_problem(name)
    if problem:
        raise SecretStoreError(f"target.password_env: {problem}")
    if name and env.get(name) is not None:
        return DbPassword(env[name], f"environment variable {name}")
    server = db_server_name(target)
    try:
        stored = get_db_password(target)
    except SecretStoreError as exc:
        if name:
            raise SecretStoreError(
                f"target.password_env names {name}, which is not set, and {exc}"
            ) from exc
        return DbPassword(None, f"none (no password in the environment, and {exc})")
    if stored is not None:
        return DbPassword(stored, f"the OS keyring ({server})")
    if name:
        raise SecretStoreError(
            f"target.password_env names {name}, which is not set, and the OS keyring holds no"
            f" password for {server} (save one with: bench-gui target db-password PLAN)"
        )
    return DbPassword(None, f"none (the OS keyring holds no password for {server})")
