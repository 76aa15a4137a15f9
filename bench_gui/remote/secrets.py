"""Target secrets in the OS keyring: login password, key passphrase, sudo password.

Nothing secret is written by the app itself: ``keyring`` hands each value to the platform's
store (Secret Service, macOS Keychain, Windows Credential Locker). Entries are under the
service ``bench-gui`` with the user name ``<target>:<kind>``. Tests and headless CI install a
backend of their own with :func:`keyring.set_keyring`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import keyring
import keyring.errors

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
