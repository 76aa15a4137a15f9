"""What the app does with an SSH target: save it with its secrets, remove it, test it, collect
its inventory.

A target's definition lives in ``targets.toml`` (:mod:`bench_gui.remote.targets`) and its
secrets in the OS keyring under its name (:mod:`bench_gui.remote.secrets`); saving and removing
keep the two together. Every call here blocks: the GUI runs the remote ones (a test, an
inventory) in a :class:`~bench_gui.gui.tasks.Task`. paramiko cannot be interrupted in the
middle of a handshake; every remote call has a timeout, so cancelling such a task only marks
its outcome as unwanted.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_gui.core.engine import EngineNotFound, get_engine
from bench_gui.core.plan_model import Plan
from bench_gui.engines.registry import UnknownEngine, kit_for
from bench_gui.remote.connection import DEFAULT_TIMEOUT, connect
from bench_gui.remote.errors import SecretStoreError, SSHError, TargetError
from bench_gui.remote.inventory import collect_inventory
from bench_gui.remote.secrets import (
    SECRET_KINDS,
    TargetSecrets,
    database_password,
    forget_target,
    get_secret,
    set_secret,
)
from bench_gui.remote.ssh_transport import TargetReport, check_target
from bench_gui.remote.targets import SSHTarget, add_target, load_targets, remove_target

log = logging.getLogger(__name__)


class NameTaken(TargetError):
    """Another saved target has the name a new (or renamed) target asks for."""


# ---- saving and removing -------------------------------------------------------------------


def save_target(
    target: SSHTarget,
    path: Path,
    previous: str | None = None,
    typed: Mapping[str, str] | None = None,
) -> None:
    """Save ``target`` to ``path`` and its ``typed`` secrets to the keyring.

    ``previous`` is the saved target being edited (None: a new one); when the name changed,
    the target is renamed and its stored secrets move with it. Raises :class:`NameTaken`,
    :class:`~bench_gui.remote.errors.SSHError` (a bad file, the keyring) or OSError.
    """
    typed = dict(typed or {})
    renamed = previous is not None and previous != target.name
    existing = load_targets(path)
    if target.name in existing and (previous is None or renamed):
        raise NameTaken(f"A target named {target.name!r} exists already: choose another name")
    if renamed and previous is not None:
        # Secrets are filed under the target's name: they move with it.
        for kind in SECRET_KINDS:
            value = get_secret(previous, kind)
            if value and kind not in typed:
                set_secret(target.name, kind, value)
    for kind, value in typed.items():
        set_secret(target.name, kind, value)
    add_target(target, path, replace=previous is not None and not renamed)
    if renamed and previous is not None:
        remove_target(previous, path)
        forget_target(previous)


def remove_saved_target(name: str, path: Path) -> list[str]:
    """Remove a saved target and forget its secrets; returns the secret kinds forgotten."""
    remove_target(name, path)
    return forget_target(name)


# ---- testing and inventory -----------------------------------------------------------------


@dataclass(frozen=True)
class SecretsRequest:
    """Secrets typed in a form (not saved yet) over those in the keyring under ``stored_as``.

    Resolved in the worker thread, since a keyring may block (an unlock prompt).
    """

    typed: tuple[tuple[str, str], ...] = ()
    stored_as: str = ""

    def resolve(self, target: SSHTarget) -> TargetSecrets | None:
        typed = dict(self.typed)
        stored_as = self.stored_as or target.name
        if not typed and stored_as == target.name:
            return None  # connect() looks each one up in the keyring when it needs it
        values: dict[str, str | None] = {}
        for kind in SECRET_KINDS:
            values[kind] = typed.get(kind) or get_secret(stored_as, kind)
        return TargetSecrets(**values)


@dataclass(frozen=True)
class DatabaseCheck:
    """The database to check from the target: a conninfo and its password (or none), and the
    plan's target kind, whose engine kit checks it (its ``database_check`` face)."""

    conninfo: str
    password: str | None
    kind: str


def database_check(plan: Plan | None) -> tuple[DatabaseCheck | None, str]:
    """The plan's database as a connection test should reach it, or why it is skipped."""
    if plan is None:
        return None, "no valid plan on the Workload page"
    target = plan.target
    if target.kind == "demo":
        return None, "the current plan uses the embedded demo, which runs on this machine"
    try:
        engine = get_engine(target.kind)
    except EngineNotFound as exc:
        return None, str(exc)
    try:
        password = database_password(target).value
    except SecretStoreError as exc:
        return None, str(exc)
    # The maintenance database: it exists before the benchmark's schema is built.
    conninfo = engine.conninfo(target, target.admin_database or target.database)
    return DatabaseCheck(conninfo, password, target.kind), ""


def check_connection(
    target: SSHTarget,
    known_hosts: Path,
    secrets: SecretsRequest | None = None,
    database: DatabaseCheck | None = None,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> TargetReport:
    """Blocking: :func:`check_target` with the app's known-hosts file (for a worker thread).

    Once the target answered, the database is checked from it over a second connection by its
    engine kit (``database_check``): whether it answers, its release and the user's rights."""
    resolved = (secrets or SecretsRequest()).resolve(target)
    report = check_target(
        target, None, accept_fingerprint, timeout, secrets=resolved, known_hosts=known_hosts
    )
    if database is None or not report.connected:
        return report
    try:
        check = kit_for(database.kind).face("database_check")
        session = connect(target, accept_fingerprint, timeout, secrets=resolved,
                          known_hosts=known_hosts)  # fmt: skip
        with session:
            if database.password:
                session.redact.add(database.password)
            ok, detail = check(
                session, database.conninfo, database.password, target.python, database.kind
            )
            detail = session.redact(detail)
    except SSHError as exc:
        ok, detail = False, str(exc)
    except (UnknownEngine, KeyError) as exc:
        ok, detail = None, f"not checked: {exc}"
    report.database, report.database_ok = detail, ok
    if ok:
        report._good(f"the database answers from {target.host}: {detail}")
    elif ok is None:
        report.lines.append(f"note: the database was {detail}")
    else:
        report._bad(f"the database is not reachable from {target.host}: {detail}")
    return report


def inventory(
    target: SSHTarget,
    known_hosts: Path,
    secrets: SecretsRequest | None = None,
    accept_fingerprint: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """Blocking: connect and :func:`collect_inventory` (for a worker thread)."""
    session = connect(
        target,
        accept_fingerprint,
        timeout,
        secrets=(secrets or SecretsRequest()).resolve(target),
        known_hosts=known_hosts,
    )
    with session:
        return collect_inventory(session)


__all__ = [
    "DatabaseCheck",
    "NameTaken",
    "SecretsRequest",
    "check_connection",
    "database_check",
    "inventory",
    "remove_saved_target",
    "save_target",
]
