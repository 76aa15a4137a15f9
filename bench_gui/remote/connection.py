"""One SSH connection to a target: connect with clear errors, run commands, log every one.

Commands are argument lists, quoted with :func:`shlex.join`, never shell strings built from
user data. Each command is recorded (secrets redacted) with its exit status and duration, so a
session can show exactly what was done to a machine. Output is drained before the exit status
is read: paramiko's ``recv_exit_status`` can hang on a channel whose buffers are full.
"""

from __future__ import annotations

import logging
import re
import select
import shlex
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import paramiko

from bench_gui.remote.errors import (
    AuthFailed,
    CommandTimeout,
    ConnectError,
    ConnectionRefused,
    HostKeyError,
    HostNotFound,
    KeyPassphraseNeeded,
    NoAnswer,
    NoSudo,
    SSHError,
    first_error_line,
)
from bench_gui.remote.hostkeys import HostKeyChecker, RaisingPolicy, host_id
from bench_gui.remote.secrets import TargetSecrets
from bench_gui.remote.targets import Hop, ResolvedTarget, SSHTarget, resolve

# A dropped link is reported through on_link_state and SSHError messages; without a handler,
# paramiko's transport thread would also print its own traceback-like lines on stderr.
logging.getLogger("paramiko").addHandler(logging.NullHandler())
log = logging.getLogger(__name__)

DEFAULT_TIMEOUT: Final = 10.0
# What sudo says when it refuses (as opposed to the command failing).
_SUDO_REFUSED: Final = re.compile(
    r"^sudo: |is not in the sudoers file|is not allowed to (run|execute)|incorrect password",
    re.MULTILINE,
)
REDACTED: Final = "***"
_SECRET_PATTERNS: Final = (
    (re.compile(r"(password\s*=\s*)('[^']*'|\S+)", re.IGNORECASE), r"\1***"),
    (re.compile(r"(PGPASSWORD=)(\S+)"), r"\1***"),
    (re.compile(r"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@"), r"\1***@"),
)


@dataclass
class CommandResult:
    """What a remote command did. ``stdout``/``stderr`` are decoded as UTF-8 (replacing)."""

    argv: list[str]
    exit_status: int
    stdout: str
    stderr: str
    duration: float

    @property
    def ok(self) -> bool:
        return self.exit_status == 0

    def first_error_line(self) -> str:
        return first_error_line(self.stderr, self.stdout, self.exit_status)


@dataclass
class CommandLogEntry:
    """One command run on a target, as stored with a session (secrets already redacted)."""

    host: str
    command: str
    exit_status: int | None  # None: timed out, or the link went away before it ended
    duration: float
    started: float  # epoch seconds

    def format(self) -> str:
        status = "?" if self.exit_status is None else str(self.exit_status)
        return f"[{self.host}] $ {self.command}  -> exit {status} in {self.duration:.2f} s"

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "command": self.command,
            "exit_status": self.exit_status,
            "duration": round(self.duration, 3),
            "started": self.started,
        }


class Redactor:
    """Replaces known secret values (and password-looking fields) in text meant for logs."""

    def __init__(self, secrets: list[str] | None = None) -> None:
        self._values: list[str] = []
        for value in secrets or []:
            self.add(value)

    def add(self, value: str | None) -> None:
        if value and len(value) >= 3 and value not in self._values:
            self._values.append(value)
            self._values.sort(key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for value in self._values:
            text = text.replace(value, REDACTED)
        for pattern, replacement in _SECRET_PATTERNS:
            text = pattern.sub(replacement, text)
        return text


def _tcp_connect(host: str, port: int, timeout: float) -> socket.socket:
    """A connected TCP socket, or an error that says which of the usual things went wrong."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise HostNotFound(f"cannot resolve the host name {host!r}: {exc.strerror}") from None
    last: SSHError = ConnectError(f"cannot reach {host}:{port}")
    for family, kind, proto, _name, addr in infos:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout)
        try:
            sock.connect(addr)
            return sock
        except ConnectionRefusedError:
            last = ConnectionRefused(
                f"nothing listens on {host}:{port} (connection refused): is the SSH server"
                " running, and is this its port?"
            )
        except TimeoutError:
            last = NoAnswer(
                f"no answer from {host}:{port} within {timeout:g} s: the host is down, the"
                " address is wrong, or a firewall drops the connection"
            )
        except OSError as exc:
            last = ConnectError(f"cannot reach {host}:{port}: {exc.strerror or exc}")
        sock.close()
    raise last


def load_private_key(path: str, passphrase: str | None, target_name: str = "") -> paramiko.PKey:
    """Load a private key file, turning the usual failures into messages a user can act on."""
    try:
        return paramiko.PKey.from_path(path, passphrase.encode() if passphrase else None)
    except FileNotFoundError:
        raise AuthFailed(f"the key file {path} does not exist") from None
    except PermissionError:
        raise AuthFailed(f"the key file {path} cannot be read (permission denied)") from None
    except TypeError as exc:
        if passphrase and "not encrypted" in str(exc):
            return load_private_key(path, None, target_name)
        where = f" for target {target_name!r}" if target_name else ""
        raise KeyPassphraseNeeded(
            f"the key {path} is encrypted and no passphrase is stored{where}: store the"
            " passphrase in the keyring, or load the key into ssh-agent and use auth = agent"
        ) from None
    except ValueError as exc:
        if passphrase:
            raise AuthFailed(
                f"cannot decrypt the key {path}: the stored passphrase is wrong (or the file is"
                " not a private key)"
            ) from None
        raise AuthFailed(f"{path} is not a private key this app can read ({exc})") from None
    except paramiko.SSHException as exc:
        raise AuthFailed(f"cannot load the key {path}: {exc}") from None


class SecretSource:
    """Looks secrets up in the keyring only when one is needed (no keyring prompt for nothing)."""

    def __init__(self, target_name: str, given: TargetSecrets | None = None) -> None:
        self.target_name = target_name
        self._given = given
        self._cache: dict[str, str | None] = {}

    def get(self, kind: str) -> str | None:
        if kind not in self._cache:
            if self._given is not None:
                self._cache[kind] = getattr(self._given, kind)
            else:
                from bench_gui.remote.secrets import get_secret

                self._cache[kind] = get_secret(self.target_name, kind)
        return self._cache[kind]

    def fetched(self) -> list[str]:
        """The secrets looked up so far (to keep them out of logs)."""
        return [v for v in self._cache.values() if v]


def _auth_kwargs(
    target: SSHTarget, hop: Hop, secrets: SecretSource, for_jump: bool
) -> tuple[dict[str, Any], str]:
    """paramiko.connect keyword arguments for one hop, and a phrase naming what was offered."""
    base: dict[str, Any] = {"allow_agent": False, "look_for_keys": False}
    if for_jump:
        keys = [k for k in hop.key_paths if Path(k).is_file()]
        base.update(allow_agent=True, key_filename=keys or None)
        return base, "ssh-agent and the keys of ~/.ssh/config"
    if target.auth == "agent":
        base["allow_agent"] = True
        return base, "the keys of ssh-agent"
    if target.auth == "password":
        password = secrets.get("password")
        if not password:
            raise AuthFailed(
                f"target {target.name!r} logs in with a password, and none is stored in the"
                " keyring for it"
            )
        base["password"] = password
        return base, "the password from the keyring"
    paths = [k for k in hop.key_paths if Path(k).is_file()]
    if not paths:
        wanted = ", ".join(hop.key_paths) or "none configured"
        raise AuthFailed(
            f"target {target.name!r} logs in with a key file, but no key file exists ({wanted}):"
            " set key_path"
        )
    try:
        key = load_private_key(paths[0], None, target.name)
    except KeyPassphraseNeeded:
        # Only an encrypted key sends us to the keyring (a machine without one still works).
        key = load_private_key(paths[0], secrets.get("passphrase"), target.name)
    base["pkey"] = key
    fp = key.fingerprint
    return base, f"the key {paths[0]} ({fp})"


def _open_client(
    target: SSHTarget,
    hop: Hop,
    sock: Any,
    checker: HostKeyChecker,
    secrets: SecretSource,
    timeout: float,
    for_jump: bool,
) -> paramiko.SSHClient:
    name = host_id(hop.hostname, hop.port)
    if sock is None:
        sock = _tcp_connect(hop.hostname, hop.port, timeout)
    auth, offered = _auth_kwargs(target, hop, secrets, for_jump)
    prefer = checker.preferred_algorithms(name)

    def transport_factory(
        sock: Any, disabled_algorithms: dict[str, Any] | None = None
    ) -> paramiko.Transport:
        transport = paramiko.Transport(sock, disabled_algorithms=disabled_algorithms)
        if prefer:
            opts = transport.get_security_options()
            offered_types = list(opts.key_types)
            first = [a for a in prefer if a in offered_types]
            opts.key_types = tuple(first + [a for a in offered_types if a not in first])
        return transport

    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(RaisingPolicy(checker))
    where = f"{hop.user}@{hop.hostname}" + (f":{hop.port}" if hop.port != 22 else "")
    try:
        client.connect(
            hop.hostname,
            port=hop.port,
            username=hop.user,
            sock=sock,
            # The banner times out first, so a silent peer gets the clearer of the two errors.
            timeout=timeout + 2,
            banner_timeout=timeout,
            auth_timeout=timeout,
            channel_timeout=timeout,
            transport_factory=transport_factory,
            **auth,
        )
    except HostKeyError:
        client.close()
        raise
    except paramiko.BadAuthenticationType as exc:
        client.close()
        allowed = ", ".join(exc.allowed_types) or "nothing"
        raise AuthFailed(
            f"authentication failed for {where}: the server does not accept this method"
            f" (it allows: {allowed})"
        ) from None
    except paramiko.PasswordRequiredException:
        client.close()
        raise KeyPassphraseNeeded(
            f"authentication failed for {where}: a key is encrypted and no passphrase is known"
        ) from None
    except paramiko.AuthenticationException as exc:
        client.close()
        raise AuthFailed(
            f"authentication failed for {where}: the server refused {offered} ({exc})"
        ) from None
    except TimeoutError:
        client.close()
        raise NoAnswer(
            f"no answer from {hop.hostname}:{hop.port} within {timeout:g} s (the SSH handshake"
            " did not complete)"
        ) from None
    except paramiko.SSHException as exc:
        client.close()
        text = str(exc)
        if "banner" in text.lower():
            raise NoAnswer(
                f"no answer from {hop.hostname}:{hop.port} within {timeout:g} s: something"
                " accepted the connection but no SSH server spoke (is this the SSH port?)"
            ) from None
        if "No existing session" in text or "Negotiation failed" in text:
            raise NoAnswer(
                f"no answer from {hop.hostname}:{hop.port} within {timeout:g} s: the SSH"
                " handshake did not complete"
            ) from None
        if "No authentication methods available" in text:
            raise AuthFailed(
                f"authentication failed for {where}: nothing to offer ({offered}; is ssh-agent"
                " running and SSH_AUTH_SOCK set?)"
            ) from None
        raise ConnectError(f"SSH to {where} failed: {text}") from None
    except (EOFError, OSError) as exc:
        client.close()
        raise ConnectError(
            f"the connection to {hop.hostname}:{hop.port} closed during the SSH handshake"
            f" ({exc or type(exc).__name__})"
        ) from None
    return client


def connect(
    target: SSHTarget,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    secrets: TargetSecrets | None = None,
    known_hosts: Path | None = None,
    checker: HostKeyChecker | None = None,
    ssh_config: Path | None = None,
    on_command: Callable[[CommandLogEntry], None] | None = None,
) -> SSHConnection:
    """Open an SSH session to a target, through its jump hosts if ``~/.ssh/config`` has any.

    Host keys are verified against ``~/.ssh/known_hosts`` and ``known_hosts``, the app's own
    file (``<data dir>/known_hosts``), where an accepted key is recorded; ``accept_fingerprint``
    is a fingerprint the user confirmed for a host whose key is not known yet. Secrets come
    from the keyring unless ``secrets`` is given (a dialog testing values before saving them).
    """
    resolved = resolve(target, ssh_config)
    checker = checker or HostKeyChecker(app_file=known_hosts, accept_fingerprint=accept_fingerprint)
    source = SecretSource(target.name, secrets)
    clients: list[paramiko.SSHClient] = []
    sock: Any = None
    hops = [*resolved.jumps, resolved.hop]
    try:
        for i, hop in enumerate(hops):
            last = i == len(hops) - 1
            client = _open_client(target, hop, sock, checker, source, timeout, not last)
            clients.append(client)
            if not last:
                nxt = hops[i + 1]
                transport = client.get_transport()
                assert transport is not None
                try:
                    sock = transport.open_channel(
                        "direct-tcpip", (nxt.hostname, nxt.port), ("127.0.0.1", 0), timeout=timeout
                    )
                except (paramiko.SSHException, OSError) as exc:
                    raise ConnectError(
                        f"the jump host {hop.label} cannot reach {nxt.hostname}:{nxt.port}: {exc}"
                    ) from None
    except BaseException:
        for client in reversed(clients):
            client.close()
        raise
    return SSHConnection(target, resolved, clients, source, on_command)


class CommandLogging:
    """The command log both kinds of session keep (SSH here, this machine in localhost.py).

    Needs ``label``, ``redact``, ``command_log`` and ``on_command`` on the session.
    """

    redact: Redactor
    command_log: list[CommandLogEntry]
    on_command: Callable[[CommandLogEntry], None] | None

    def log_command(
        self, command: str, exit_status: int | None, duration: float, started: float
    ) -> CommandLogEntry:
        """Record a command (or an SFTP transfer) in the log, redacted."""
        entry = CommandLogEntry(
            host=self.label,  # type: ignore[attr-defined]  # each session names itself
            command=self.redact(command),
            exit_status=exit_status,
            duration=duration,
            started=started,
        )
        self.command_log.append(entry)
        if self.on_command is not None:
            try:
                self.on_command(entry)
            except Exception:  # the caller's hook (a store, a page): it must not break a command
                log.warning("the command log hook failed on %s", entry.command, exc_info=True)
        return entry


class SSHConnection(CommandLogging):
    """A live SSH connection to one target: commands, SFTP and the log of what was run."""

    def __init__(
        self,
        target: SSHTarget,
        resolved: ResolvedTarget,
        clients: list[paramiko.SSHClient],
        secrets: SecretSource,
        on_command: Callable[[CommandLogEntry], None] | None = None,
    ) -> None:
        self.target = target
        self.resolved = resolved
        self._clients = clients
        self.client = clients[-1]
        self.secrets = secrets
        self.on_command = on_command
        self.command_log: list[CommandLogEntry] = []
        self.redact = Redactor(secrets.fetched())
        self._sftp: paramiko.SFTPClient | None = None
        self._sftp_lock = threading.Lock()
        self._home: str | None = None
        transport = self.client.get_transport()
        assert transport is not None
        self.transport: paramiko.Transport = transport
        # Keepalives stop NAT boxes and firewalls from dropping an idle link.
        transport.set_keepalive(15)

    @property
    def label(self) -> str:
        return self.resolved.hop.label

    @property
    def host(self) -> str:
        return self.resolved.hostname

    @property
    def user(self) -> str:
        return self.resolved.user

    def __enter__(self) -> SSHConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._sftp_lock:
            if self._sftp is not None:
                try:
                    self._sftp.close()
                except (paramiko.SSHException, OSError, EOFError):
                    pass  # closing a dead link
                self._sftp = None
        for client in reversed(self._clients):
            try:
                client.close()
            except (paramiko.SSHException, OSError, EOFError):
                pass  # closing a dead link

    def is_active(self) -> bool:
        return bool(self.transport.is_active())

    def went_down(self, within: float = 2.0) -> bool:
        """Whether the link is gone, giving it ``within`` seconds to notice: a command that
        ended with no exit status (-1) may have lost its link a moment before the transport
        saw it."""
        deadline = time.monotonic() + within
        while self.transport.is_active():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    @property
    def local_port(self) -> int | None:
        """The local TCP port of the link (to find the server's end of it, in tests)."""
        sock = self._clients[0].get_transport()
        try:
            return int(sock.sock.getsockname()[1]) if sock is not None else None
        except (OSError, AttributeError, IndexError, TypeError):
            return None

    def probe(self, timeout: float = 5.0) -> bool:
        """True if the server answers within ``timeout`` (opens and closes a channel)."""
        if not self.transport.is_active():
            return False
        try:
            chan = self.transport.open_session(timeout=timeout)
        except (paramiko.SSHException, OSError, EOFError):
            return False
        chan.close()
        return True

    # -- commands -----------------------------------------------------------------------------

    def sudo_argv(self, argv: list[str]) -> tuple[list[str], str | None]:
        """``argv`` wrapped for root according to the target's sudo mode, and stdin to send."""
        if self.user == "root":
            return list(argv), None
        mode = self.target.sudo
        if mode == "passwordless":
            return ["sudo", "-n", "--", *argv], None
        if mode == "password":
            password = self.secrets.get("sudo_password")
            if not password:
                raise NoSudo(
                    f"target {self.target.name!r} uses sudo with a password, and no sudo password"
                    " is stored in the keyring for it"
                )
            self.redact.add(password)
            return ["sudo", "-S", "-p", "", "--", *argv], password + "\n"
        raise NoSudo(
            f"{shlex.join(argv[:1])} needs root on {self.host}, and target {self.target.name!r}"
            ' has no sudo (sudo = "none"): log in as root, or set sudo to passwordless or'
            " password"
        )

    def exec_channel(self, command: str, timeout: float = DEFAULT_TIMEOUT) -> paramiko.Channel:
        """Start a command on a new channel (for long-lived readers such as ``tail -F``)."""
        try:
            chan = self.transport.open_session(timeout=timeout)
            chan.exec_command(command)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise ConnectError(f"the link to {self.label} is down: {exc}") from None
        return chan

    def run(
        self,
        argv: list[str],
        sudo: bool = False,
        timeout: float = 60.0,
        input: str | bytes | None = None,
        check: bool = False,
    ) -> CommandResult:
        """Run a command and wait for it; ``check`` raises :class:`SSHError` on a non-zero exit.

        ``input`` goes to the command's stdin (the way secrets reach a command: never argv).
        """
        if not argv:
            raise ValueError("empty command")
        full = list(argv)
        stdin_parts: list[bytes] = []
        if sudo:
            full, sudo_input = self.sudo_argv(full)
            if sudo_input:
                stdin_parts.append(sudo_input.encode())
        if input is not None:
            stdin_parts.append(input.encode() if isinstance(input, str) else input)
        command = shlex.join(full)
        started = time.time()
        t0 = time.monotonic()
        chan = self.exec_channel(command, timeout=min(timeout, DEFAULT_TIMEOUT))
        out: list[bytes] = []
        err: list[bytes] = []
        status: int | None = None
        try:
            if stdin_parts:
                chan.sendall(b"".join(stdin_parts))
            chan.shutdown_write()
            deadline = t0 + timeout
            while True:
                while chan.recv_ready():
                    out.append(chan.recv(65536))
                while chan.recv_stderr_ready():
                    err.append(chan.recv_stderr(65536))
                if chan.exit_status_ready() and (chan.eof_received or chan.closed):
                    if not chan.recv_ready() and not chan.recv_stderr_ready():
                        break
                    continue
                if not self.transport.is_active():
                    raise ConnectError(f"the link to {self.label} went down during {argv[0]}")
                if time.monotonic() > deadline:
                    raise CommandTimeout(
                        f"{self.redact(shlex.join(argv))[:200]} did not finish within"
                        f" {timeout:g} s on {self.label}"
                    )
                # The channel's pipe wakes us for stdout data and close; stderr is polled.
                select.select([chan], [], [], 0.02)
            status = chan.recv_exit_status()
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise ConnectError(f"the link to {self.label} failed during {argv[0]}: {exc}") from None
        finally:
            duration = time.monotonic() - t0
            chan.close()
            self.log_command(command, status, duration, started)
        result = CommandResult(
            argv=list(argv),
            exit_status=status,
            stdout=b"".join(out).decode("utf-8", errors="replace"),
            stderr=b"".join(err).decode("utf-8", errors="replace"),
            duration=duration,
        )
        if sudo and status == 127 and self.user != "root" and "sudo" in result.stderr:
            raise NoSudo(f"no sudo: sudo is not installed on {self.host}")
        if sudo and status != 0 and self.user != "root" and _SUDO_REFUSED.search(result.stderr):
            raise NoSudo(
                f"sudo refused on {self.host} for {self.user}: {result.first_error_line()}"
            )
        if check and status != 0:
            raise SSHError(
                f"{self.redact(shlex.join(argv))[:200]} failed on {self.label}"
                f" (exit {status}): {self.redact(result.first_error_line())}"
            )
        return result

    # -- files --------------------------------------------------------------------------------

    def sftp(self) -> paramiko.SFTPClient:
        with self._sftp_lock:
            if self._sftp is None:
                try:
                    self._sftp = self.client.open_sftp()
                except (paramiko.SSHException, OSError, EOFError) as exc:
                    raise ConnectError(f"SFTP to {self.label} failed: {exc}") from None
            return self._sftp

    def home(self) -> str:
        """The remote user's home directory (absolute)."""
        if self._home is None:
            self._home = self.sftp().normalize(".")
        return self._home

    def abspath(self, path: str) -> str:
        """Expand a leading ``~/`` against the remote home."""
        if path == "~":
            return self.home()
        if path.startswith("~/"):
            return self.home().rstrip("/") + "/" + path[2:]
        return path

    def put_bytes(self, data: bytes, path: str, mode: int = 0o644) -> None:
        """Write a file on the host; the mode is set before any byte is written."""
        started = time.time()
        t0 = time.monotonic()
        sftp = self.sftp()
        try:
            with sftp.open(path, "wb") as fh:
                fh.chmod(mode)
                fh.set_pipelined(True)
                fh.write(data)
        except (OSError, paramiko.SSHException, EOFError) as exc:
            raise ConnectError(f"cannot write {path} on {self.label}: {exc}") from None
        finally:
            self.log_command(
                f"sftp put {path} ({len(data)} bytes, mode {mode:o})",
                0,
                time.monotonic() - t0,
                started,
            )

    def read_bytes(self, path: str, offset: int = 0, limit: int | None = None) -> bytes:
        """Read (part of) a file on the host; not logged (reads change nothing)."""
        try:
            with self.sftp().open(path, "rb") as fh:
                if offset:
                    fh.seek(offset)
                data: bytes = fh.read(limit) if limit is not None else fh.read()
                return data
        except FileNotFoundError:
            raise
        except (OSError, paramiko.SSHException, EOFError) as exc:
            if isinstance(exc, OSError) and exc.errno == 2:
                raise FileNotFoundError(path) from None
            raise ConnectError(f"cannot read {path} on {self.label}: {exc}") from None
