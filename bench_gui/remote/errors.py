"""Errors of the SSH side, one class per thing a user can act on.

Every message is written for the person in front of the app: it names the host, the user and
what to do next. The GUI shows ``str(exc)``; the CLI prints it. Host-key errors carry the data a
dialog needs (host, key type, fingerprint) as attributes as well.
"""

from __future__ import annotations

import re


class SSHError(Exception):
    """Anything that went wrong reaching or using a target over SSH."""


class TargetError(SSHError):
    """A target definition that cannot be used (bad field, unknown name)."""


class SecretStoreError(SSHError):
    """The OS keyring cannot be read or written."""


class ConnectError(SSHError):
    """The TCP connection or the SSH handshake failed."""


class ConnectionRefused(ConnectError):
    """Nothing listens on the port."""


class NoAnswer(ConnectError):
    """The host did not answer (or did not speak SSH) within the timeout."""


class HostNotFound(ConnectError):
    """The host name does not resolve."""


class AuthFailed(SSHError):
    """The server refused the credentials."""


class KeyPassphraseNeeded(AuthFailed):
    """The private key file is encrypted and no passphrase is known for it."""


class HostKeyError(SSHError):
    """The server's host key is not (or no longer) the trusted one."""


class UnknownHostKey(HostKeyError):
    """The host key has never been seen: the user must compare and accept the fingerprint."""

    def __init__(self, host: str, key_type: str, fingerprint_sha256: str) -> None:
        self.host = host
        self.key_type = key_type
        self.fingerprint_sha256 = fingerprint_sha256
        super().__init__(
            f"the host key of {host} is not known yet: {key_type} key {fingerprint_sha256}."
            " Compare this fingerprint with the one on the server"
            " (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) and accept it only if they match."
        )


class ChangedHostKey(HostKeyError):
    """The host presents a key other than the one recorded for it: refused."""

    def __init__(
        self,
        host: str,
        key_type: str,
        fingerprint_sha256: str,
        known_file: str,
        known_line: int,
        known_type: str,
        known_fingerprint: str,
    ) -> None:
        self.host = host
        self.key_type = key_type
        self.fingerprint_sha256 = fingerprint_sha256
        self.known_file = known_file
        self.known_line = known_line
        self.known_type = known_type
        self.known_fingerprint = known_fingerprint
        super().__init__(
            f"the host key of {host} has CHANGED: it now presents {key_type} key"
            f" {fingerprint_sha256}, but {known_file} line {known_line} records {known_type} key"
            f" {known_fingerprint}. Someone may be intercepting the connection"
            " (a man-in-the-middle attack), or the server was reinstalled. The connection was"
            f" refused. If the change is expected, remove line {known_line} from {known_file}"
            " and connect again to review the new key."
        )


class RevokedHostKey(HostKeyError):
    """The host key is marked @revoked in a known-hosts file."""


class CommandTimeout(SSHError):
    """A remote command did not finish in time."""


class NoSudo(SSHError):
    """A command needs sudo and the target has none (or it is refused)."""


class DeployError(SSHError):
    """The agent cannot be deployed on (or started on) the driver host."""


class RemotePythonUnsupported(DeployError):
    """The driver host's Python is missing or too old for the agent."""


# sudo's warning on a host whose own name is not in its /etc/hosts: printed before the real
# reason ("... is not in the sudoers file"), which the first line alone would hide.
_NOISE = re.compile(r"^sudo: unable to resolve host ")


def first_error_line(stderr: str, stdout: str, exit_status: int) -> str:
    """The line that says why a command failed: the first of stderr then stdout, past sudo's
    "unable to resolve host" warning (said only when nothing else is)."""
    lines = [line.strip() for line in (stderr + "\n" + stdout).splitlines() if line.strip()]
    telling = [line for line in lines if not _NOISE.match(line)]
    if telling:
        return telling[0]
    return lines[0] if lines else f"exit status {exit_status}"
