"""SSH targets: the hosts the app reaches over SSH, stored in ``targets.toml``.

The file lives in the app's data directory (``data_dir() / TARGETS_FILE``); the caller names
it, since this layer does not import the store that decides where the data directory is.

A target names a host (or an alias of ``~/.ssh/config``), how to log in and how to get root.
The file holds no secret: passwords, key passphrases and sudo passwords live in the OS keyring
(:mod:`bench_gui.remote.secrets`), so ``targets.toml`` can be shared or backed up freely.

Aliases are resolved the way OpenSSH resolves them (HostName, Port, User, IdentityFile,
ProxyJump), through :class:`paramiko.SSHConfig`; a value set on the target wins over the file.
"""

from __future__ import annotations

import getpass
import os
import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import paramiko
import tomli_w

from bench_gui.remote.errors import TargetError

TARGETS_FILE: Final = "targets.toml"
AUTH_METHODS: Final = ("agent", "key", "password")
# none: never use sudo; passwordless: ``sudo -n``; password: ``sudo -S`` with the keyring's.
SUDO_MODES: Final = ("none", "passwordless", "password")
DEFAULT_SSH_PORT: Final = 22
_NAME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# Keys someone might be tempted to put in the file: refused with a pointer to the keyring.
_SECRET_KEYS: Final = frozenset({"password", "passphrase", "sudo_password", "secret"})
_DEFAULT_KEYS: Final = ("id_ed25519", "id_ecdsa", "id_rsa")


@dataclass
class SSHTarget:
    """One SSH target. ``host`` may be an alias of ``~/.ssh/config``; None means "from there"."""

    name: str
    host: str
    port: int | None = None
    user: str | None = None
    auth: str = "agent"
    key_path: str | None = None
    sudo: str = "none"
    # The interpreter the agent runs with on the host.
    python: str = "python3"
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The TOML table of this target (no name: it is the table's key; no None values)."""
        out: dict[str, Any] = {"host": self.host, "auth": self.auth, "sudo": self.sudo}
        if self.port is not None:
            out["port"] = self.port
        if self.user:
            out["user"] = self.user
        if self.key_path:
            out["key_path"] = self.key_path
        if self.python != "python3":
            out["python"] = self.python
        if self.notes:
            out["notes"] = self.notes
        return out


@dataclass(frozen=True)
class Hop:
    """One host on the way (a ProxyJump host, or the target itself), fully resolved."""

    alias: str
    hostname: str
    port: int
    user: str
    key_paths: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.user}@{self.hostname}:{self.port}"


@dataclass(frozen=True)
class ResolvedTarget:
    """Where and as whom to connect: the target hop and the jump hosts before it, in order."""

    target: SSHTarget
    hop: Hop
    jumps: tuple[Hop, ...] = field(default_factory=tuple)

    @property
    def hostname(self) -> str:
        return self.hop.hostname

    @property
    def port(self) -> int:
        return self.hop.port

    @property
    def user(self) -> str:
        return self.hop.user


def default_ssh_config_path() -> Path:
    return Path.home() / ".ssh" / "config"


def _problem(name: str, key: str, reason: str) -> TargetError:
    return TargetError(f"target {name!r}: {key} {reason}")


def target_from_dict(name: str, data: dict[str, Any]) -> SSHTarget:
    """Build and validate a target; a bad field raises :class:`TargetError` naming it."""
    if not _NAME_RE.match(name or ""):
        raise TargetError(
            f"target name {name!r}: use 1-64 letters, digits, '.', '_' or '-'"
            " (starting with a letter or digit)"
        )
    secret = sorted(_SECRET_KEYS & set(data))
    if secret:
        raise _problem(
            name,
            secret[0],
            "is a secret and never goes into targets.toml: it is kept in the OS keyring",
        )
    unknown = sorted(set(data) - set(SSHTarget.__dataclass_fields__) - {"name"})
    if unknown:
        raise _problem(name, unknown[0], "is not a target field")
    host = data.get("host")
    if not isinstance(host, str) or not host.strip() or any(c.isspace() for c in host.strip()):
        raise _problem(name, "host", "must be a host name, an address or a ~/.ssh/config alias")
    port = data.get("port")
    if port is not None and (
        not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535
    ):
        raise _problem(name, "port", f"must be a number from 1 to 65535, got {port!r}")
    user = data.get("user")
    if user is not None and (not isinstance(user, str) or not re.match(r"^[^\s@:]+$", user)):
        raise _problem(
            name, "user", f"must be a user name without spaces, '@' or ':', got {user!r}"
        )
    auth = data.get("auth", "agent")
    if auth not in AUTH_METHODS:
        raise _problem(name, "auth", f"must be one of {', '.join(AUTH_METHODS)}, got {auth!r}")
    key_path = data.get("key_path")
    if key_path is not None and (not isinstance(key_path, str) or not key_path.strip()):
        raise _problem(name, "key_path", "must be the path of a private key file")
    sudo = data.get("sudo", "none")
    if sudo not in SUDO_MODES:
        raise _problem(name, "sudo", f"must be one of {', '.join(SUDO_MODES)}, got {sudo!r}")
    python = data.get("python", "python3")
    if not isinstance(python, str) or not python.strip() or any(c.isspace() for c in python):
        raise _problem(name, "python", "must be an interpreter name or path without spaces")
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise _problem(name, "notes", "must be text")
    return SSHTarget(
        name=name,
        host=host.strip(),
        port=port,
        user=user,
        auth=auth,
        key_path=key_path.strip() if key_path else None,
        sudo=sudo,
        python=python,
        notes=notes,
    )


def load_targets(path: Path) -> dict[str, SSHTarget]:
    """Every target stored in ``path`` by name; a missing file is an empty list."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise TargetError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TargetError(f"{path} is not valid TOML: {exc}") from exc
    tables = doc.get("targets", {})
    if not isinstance(tables, dict):
        raise TargetError(f"{path}: [targets] must be a table of targets")
    out: dict[str, SSHTarget] = {}
    for name, data in tables.items():
        if not isinstance(data, dict):
            raise TargetError(f"{path}: targets.{name} must be a table")
        out[name] = target_from_dict(name, data)
    return out


def save_targets(targets: dict[str, SSHTarget], path: Path) -> None:
    """Write every target (atomically: a crash leaves the old file or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"targets": {name: t.to_dict() for name, t in sorted(targets.items())}}
    text = "# bench-gui SSH targets. No secrets here: they live in the OS keyring.\n"
    text += tomli_w.dumps(doc)
    fd, tmp = tempfile.mkstemp(prefix=".targets-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def get_target(name: str, path: Path) -> SSHTarget:
    targets = load_targets(path)
    try:
        return targets[name]
    except KeyError:
        known = ", ".join(sorted(targets)) or "none yet"
        raise TargetError(f"no target named {name!r} (known: {known})") from None


def add_target(target: SSHTarget, path: Path, replace: bool = False) -> None:
    """Store a target (validated again); an existing name needs ``replace=True``."""
    checked = target_from_dict(target.name, target.to_dict())
    targets = load_targets(path)
    if checked.name in targets and not replace:
        raise TargetError(f"a target named {checked.name!r} exists already")
    targets[checked.name] = checked
    save_targets(targets, path)


def remove_target(name: str, path: Path) -> SSHTarget:
    """Remove a target; returns it (the caller may also forget its secrets)."""
    targets = load_targets(path)
    if name not in targets:
        raise TargetError(f"no target named {name!r}")
    removed = targets.pop(name)
    save_targets(targets, path)
    return removed


def _ssh_config(path: Path | None) -> paramiko.SSHConfig | None:
    path = path if path is not None else default_ssh_config_path()
    if not path.is_file():
        return None
    try:
        return paramiko.SSHConfig.from_path(str(path))
    except (OSError, paramiko.ConfigParseError) as exc:
        raise TargetError(f"cannot read the SSH configuration {path}: {exc}") from exc


def _lookup(config: paramiko.SSHConfig | None, alias: str) -> dict[str, Any]:
    if config is None:
        return {"hostname": alias}
    try:
        return dict(config.lookup(alias))
    # paramiko's lookup: a bad Match/CanonicalDomains (SSHException), a non-numeric
    # CanonicalizeMaxDots (ValueError), CanonicalizeHostname without CanonicalDomains
    # (KeyError), Match exec without the invoke package (ImportError), a name lookup (OSError).
    except (paramiko.SSHException, ValueError, KeyError, ImportError, OSError) as exc:
        raise TargetError(f"~/.ssh/config: cannot resolve {alias!r}: {exc}") from exc


def _default_keys() -> tuple[str, ...]:
    home = Path.home() / ".ssh"
    return tuple(str(home / k) for k in _DEFAULT_KEYS if (home / k).is_file())


def _parse_jump(spec: str) -> tuple[str | None, str, int | None]:
    """``[user@]host[:port]`` (or ``[host]:port``) of one ProxyJump entry."""
    user = None
    if "@" in spec:
        user, spec = spec.rsplit("@", 1)
    port: int | None = None
    if spec.startswith("["):
        host, _, rest = spec[1:].partition("]")
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
    elif spec.count(":") == 1:
        host, _, p = spec.partition(":")
        if p.isdigit():
            port = int(p)
    else:
        host = spec
    return user, host, port


def _hop(
    config: paramiko.SSHConfig | None,
    alias: str,
    port: int | None,
    user: str | None,
    key_path: str | None,
) -> tuple[Hop, str]:
    found = _lookup(config, alias)
    hostname = str(found.get("hostname") or alias)
    if port is None:
        try:
            port = int(found.get("port", DEFAULT_SSH_PORT))
        except ValueError:
            raise TargetError(f"~/.ssh/config: bad Port for {alias!r}") from None
    user = user or found.get("user") or getpass.getuser()
    keys: list[str] = []
    if key_path:
        keys.append(os.path.expanduser(key_path))
    for k in found.get("identityfile", []) or []:
        expanded = os.path.expanduser(k)
        if expanded not in keys:
            keys.append(expanded)
    if not keys:
        keys.extend(_default_keys())
    jump = str(found.get("proxyjump") or "")
    return Hop(
        alias=alias, hostname=hostname, port=port, user=str(user), key_paths=tuple(keys)
    ), jump


def resolve(target: SSHTarget, ssh_config: Path | None = None) -> ResolvedTarget:
    """Resolve a target through ``~/.ssh/config`` (or ``ssh_config``), jump hosts included."""
    config = _ssh_config(ssh_config)
    hop, jump = _hop(config, target.host, target.port, target.user, target.key_path)
    jumps: list[Hop] = []
    if jump and jump.lower() != "none":
        # Each jump host is itself resolved through the file; a jump host's own ProxyJump is
        # not followed (OpenSSH lists the whole chain in one ProxyJump value).
        for spec in (s.strip() for s in jump.split(",")):
            if not spec:
                continue
            j_user, j_host, j_port = _parse_jump(spec)
            j_hop, _ = _hop(config, j_host, j_port, j_user, None)
            jumps.append(j_hop)
    return ResolvedTarget(target=target, hop=hop, jumps=tuple(jumps))
