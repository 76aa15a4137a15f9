"""The hosts as the GUI and the command line see them: the saved SSH targets and where they are
kept, their secrets in the keyring, the app's known host keys, a connection test, a host's
inventory, this machine as a host, and the embedded demo server's end. A façade over ``remote``
(and the data folder of ``store``): pages and commands import these names from here (the import
contract "The GUI and the command line reach hosts and stores through the services" keeps it
so); each is imported from its own module when first used (:mod:`bench_gui.services.facade`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from bench_gui.services.facade import lazy_names

if TYPE_CHECKING:
    from bench_gui.remote.connection import connect
    from bench_gui.remote.demo import stop_demo
    from bench_gui.remote.host_access import HostIO, LocalHost
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.remote.inventory import collect_inventory
    from bench_gui.remote.local_shell import LOCAL_TARGET
    from bench_gui.remote.secrets import (
        SECRET_KINDS,
        database_password,
        db_server_name,
        delete_db_password,
        forget_target,
        get_secret,
        set_db_password,
        set_secret,
    )
    from bench_gui.remote.ssh_transport import TargetReport, check_target
    from bench_gui.remote.targets import (
        AUTH_METHODS,
        SUDO_MODES,
        TARGETS_FILE,
        SSHTarget,
        add_target,
        get_target,
        load_targets,
        remove_target,
        target_from_dict,
    )
    from bench_gui.store.paths import data_dir

_TARGETS = "bench_gui.remote.targets"
_SECRETS = "bench_gui.remote.secrets"
# Each name and the module that defines it.
WHERE: Final = {
    "connect": "bench_gui.remote.connection",
    "stop_demo": "bench_gui.remote.demo",
    "HostIO": "bench_gui.remote.host_access",
    "LocalHost": "bench_gui.remote.host_access",
    "APP_KNOWN_HOSTS": "bench_gui.remote.hostkeys",
    "collect_inventory": "bench_gui.remote.inventory",
    "LOCAL_TARGET": "bench_gui.remote.local_shell",
    "SECRET_KINDS": _SECRETS,
    "database_password": _SECRETS,
    "db_server_name": _SECRETS,
    "delete_db_password": _SECRETS,
    "forget_target": _SECRETS,
    "get_secret": _SECRETS,
    "set_db_password": _SECRETS,
    "set_secret": _SECRETS,
    "TargetReport": "bench_gui.remote.ssh_transport",
    "check_target": "bench_gui.remote.ssh_transport",
    "AUTH_METHODS": _TARGETS,
    "SUDO_MODES": _TARGETS,
    "TARGETS_FILE": _TARGETS,
    "SSHTarget": _TARGETS,
    "add_target": _TARGETS,
    "get_target": _TARGETS,
    "load_targets": _TARGETS,
    "remove_target": _TARGETS,
    "target_from_dict": _TARGETS,
    "data_dir": "bench_gui.store.paths",
}

__all__ = [
    "APP_KNOWN_HOSTS",
    "AUTH_METHODS",
    "LOCAL_TARGET",
    "SECRET_KINDS",
    "SUDO_MODES",
    "TARGETS_FILE",
    "HostIO",
    "LocalHost",
    "SSHTarget",
    "TargetReport",
    "add_target",
    "check_target",
    "collect_inventory",
    "connect",
    "data_dir",
    "database_password",
    "db_server_name",
    "delete_db_password",
    "forget_target",
    "get_secret",
    "get_target",
    "known_hosts_path",
    "load_targets",
    "remove_target",
    "saved_target_names",
    "set_db_password",
    "set_secret",
    "stop_demo",
    "target_from_dict",
    "targets_path",
]

__getattr__ = lazy_names(__name__, WHERE)


def targets_path(folder: Path | None = None) -> Path:
    """The saved targets' file (``targets.toml``) in ``folder``, or the app's data folder."""
    from bench_gui.remote.targets import TARGETS_FILE
    from bench_gui.store.paths import data_dir

    return (folder if folder is not None else data_dir()) / TARGETS_FILE


def known_hosts_path(folder: Path | None = None) -> Path:
    """The host keys the app has accepted, in ``folder`` or the app's data folder."""
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.store.paths import data_dir

    return (folder if folder is not None else data_dir()) / APP_KNOWN_HOSTS


def saved_target_names(folder: Path | None = None) -> list[str]:
    """The saved targets' names, sorted (loads the SSH library: call it off the GUI thread)."""
    from bench_gui.remote.targets import load_targets

    return sorted(load_targets(targets_path(folder)))
