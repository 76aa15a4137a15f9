"""Host-key verification: ``~/.ssh/known_hosts`` plus the app's own known-hosts file.

Never trust on first use silently. A key that no file knows raises :class:`UnknownHostKey` with
its SHA256 fingerprint, in OpenSSH's form, so the user can compare it with the server's; only
when the caller passes that very fingerprint back (``accept_fingerprint``) is the key recorded,
in the app's file (``~/.ssh/known_hosts`` is only read). A key other than the recorded one
raises :class:`ChangedHostKey`, which names the file and line that disagree.

The files are parsed here rather than with :class:`paramiko.HostKeys` so that an error can name
the line, and so that hashed names, ``[host]:port`` entries, wildcards, negations and
``@revoked`` markers are all honoured.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import paramiko

from bench_gui.remote.errors import ChangedHostKey, RevokedHostKey, UnknownHostKey

APP_KNOWN_HOSTS: Final = "known_hosts"
# Key type names as OpenSSH writes them -> the algorithms a client asks for, best first.
_ALGORITHMS: Final = {"ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")}
_LABELS: Final = {
    "ssh-ed25519": "ED25519",
    "ssh-rsa": "RSA",
    "ecdsa-sha2-nistp256": "ECDSA",
    "ecdsa-sha2-nistp384": "ECDSA",
    "ecdsa-sha2-nistp521": "ECDSA",
}


def fingerprint_sha256(key_blob: bytes) -> str:
    """OpenSSH's fingerprint of a public key blob: ``SHA256:`` + unpadded base64."""
    digest = hashlib.sha256(key_blob).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def key_label(key_type: str) -> str:
    return _LABELS.get(key_type, key_type)


def host_id(hostname: str, port: int) -> str:
    """The name a known-hosts file uses: ``host`` on port 22, ``[host]:port`` otherwise."""
    return hostname if port == 22 else f"[{hostname}]:{port}"


@dataclass(frozen=True)
class KnownHost:
    """One line of a known-hosts file."""

    path: Path
    line: int
    patterns: tuple[str, ...]
    key_type: str
    key_blob: bytes
    marker: str = ""  # "", "@revoked" or "@cert-authority"

    @property
    def fingerprint(self) -> str:
        return fingerprint_sha256(self.key_blob)

    def matches(self, name: str) -> bool:
        """True if this line applies to ``name`` (a :func:`host_id`)."""
        positive = False
        for pattern in self.patterns:
            if pattern.startswith("|1|"):
                if _hashed_match(pattern, name):
                    positive = True
                continue
            negate = pattern.startswith("!")
            pat = pattern[1:] if negate else pattern
            if _wildcard_match(pat, name):
                if negate:
                    return False
                positive = True
        return positive


def _wildcard_match(pattern: str, name: str) -> bool:
    """OpenSSH's patterns: ``*`` and ``?`` only; brackets are literal (``[host]:port``)."""
    regex = "".join(
        ".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern.lower()
    )
    return re.fullmatch(regex, name.lower()) is not None


def _hashed_match(pattern: str, name: str) -> bool:
    try:
        _, _, salt_b64, hash_b64 = pattern.split("|", 3)
        salt = base64.b64decode(salt_b64)
        expected = base64.b64decode(hash_b64)
    except (ValueError, binascii.Error):
        return False
    digest = hmac.new(salt, name.encode("utf-8"), hashlib.sha1).digest()
    return hmac.compare_digest(digest, expected)


def parse_known_hosts(path: Path) -> list[KnownHost]:
    """Every usable line of a known-hosts file; a missing file is empty, bad lines are skipped."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:
        return []
    entries: list[KnownHost] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        marker = ""
        if fields[0].startswith("@"):
            marker = fields.pop(0)
        if len(fields) < 3:
            continue
        try:
            blob = base64.b64decode(fields[2], validate=True)
        except (ValueError, binascii.Error):
            continue
        entries.append(
            KnownHost(
                path=path,
                line=number,
                patterns=tuple(fields[0].split(",")),
                key_type=fields[1],
                key_blob=blob,
                marker=marker,
            )
        )
    return entries


def user_known_hosts_path() -> Path:
    return Path.home() / ".ssh" / "known_hosts"


class HostKeyChecker:
    """Checks host keys against the user's and the app's known-hosts files.

    ``app_file`` is the app's own file (``<data dir>/known_hosts``, :data:`APP_KNOWN_HOSTS`;
    the caller names it: this layer does not know the data directory). Without it, only
    ``~/.ssh/known_hosts`` is read and no key can be accepted.
    ``accept_fingerprint``: a fingerprint the user confirmed for the host being connected to;
    an unknown key with exactly that fingerprint is recorded in the app's file.
    """

    def __init__(
        self,
        user_file: Path | None = None,
        app_file: Path | None = None,
        accept_fingerprint: str | None = None,
    ) -> None:
        self.user_file = user_file if user_file is not None else user_known_hosts_path()
        self.app_file = app_file
        self.accept_fingerprint = accept_fingerprint.strip() if accept_fingerprint else None
        self.accepted: list[str] = []  # host ids recorded by this checker

    def entries(self) -> list[KnownHost]:
        app = parse_known_hosts(self.app_file) if self.app_file is not None else []
        return parse_known_hosts(self.user_file) + app

    def known_for(self, name: str) -> list[KnownHost]:
        return [e for e in self.entries() if e.marker != "@cert-authority" and e.matches(name)]

    def preferred_algorithms(self, name: str) -> list[str]:
        """Host-key algorithms to ask for first: those of the keys already known for ``name``.

        Without this a server with several keys could offer one we do not know yet while we
        know another of its keys, and the user would be asked about a key for nothing.
        """
        out: list[str] = []
        for entry in self.known_for(name):
            if entry.marker:
                continue
            for alg in _ALGORITHMS.get(entry.key_type, (entry.key_type,)):
                if alg not in out:
                    out.append(alg)
        return out

    def check(self, name: str, key_type: str, key_blob: bytes) -> None:
        """Return if the key is trusted for ``name``; raise a :class:`HostKeyError` otherwise."""
        fingerprint = fingerprint_sha256(key_blob)
        known = self.known_for(name)
        for entry in known:
            if entry.marker == "@revoked" and entry.key_blob == key_blob:
                raise RevokedHostKey(
                    f"the host key of {name} ({key_label(key_type)} {fingerprint}) is marked"
                    f" @revoked in {entry.path} line {entry.line}: refused"
                )
        plain = [e for e in known if not e.marker]
        if any(e.key_type == key_type and e.key_blob == key_blob for e in plain):
            return
        if plain:
            # Same type first: that is the line the user has to look at.
            same = [e for e in plain if e.key_type == key_type]
            entry = (same or plain)[0]
            raise ChangedHostKey(
                name,
                key_label(key_type),
                fingerprint,
                str(entry.path),
                entry.line,
                key_label(entry.key_type),
                entry.fingerprint,
            )
        if self.accept_fingerprint and hmac.compare_digest(self.accept_fingerprint, fingerprint):
            self.record(name, key_type, key_blob)
            return
        raise UnknownHostKey(name, key_label(key_type), fingerprint)

    def record(self, name: str, key_type: str, key_blob: bytes) -> None:
        """Append a trusted key to the app's known-hosts file (created 0600)."""
        if self.app_file is None:
            raise ValueError("accepting a host key needs the app's known-hosts file (app_file)")
        self.app_file.parent.mkdir(parents=True, exist_ok=True)
        line = f"{name} {key_type} {base64.b64encode(key_blob).decode('ascii')}\n"
        fd = os.open(self.app_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(line)
        self.accepted.append(name)

    def forget(self, name: str) -> int:
        """Remove every line for ``name`` from the app's file; returns how many went."""
        if self.app_file is None:
            return 0
        entries = [e for e in parse_known_hosts(self.app_file) if e.matches(name)]
        if not entries:
            return 0
        drop = {e.line for e in entries}
        lines = self.app_file.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [text for number, text in enumerate(lines, start=1) if number not in drop]
        self.app_file.write_text("".join(kept), encoding="utf-8")
        return len(drop)


class RaisingPolicy(paramiko.MissingHostKeyPolicy):  # type: ignore[misc]
    """paramiko's hook for keys it does not know, which here is every key: check or raise.

    The client is given no host keys of its own, so paramiko asks this policy about every
    server; the policy asks the :class:`HostKeyChecker` and never adds anything by itself.
    """

    def __init__(self, checker: HostKeyChecker) -> None:
        self.checker = checker

    def missing_host_key(self, client: Any, hostname: str, key: paramiko.PKey) -> None:
        self.checker.check(hostname, key.get_name(), key.asbytes())
