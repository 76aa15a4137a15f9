"""Run plans: what to run, where, and how, read from and written to TOML.

The module the rest of bench-gui imports plans from: it reads a plan (from a dictionary, TOML
text or a file) and re-exports the model (:mod:`bench_gui.core.plan_model`) and the public
checks (:mod:`bench_gui.core.plan_checks`, :mod:`bench_gui.core.plan_driver_checks`,
:mod:`bench_gui.core.plan_host_checks`), so importers name one module. Every bad value is
reported with the field it belongs to and why it is wrong, all of them at once, so a user fixes a
plan in one pass.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from bench_gui.core.plan_checks import (
    check_int,
    check_odbc_target,
    check_str,
    password_env_problem,
    plugin_engine_kinds,
)
from bench_gui.core.plan_driver_checks import (
    check_driver_hosts,
)
from bench_gui.core.plan_host_checks import (
    check_os,
    check_power,
)
from bench_gui.core.plan_model import (
    MAX_PLAN_BYTES,
    Driver,
    Plan,
    PlanError,
    Target,
)
from bench_gui.engines.registry import target_kind, target_kinds
from bench_gui.wire.run_config import Workload
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for, kits, uses_database
from bench_gui.workloads.contract import WorkloadKit
from bench_gui.workloads.options import read_options


def _field_owner(key: str) -> WorkloadKit | None:
    """The workload kit whose plan fields include ``key``, if one does."""
    for kit in kits():
        if key in kit.face("plan_fields"):
            return kit
    return None


def _engine_label(kind: str) -> str:
    """The engine's name as a person reads it ("PostgreSQL"), or the kind if no kit serves it."""
    from bench_gui.engines.registry import UnknownEngine, kit_for

    try:
        return kit_for(kind).label
    except UnknownEngine:
        return kind


def plan_from_dict(data: dict[str, Any]) -> Plan:
    """Build and validate a plan; raise :class:`PlanError` naming every bad field."""
    problems: list[tuple[str, str]] = []
    known_top = {"name", "target", "workload", "driver", "power", "monitor", "os", "notes"}
    for key in data:
        if key not in known_top:
            problems.append((key, "unknown section or field"))

    plan = Plan()
    plan.name = check_str(problems, "name", data.get("name", plan.name)) or plan.name
    plan.notes = check_str(problems, "notes", data.get("notes", ""))

    target_data = data.get("target", {})
    if not isinstance(target_data, dict):
        problems.append(("target", "must be a table"))
        target_data = {}
    target = plan.target
    for key in target_data:
        if key not in Target.__dataclass_fields__:
            problems.append((f"target.{key}", "unknown field"))
    target.kind = check_str(problems, "target.kind", target_data.get("kind", target.kind))
    known = target_kind(target.kind)  # None: no kit serves it (a plugin's kind, or a typo)
    third_party = known is None and target.kind in plugin_engine_kinds()
    if known is None and not third_party:
        kinds = (*(t.name for t in target_kinds()), *plugin_engine_kinds())
        problems.append(("target.kind", f"must be one of {', '.join(kinds)}"))
    if known is not None:
        target.port, target.user, target.admin_database = (
            known.port,
            known.user,
            known.admin_database,
        )
    for key in ("host", "user", "database", "admin_database", "password_env", "sslmode"):
        setattr(
            target,
            key,
            check_str(problems, f"target.{key}", target_data.get(key, getattr(target, key))),
        )
    if password_env_problem(target.password_env):
        problems.append(("target.password_env", password_env_problem(target.password_env)))
    target.port = check_int(problems, "target.port", target_data.get("port", target.port), 1, 65535)
    # Every server is reached by its host, ODBC ones by a host or a DSN (check_odbc_target).
    served = known is not None or third_party
    odbc = known is not None and known.odbc  # host or DSN: check_odbc_target
    if served and target.kind != "demo" and not odbc and not target.host:
        problems.append(("target.host", f"is required for a {_engine_label(target.kind)} target"))
    check_odbc_target(problems, target, target_data)
    if not target.database or not target.database.replace("_", "a").isalnum():
        problems.append(("target.database", "must be a plain name (letters, digits, _)"))
    elif target.database == target.admin_database:
        problems.append(("target.database", "must differ from target.admin_database"))

    wl_data = data.get("workload", {})
    if not isinstance(wl_data, dict):
        problems.append(("workload", "must be a table"))
        wl_data = {}
    wl = plan.workload
    wl.kind = check_str(problems, "workload.kind", wl_data.get("kind", wl.kind))
    workloads = [kit.name for kit in kits()]
    kind_known = wl.kind in workloads
    if not kind_known:
        problems.append(("workload.kind", f"must be one of {', '.join(workloads)}"))
        wl.kind = DEFAULT_WORKLOAD
    for key in wl_data:
        if key not in Workload.__dataclass_fields__:
            problems.append((f"workload.{key}", "unknown field"))
        elif (owner := _field_owner(key)) is not None and owner.name != wl.kind:
            problems.append((f"workload.{key}", owner.foreign_field(wl.kind)))
    kit = kit_for(wl.kind)
    if kind_known and "options" in wl_data:  # the kit's own fields, checked by it
        wl.options = read_options(problems, kit, wl_data["options"])
    kit.face("plan_checks")(problems, plan, data)
    if kit.default_name and "name" not in data:
        plan.name = kit.default_name

    driver_data = data.get("driver", {})
    if not isinstance(driver_data, dict):
        problems.append(("driver", "must be a table"))
        driver_data = {}
    for key in driver_data:
        if key not in Driver.__dataclass_fields__:
            problems.append((f"driver.{key}", "unknown field"))
    plan.driver.target = check_str(problems, "driver.target", driver_data.get("target", ""))
    if plan.driver.target and target.kind == "demo" and uses_database(wl.kind):
        problems.append(("driver.target", "the embedded demo runs on this machine only"))
    check_driver_hosts(problems, plan, driver_data)

    check_power(problems, plan, data.get("power", {}), data.get("monitor", {}))
    check_os(problems, plan, data.get("os", {}))

    if problems:
        raise PlanError(problems)
    return plan


def plan_text(raw: bytes, where: str) -> str:
    """A plan file's bytes as text: UTF-8 (a leading BOM is allowed) or :class:`PlanError`."""
    if len(raw) > MAX_PLAN_BYTES:
        raise PlanError(
            [(where, f"is larger than {MAX_PLAN_BYTES // 1024} KiB: not a plan (one is a few KiB)")]
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise PlanError(
            [
                (
                    where,
                    f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}): save it"
                    " as UTF-8",
                )
            ]
        ) from None


def load_plan(path: Path) -> Plan:
    """Read a TOML plan file; syntax errors and bad values both raise :class:`PlanError`."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise PlanError([(str(path), f"cannot be read: {exc.strerror}")]) from exc
    return plan_from_toml(plan_text(raw, str(path)), str(path))


def plan_from_toml(text: str, where: str = "plan") -> Plan:
    """A plan from TOML text; syntax errors and bad values both raise :class:`PlanError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError([(where, f"is not valid TOML: {exc}")]) from exc
    except ValueError as exc:  # an integer of thousands of digits
        reason = "a number has thousands of digits" if "digits" in str(exc) else str(exc)
        raise PlanError([(where, f"is not a usable plan: {reason}")]) from exc
    except RecursionError:
        raise PlanError(
            [(where, "is not a usable plan: its arrays or tables nest too deeply")]
        ) from None
    return plan_from_dict(data)
