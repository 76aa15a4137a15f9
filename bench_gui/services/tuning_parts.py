"""What every engine kit's tuning service builds on: the resolved :class:`Connection` (a tuner
and what SSH opened for it), the calculators' :class:`Inputs`, and a saved SSH host.

Kept apart from :mod:`bench_gui.services.tuning`, which finds each engine's service through its
kit (:mod:`bench_gui.engines.base`): the kits import this module, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from bench_gui.engines.tuning_terms import parse_size
from bench_gui.remote.errors import SSHError
from bench_gui.remote.host_access import HostIO, LocalHost
from bench_gui.store.paths import data_dir


class TunedTarget(Protocol):
    """A server to tune as every engine's target describes it."""

    key: str  # stable name in the tuning history
    label: str
    conninfo: str
    flavour: str  # its engine: "postgresql", "mariadb", "mysql", "mssql"
    local: bool  # the server's machine is this one


@dataclass
class Connection:
    """A resolved target, with what SSH opened for it (closed by :meth:`close`).

    ``tuner`` is its engine kit's tuner (a :class:`~bench_gui.remote.db_tuner.DbTuner`);
    ``planned_users``: the plan's most virtual users, if known."""

    target: TunedTarget
    tuner: Any  # the engine's DbTuner: diff, apply, roll back, read facts
    host: HostIO | None  # where the server runs, when this side can reach it
    closers: list[Any] = field(default_factory=list)
    planned_users: int | None = None

    @property
    def engine(self) -> str:
        """``postgresql``, ``mariadb``, ``mysql`` or ``mssql``: its tuning history's kind."""
        return self.target.flavour

    def close(self) -> None:
        close_all(self.closers)


def close_all(closers: list[Any]) -> None:
    """Close each of a tuning's links; one that died already is passed over."""
    for item in closers:
        try:
            item.close()
        except (SSHError, OSError, EOFError):
            pass  # closing a dead link


@dataclass(frozen=True)
class Options:
    """How the command line reaches a server's machine: ``--control``, ``--ssh``,
    ``--config-file``, ``--data-dir`` (each engine takes the ones it can use)."""

    control: str | None = None
    ssh: str | None = None
    config_file: str | None = None
    data_directory: str | None = None

    def given(self) -> list[str]:
        """The options given, as the command line spells them."""
        flags = ("--control", "--ssh", "--config-file", "--data-dir")
        values = (self.control, self.ssh, self.config_file, self.data_directory)
        return [flag for flag, value in zip(flags, values, strict=True) if value]


NO_OPTIONS: Final = Options()


@dataclass
class Inputs:
    """Calculator inputs, any of which may be left to the server's machine."""

    ram_bytes: int | None = None
    cpus: int | None = None
    connections: int | None = None
    storage: str | None = None
    db_type: str = "oltp"
    version: str | None = None  # the release the user names ("9.4", "16"); its kit reads it
    edition: str = "current"
    server: str = "shared"  # InnoDB: "dedicated" only when the machine is declared so
    durability: str = "full"  # InnoDB: "relaxed" flushes the log about once a second

    @classmethod
    def from_args(cls, args: Any) -> Inputs:
        """The inputs given on ``bench-gui tune``'s command line (``args``: its namespace;
        an option its engines' kits did not add is left to the default)."""
        ram = getattr(args, "ram", None)
        return cls(
            ram_bytes=parse_size(ram) if ram else None,
            cpus=getattr(args, "cpus", None),
            connections=getattr(args, "connections", None),
            storage=getattr(args, "storage", None),
            db_type=getattr(args, "type", None) or "oltp",
            version=getattr(args, "version", None),
            edition=getattr(args, "edition", None) or "current",
            server=getattr(args, "server", None) or "shared",
            durability=getattr(args, "durability", None) or "full",
        )


def ssh_host(name: str, accept_fingerprint: str | None = None) -> tuple[HostIO, Any]:
    """(the host, the connection to close) for a saved SSH target; blocking.

    ``accept_fingerprint``: a host key the user has just accepted (the host-key flow)."""
    from bench_gui.remote.connection import connect
    from bench_gui.remote.host_access import SSHHost
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.remote.targets import TARGETS_FILE, get_target

    folder = data_dir()
    connection = connect(
        get_target(name, folder / TARGETS_FILE),
        accept_fingerprint,
        known_hosts=folder / APP_KNOWN_HOSTS,
    )
    return SSHHost(connection), connection


def server_host(target: TunedTarget, ssh: str | None) -> tuple[HostIO | None, list[Any]]:
    """The server's machine when this side reaches it (this one for a local server, the saved
    SSH target ``ssh``: the target is then no longer local), and what to close after."""
    if not ssh:
        return (LocalHost() if target.local else None), []
    host, session = ssh_host(ssh)
    target.local = False
    return host, [session]
