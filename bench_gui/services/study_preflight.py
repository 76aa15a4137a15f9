"""What a study needs that the file alone cannot say, checked before anything runs.

Loading a study checks every field (:mod:`bench_gui.core.study`); this checks the world the
file points at, for each system still to measure, the way its run will meet it:

- its database answers from here (the connection the tuning and the identity read use), and
  its tuning preset resolves against that server;
- its SSH driver host is a saved target that answers, with a host key already accepted;
- a random-read system on this machine finds fio and runs as root (cgroups, dropped caches),
  and its data file's folder exists (unless its layout makes it);
- its storage layout's devices are on the layout's host and free: the Storage page's own
  discovery and guards, read-only, so a device in use or carrying a signature is said now
  rather than after the systems before it have run;

and for the whole study, the prices the brief's economics will use: a price for each system's
devices (the study's or the store's list), prices that look like slips, mixed currencies, a
power meter with no power price.

A *problem* stops the study's run (it would fail there); a *note* is what the brief will lack
or doubt. Nothing is changed anywhere: no session, no setting, no device.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from bench_gui.core.economics import DevicePrice, find_price
from bench_gui.core.price_checks import currency_doubt, price_doubt
from bench_gui.core.study_model import Study, System
from bench_gui.store import SessionStore
from bench_gui.workloads.base import kit_for

PROBLEM: Final = "problem"
NOTE: Final = "note"
# Seconds an SSH driver host gets to answer the check.
SSH_TIMEOUT_S: Final = 10.0


@dataclass(frozen=True)
class Finding:
    """One thing found: where in the study file, how bad (problem or note), and what."""

    path: str
    level: str
    text: str

    @property
    def problem(self) -> bool:
        return self.level == PROBLEM


def preflight(
    study: Study,
    folder: Path,
    store: SessionStore,
    measured: Callable[[System], bool] = lambda _s: False,
) -> list[Finding]:
    """Everything found for ``study`` (file in ``folder``); systems ``measured`` already are
    skipped by the run, so only their prices are looked at."""
    found: list[Finding] = []
    for system in study.systems:
        if measured(system):
            continue
        found += _driver_host(system)
        if kit_for(system.plan.workload.kind).uses_database:
            found += _database(system, folder)
        else:  # fio reads a file: no database to reach
            found += _random_read(system)
        found += _layout(system, folder)
    found += _prices(study, store)
    return found


def check_unmeasured(study: Study, folder: Path, store: SessionStore) -> list[Finding]:
    """:func:`preflight` for the systems a run would measure (those without a valid session):
    what ``study check`` says, and what ``study run`` and the Study page look at first."""
    from bench_gui.services.study_run import sessions_of

    measured = {system.key for system, session in sessions_of(store, study) if session}
    return preflight(study, folder, store, lambda system: system.key in measured)


def problems_text(found: list[Finding]) -> str:
    """The problems that would stop a run, one per line with its path (empty: none)."""
    return "\n".join(f"{f.path}: {f.text}" for f in found if f.problem)


# -- the systems -----------------------------------------------------------------------------


def _driver_host(system: System) -> list[Finding]:
    """Each SSH driver host of the system: saved, and answering with an accepted key."""
    from bench_gui.remote.connection import connect
    from bench_gui.remote.errors import SSHError, UnknownHostKey
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.remote.targets import TARGETS_FILE, get_target
    from bench_gui.store.paths import data_dir

    driver = system.plan.driver
    names = list(dict.fromkeys([*([driver.target] if driver.target else []), *driver.targets]))
    found = []
    for name in names:
        path = f"systems.{system.key}.driver"
        try:
            target = get_target(name, data_dir() / TARGETS_FILE)
            with connect(target, None, SSH_TIMEOUT_S, known_hosts=data_dir() / APP_KNOWN_HOSTS):
                pass
        except UnknownHostKey as exc:
            found.append(
                Finding(path, PROBLEM, f"the driver host {name}'s key is not accepted yet"
                        f" ({exc.fingerprint_sha256}): bench-gui target check {name}")
            )  # fmt: skip
        except (SSHError, OSError) as exc:
            found.append(Finding(path, PROBLEM, f"the driver host {name} does not answer: {exc}"))
    return found


def _database(system: System, folder: Path) -> list[Finding]:
    """The system's database answers from here, and its tuning preset resolves on it."""
    plan = system.plan
    if plan.target.kind == "demo":
        return []  # the embedded server is started by the run
    from bench_gui.engines.tuning_terms import PresetError
    from bench_gui.remote.db_tuner import TuningError
    from bench_gui.remote.errors import SSHError
    from bench_gui.services.study_run import profile_path, tuning_proposal
    from bench_gui.services.tuning import connection_for_plan

    key, profile = system.key, system.tuning.profile
    # With an SSH driver host the run reaches the database from there: failing from here is
    # only a problem when the tuning (applied from here) needs it.
    remote = bool(plan.driver.target or plan.driver.targets)
    level = PROBLEM if profile or not remote else NOTE
    users = max(plan.workload.virtual_users, default=0) or None
    try:
        conn = connection_for_plan(plan.target, users)
    except (TuningError, SSHError, OSError) as exc:
        return [Finding(f"systems.{key}.target", level, f"the database does not answer: {exc}")]
    try:
        try:
            conn.tuner.facts()
        except (TuningError, SSHError, OSError) as exc:
            return [Finding(f"systems.{key}.target", level, f"the database does not answer: {exc}")]
        if profile:
            try:
                proposal = tuning_proposal(conn, profile_path(folder, profile))
            except (PresetError, TuningError, SSHError, OSError, ValueError) as exc:
                return [Finding(f"systems.{key}.tuning.profile", PROBLEM, str(exc))]
            return _memory(conn, proposal, f"systems.{key}.tuning.profile", profile)
    finally:
        conn.close()
    return []


def _memory(conn: Any, proposal: Any, path: str, profile: str) -> list[Finding]:
    """The profile's memory settings against the server's RAM: a preset written for a larger
    machine (seed 000's 30GB shared_buffers) stops a smaller server from starting, which the
    run would find only after its rollback."""
    from bench_gui.remote.db_tuner import TuningError
    from bench_gui.remote.errors import SSHError
    from bench_gui.services.tuning import engine_kit, server_facts

    try:
        ram = server_facts(conn).ram_bytes
    except (TuningError, SSHError, OSError):
        ram = None
    if not ram:
        return []
    values = {s.name: s.value for s in proposal.settings}
    kit = engine_kit(conn.engine)
    check = kit.face("memory_warnings")
    fatal = check(values, ram, fatal_only=True)
    instead = f" (for this machine: profile = {kit.profile!r}, or a preset file of your own)"
    found = [
        Finding(path, PROBLEM, f"{profile}: {name} {why}{instead}") for name, why in fatal.items()
    ]
    for name, why in check(values, ram).items():
        if name not in fatal:
            found.append(Finding(path, NOTE, f"{profile}: {name} {why}"))
    return found


def _random_read(system: System) -> list[Finding]:
    """fio, root and the data file's folder, when fio reads on this machine."""
    plan = system.plan
    if plan.driver.target or plan.driver.targets:
        return []  # the driver host's own fio; the agent says what it lacks there
    key = system.key
    found = []
    if shutil.which("fio") is None:
        found.append(Finding(f"systems.{key}", PROBLEM, "fio is not installed on this machine"))
    if os.geteuid() != 0:
        found.append(
            Finding(f"systems.{key}", PROBLEM, "random reads need root here (a memory cgroup,"
                    " dropping the page cache): run the study as root")
        )  # fmt: skip
    file = plan.workload.file
    if file and not system.storage.layout:
        parent = Path(file).expanduser().parent
        if not parent.is_dir():
            found.append(
                Finding(f"systems.{key}.workload.file", PROBLEM, f"its folder {parent} does not"
                        " exist")
            )  # fmt: skip
    return found


def _layout(system: System, folder: Path) -> list[Finding]:
    """The layout's devices on its host and free to build on (discovery and guards only)."""
    storage = system.storage
    if not storage.layout:
        return []
    from bench_gui.core.storage import load_layout
    from bench_gui.core.study import layout_path
    from bench_gui.remote.errors import SSHError
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.remote.storage import StorageError, check_layout, discover, open_runner
    from bench_gui.remote.targets import TARGETS_FILE
    from bench_gui.store.paths import data_dir

    path = f"systems.{system.key}.storage.layout"
    layout = load_layout(layout_path(folder, storage.layout))  # checked when the study loaded
    try:
        runner = open_runner(
            layout.target,
            targets_file=data_dir() / TARGETS_FILE,
            known_hosts=data_dir() / APP_KNOWN_HOSTS,
        )
    except (SSHError, OSError) as exc:
        return [Finding(path, PROBLEM, f"its host {layout.target} does not answer: {exc}")]
    try:
        refusals = check_layout(
            layout, discover(runner), "apply", accept_unreadable=storage.accept_unreadable
        )
    except (StorageError, SSHError, OSError) as exc:
        return [Finding(path, PROBLEM, f"its devices cannot be read on {layout.target}: {exc}")]
    finally:
        runner.close()
    return [Finding(path, PROBLEM, f"{r.field_name}: {r.reason}") for r in refusals]


# -- the prices ------------------------------------------------------------------------------


def _prices(study: Study, store: SessionStore) -> list[Finding]:
    """The brief's economics: every system's devices priced, no slip, one currency."""
    found = []
    for i, entry in enumerate(study.prices.devices):
        path = f"prices.device[{i}]"
        for doubt in (price_doubt(entry.unit_price, "unit price", entry.currency),
                      currency_doubt(entry.currency)):  # fmt: skip
            if doubt:
                found.append(Finding(path, NOTE, doubt))
    power = study.prices.power
    if power is not None:
        for doubt in (price_doubt(power.per_kwh, "price per kWh", power.currency),
                      currency_doubt(power.currency)):  # fmt: skip
            if doubt:
                found.append(Finding("prices.power", NOTE, doubt))
    listed: list[DevicePrice] = [*study.prices.devices, *store.device_prices()]
    currencies: dict[str, str] = {}
    for system in study.systems:
        storage = system.storage
        path = f"systems.{system.key}.storage"
        if not storage.devices:
            if "array_prices" in kit_for(study.workload_kind).compare_inputs:
                found.append(
                    Finding(path, NOTE, "no devices named: the brief prices no array for this"
                            " system")
                )  # fmt: skip
            continue
        price = find_price(storage.devices, listed)
        if price is None:
            found.append(
                Finding(f"{path}.devices", NOTE, f"no price for {storage.devices!r} in the"
                        " study's [[prices.device]] or the price list: the brief's array cost"
                        " leaves this system out")
            )  # fmt: skip
        else:
            currencies[system.key] = price.currency.upper()
        if not storage.count:
            found.append(
                Finding(f"{path}.count", NOTE, "how many devices is not said: the array cost"
                        " cannot be computed")
            )  # fmt: skip
    if len(set(currencies.values())) > 1:
        each = ", ".join(f"{k} {c}" for k, c in currencies.items())
        found.append(
            Finding("prices", NOTE, f"the systems' devices are priced in different currencies"
                    f" ({each}): their costs are shown but not compared")
        )  # fmt: skip
    metered = any(s.plan.power.meter not in ("", "none") for s in study.systems)
    if metered and power is None and not store.power_price_entries():
        found.append(
            Finding("prices.power", NOTE, "a power meter is read but no power price is given:"
                    " the brief has watts but no energy cost")
        )  # fmt: skip
    return found


__all__ = ["NOTE", "PROBLEM", "Finding", "preflight"]
