"""What a session records of where its run ran: the driver host's inventory (every host's, on
several), the storage layout bench-gui prepared there, the OS knobs applied, and, once the
agent's ``hello`` names them, the database's version and data directory placement or the
random-read data file's. Never fails the run: a problem is a warning in the session's log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench_gui.core.plan_model import Plan
from bench_gui.remote.errors import SSHError
from bench_gui.remote.inventory import Shell, collect_inventory, data_directory_storage
from bench_gui.remote.storage import session_layout
from bench_gui.services.host_links import Host, host_inventory
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import kit_for


def database_record(hello: Event) -> dict[str, Any]:
    """The database as the agent's ``hello`` describes it."""
    return {
        "engine": hello.get("engine"),
        "version": hello.get("server"),
        "version_num": hello.get("server_version_num"),
        "data_directory": hello.get("data_directory"),
    }


class RunInventory:
    """A session's inventory, taken where the run's agents run."""

    def __init__(self, store: SessionStore, plan: Plan) -> None:
        self.store = store
        self.plan = plan
        # Where the inventory was taken (this machine or the SSH driver host), and its host
        # name: the database's placement is looked up there once the agent names its folder.
        self.shell: Shell | None = None
        self.hostname: str | None = None

    def take(self, session_id: int, shell: Callable[[], Shell], os_tuning: Any) -> None:
        """The inventory of the one host the agent runs on (``shell`` opens it), with the
        storage layout prepared there and ``os_tuning`` (the knobs applied, or None)."""
        inventory: dict[str, Any] = {}
        try:
            opened = shell()
            inventory = collect_inventory(opened)
            inventory["collected_on"] = self.plan.driver.target or "local"
            self.shell = opened
            self.hostname = inventory.get("hostname")
        except (SSHError, OSError) as exc:
            self.store.add_log(session_id, "warning", f"no inventory: {exc}")
        # The storage layout bench-gui prepared on the database host (the driver host, or this
        # machine), so comparisons and reports can say what the run measured.
        layout = session_layout(data_dir() / "storage", self.plan.driver.target or "local")
        if layout:
            inventory["storage_layout"] = layout
        if os_tuning is not None:
            inventory["os_tuning"] = os_tuning  # the knobs the hello's values reflect
        if inventory:
            self.store.set_server_info(session_id, "", {}, inventory)

    def take_hosts(self, session_id: int, hosts: list[Host], os_tuning: Any) -> None:
        """Every host's inventory, each over its own SSH connection, as on one host: the
        primary's is the session's inventory, and every host's is kept in it under
        ``driver_hosts`` (host name -> inventory). A host whose inventory cannot be read is
        named in a warning of the session log; the run goes on without it."""
        per_host: dict[str, dict[str, Any]] = {}
        for host in hosts:
            try:
                inventory, warning = host_inventory(host.ssh.session(), host.name, host.role)
            except (SSHError, OSError) as exc:
                inventory, warning = None, f"driver host {host.name!r}: no inventory: {exc}"
            if inventory is None:
                self.store.add_log(session_id, "warning", warning)
            else:
                per_host[host.name] = inventory
        primary = per_host.get(hosts[0].name)
        if primary is not None:
            self.store.set_server_info(session_id, "", {}, {**primary, "driver_hosts": per_host})
        elif per_host:
            self.store.update_inventory(session_id, {"driver_hosts": per_host})
        if os_tuning is not None:  # the knobs the hosts' hellos reflect
            self.store.update_inventory(session_id, {"os_tuning": os_tuning})

    def hello(self, session_id: int, hello: Event) -> None:
        """The agent's ``hello`` names the data file (random read) or the database."""
        if not kit_for(self.plan.workload.kind).uses_database:
            self._data_file(session_id, hello)
        else:
            self._database(session_id, hello)

    def _data_file(self, session_id: int, hello: Event) -> None:
        """Add the random-read data file's storage to the inventory (its mount, filesystem,
        device and disks, as for a database's data directory)."""
        record = hello.get("random_read")
        path = str(record.get("file") or "") if isinstance(record, dict) else ""
        if not path or self.shell is None:
            return
        folder = path.rsplit("/", 1)[0] or "/"
        try:
            storage = data_directory_storage(self.shell, folder)
            storage["directory"] = storage.pop("data_directory", folder)
            storage["file"] = path
            self.store.update_inventory(session_id, {"data_file": storage})
        except (SSHError, OSError) as exc:
            self.store.add_log(session_id, "warning", f"no data file placement: {exc}")

    def _database_here(self) -> bool:
        """Whether the database runs on the inventoried host (its host as the driver sees it:
        a socket folder, localhost, or the host's own name)."""
        if self.plan.target.kind == "demo":
            return True
        host = (self.plan.target.host or "").split(",")[0].strip()
        names = {"localhost", "127.0.0.1", "::1", self.hostname or ""}
        return not host or host.startswith(("/", "@")) or host in names - {""}

    def _database(self, session_id: int, hello: Event) -> None:
        """Add the database to the session's inventory: engine, version, data directory, and
        the mount, filesystem, device and disks under it when it is on the inventoried host."""
        record = database_record(hello)
        directory = record["data_directory"]
        try:
            if not isinstance(directory, str) or not directory:
                record["notes"] = ["the server did not say where its data directory is"]
            elif self.shell is None or not self._database_here():
                record["notes"] = [
                    "the database server is not on the inventoried host: the storage under its"
                    " data directory is not known"
                ]
            else:
                record.update(data_directory_storage(self.shell, directory))
            self.store.update_inventory(session_id, {"database": record})
        except (SSHError, OSError) as exc:
            self.store.add_log(session_id, "warning", f"no database placement: {exc}")
