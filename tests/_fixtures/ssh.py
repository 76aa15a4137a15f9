"""A real OpenSSH sshd on 127.0.0.1 for the SSH tests: the session's ``sshd`` fixture, shared
by the remote, CLI, services, storage and GUI tests, so one sshd and one set of test users exist
per run; ``sshd2`` is a second, independent instance (own port, host key and client keys),
started once per session when a test wants two driver hosts.

Each instance plays one machine: its sessions get ``BENCH_GUI_LOCK_DIR`` set to that machine's
lock folder (``Sshd.lock_dir``; for ``sshd`` the suite's, which the tests' local runs use too).
A desktop that has ``BENCH_GUI_LOCK_DIR`` itself passes it to its agents (``--lock-dir``), so
every host meets in one folder; a test that drops it from its environment gets one lock folder
per instance, as on two machines.

The sshd runs as the current user (root here and in CI) on a random free port, with its own
host key and its own authorized_keys holding freshly generated client keys. Password tests use
dedicated unix users created for the session (root only): one without sudo rights, one allowed
sudo with its password. Tests that talk to it take the ``isolated`` fixture (own HOME, so
``~/.ssh/known_hosts`` and ``~/.ssh/config`` are their own; see ``isolation.py``). Agents
deployed through it keep their copies and runs in the test's own folder, not in root's real
``~/.cache/bench-gui``: ``tests/conftest.py`` sets ``BENCH_GUI_REMOTE_ROOT`` for every test.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench_gui.remote.hostkeys import fingerprint_sha256
from bench_gui.remote.targets import SSHTarget
from bench_gui.wire.names import LOCK_DIR_ENV

from .wait import wait_until

SSHD = "/usr/sbin/sshd"
USER_PASSWORD = "Bench-gui-t3st!"
KEY_PASSPHRASE = "correct horse battery"
# The HOME pytest started with: trust() refuses to write its known_hosts.
REAL_HOME = os.environ.get("HOME", "")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _keygen(path: Path, passphrase: str = "", kind: str = "ed25519") -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", kind, "-N", passphrase, "-C", path.name, "-f", str(path)],
        check=True,
    )


@dataclass
class Sshd:
    """The running sshd and what the tests need to talk to it."""

    port: int
    proc: subprocess.Popen[bytes]
    folder: Path
    host_key_line: str  # "ssh-ed25519 AAAA..."
    fingerprint: str
    client_key: Path
    encrypted_key: Path  # authorized too, protected by KEY_PASSPHRASE
    stranger_key: Path  # not authorized
    log: Path
    lock_dir: str  # the run locks' folder of the agents it starts ("" when the host's own)
    address: str = "127.0.0.1"  # where it listens (a network namespace's address: netns.py)
    nosudo_user: str | None = None
    sudo_user: str | None = None
    password: str = USER_PASSWORD  # of both dedicated users
    passphrase: str = KEY_PASSPHRASE  # of encrypted_key

    @staticmethod
    def free_port() -> int:
        return free_port()

    def known_hosts_line(self) -> str:
        return f"[{self.address}]:{self.port} {self.host_key_line}\n"

    def trust(self, home: Path | None = None) -> None:
        """Put the host key in ~/.ssh/known_hosts of the (test's) HOME."""
        home = home or Path(os.environ["HOME"])
        if REAL_HOME and home == Path(REAL_HOME):
            raise RuntimeError("trust() would write the real ~/.ssh: use the isolated fixture")
        (home / ".ssh").mkdir(parents=True, exist_ok=True)
        with open(home / ".ssh" / "known_hosts", "a", encoding="utf-8") as fh:
            fh.write(self.known_hosts_line())

    def target(self, name: str = "loop", **fields: object) -> SSHTarget:
        data: dict[str, object] = {
            "name": name,
            "host": self.address,
            "port": self.port,
            "user": "root",
            "auth": "key",
            "key_path": str(self.client_key),
        }
        data.update(fields)
        return SSHTarget(**data)  # type: ignore[arg-type]

    def session_pids(self, client_port: int) -> list[int]:
        """The sshd processes serving the connection that has this client port."""
        out = subprocess.run(
            [
                "ss",
                "-Htnp",
                "state",
                "established",
                f"( sport = :{self.port} and dport = :{client_port} )",
            ],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        return sorted({int(p) for p in re.findall(r"pid=(\d+)", out)})

    def cut(self, client_port: int) -> list[int]:
        """Kill the sshd processes serving one connection (the link drops, the host stays)."""
        pids = self.session_pids(client_port)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pids

    def established_client_ports(self) -> list[int]:
        """The client ports of every connection this sshd serves now."""
        out = subprocess.run(
            ["ss", "-Htn", "state", "established", f"( sport = :{self.port} )"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        return sorted({int(m) for m in re.findall(r":(\d+)\s*$", out, re.MULTILINE)})

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """The host out of reach until the block ends: its listener paused (a new connection
        gets no SSH banner) and every connection it serves dropped; resumed at the end."""
        self.proc.send_signal(signal.SIGSTOP)
        try:
            for port in self.established_client_ports():
                self.cut(port)
            yield
        finally:
            self.proc.send_signal(signal.SIGCONT)


def _wait_listening(
    port: int, proc: subprocess.Popen[bytes], log: Path, address: str = "127.0.0.1"
) -> None:
    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"sshd exited with {proc.returncode}: {log.read_text()[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection((address, port), 0.5):
            return True
        return False

    wait_until(listening, 15, f"sshd to listen on {address}:{port} ({log})", interval=0.05)


def _make_user(name: str) -> bool:
    if shutil.which("useradd") is None:
        return False
    exists = subprocess.run(["id", name], capture_output=True, check=False).returncode == 0
    if not exists:
        subprocess.run(["useradd", "-m", "-s", "/bin/sh", name], check=True)
    subprocess.run(["chpasswd"], input=f"{name}:{USER_PASSWORD}\n", text=True, check=True)
    return True


def _drop_user(name: str) -> None:
    subprocess.run(["userdel", "-r", "-f", name], capture_output=True, check=False)


def _drop_stale_users() -> None:
    """Users left by a test session that was killed before its teardown (its pid is gone)."""
    with open("/etc/passwd", encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^(bg(?:no)?sudo(\d+)):", line)
            if m and not Path(f"/proc/{m.group(2)}").exists():
                _drop_user(m.group(1))
    for rule in Path("/etc/sudoers.d").glob("bench-gui-tests-*"):
        if not Path(f"/proc/{rule.name.rsplit('-', 1)[-1]}").exists():
            rule.unlink(missing_ok=True)


def _require_sshd() -> None:
    if not Path(SSHD).exists():
        pytest.skip(f"{SSHD} is missing: apt-get install -y openssh-server")
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is missing: apt-get install -y openssh-client")


@contextlib.contextmanager
def running_sshd(
    folder: Path, lock_dir: str, address: str = "127.0.0.1", prefix: tuple[str, ...] = ()
) -> Iterator[Sshd]:
    """An sshd of its own in ``folder`` (port, host key, client keys, log) until the block ends;
    ``lock_dir``: the ``BENCH_GUI_LOCK_DIR`` of its sessions ("": none set); ``address``: where
    it listens; ``prefix``: the command it runs under (into a network namespace: netns.py)."""
    host_key = folder / "ssh_host_ed25519_key"
    _keygen(host_key)
    client = folder / "client_ed25519"
    _keygen(client)
    encrypted = folder / "client_encrypted"
    _keygen(encrypted, KEY_PASSPHRASE)
    stranger = folder / "stranger_ed25519"
    _keygen(stranger)
    keys_dir = folder / "authorized_keys"
    keys_dir.mkdir()
    me = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
    (keys_dir / me).write_text(
        Path(f"{client}.pub").read_text() + Path(f"{encrypted}.pub").read_text()
    )
    for path in (folder, keys_dir):
        path.chmod(0o755)
    (keys_dir / me).chmod(0o644)
    Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)

    port = free_port()
    config = folder / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                f"ListenAddress {address}",
                f"HostKey {host_key}",
                f"PidFile {folder / 'sshd.pid'}",
                f"AuthorizedKeysFile {keys_dir}/%u",
                "PubkeyAuthentication yes",
                "PasswordAuthentication yes",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin yes",
                "UsePAM no",
                "StrictModes no",
                "MaxStartups 100:30:200",
                "MaxSessions 100",
                "PrintMotd no",
                "LogLevel VERBOSE",
                "Subsystem sftp /usr/lib/openssh/sftp-server",
                *([f"SetEnv {LOCK_DIR_ENV}={lock_dir}"] if lock_dir else []),
                "",
            ]
        )
    )
    check = subprocess.run([SSHD, "-t", "-f", str(config)], capture_output=True, text=True)
    if check.returncode != 0:
        pytest.fail(f"sshd rejects its test configuration: {check.stderr}")
    log = folder / "sshd.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [*prefix, SSHD, "-D", "-e", "-f", str(config)], stderr=fh, stdout=subprocess.DEVNULL
        )
    try:
        _wait_listening(port, proc, log, address)
        key_type, key_b64 = Path(f"{host_key}.pub").read_text().split()[:2]
        yield Sshd(
            port=port,
            proc=proc,
            folder=folder,
            host_key_line=f"{key_type} {key_b64}",
            fingerprint=fingerprint_sha256(base64.b64decode(key_b64)),
            client_key=client,
            encrypted_key=encrypted,
            stranger_key=stranger,
            log=log,
            lock_dir=lock_dir,
            address=address,
        )
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    _require_sshd()
    folder = tmp_path_factory.mktemp("sshd")
    nosudo = sudo_user = None
    tag = os.getpid()
    # One file per test session: concurrent sessions on one machine must not remove each
    # other's rule (sudo ignores names with a dot, so none here).
    sudoers = Path(f"/etc/sudoers.d/bench-gui-tests-{tag}")
    if os.geteuid() == 0:
        _drop_stale_users()
        if _make_user(f"bgnosudo{tag}"):
            nosudo = f"bgnosudo{tag}"
        if shutil.which("sudo") and sudoers.parent.is_dir() and _make_user(f"bgsudo{tag}"):
            sudo_user = f"bgsudo{tag}"
            sudoers.write_text(f"{sudo_user} ALL=(ALL) ALL\n")
            sudoers.chmod(0o440)
    try:
        # This machine's: the suite's lock folder, the one its local runs use.
        with running_sshd(folder, os.environ.get(LOCK_DIR_ENV, "").strip()) as server:
            server.nosudo_user = nosudo
            server.sudo_user = sudo_user
            yield server
    finally:
        if sudo_user:
            sudoers.unlink(missing_ok=True)
            _drop_user(sudo_user)
        if nosudo:
            _drop_user(nosudo)


@pytest.fixture(scope="session")
def sshd2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    """A second sshd, as another machine: its own port, host key, client keys and lock folder
    (no test users of its own: ``sshd``'s are for the password tests)."""
    _require_sshd()
    folder = tmp_path_factory.mktemp("sshd2")
    with running_sshd(folder, str(folder / "locks")) as server:
        yield server
