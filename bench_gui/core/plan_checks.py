"""The checks of a plan's values, of its ``[target]`` and of its ``[workload]`` sections.

Every bad value is reported with the field it belongs to and why it is wrong, all of them at
once, so a user fixes a plan in one pass: each check appends ``(field, reason)`` to the list of
problems and goes on with a usable value, and :func:`bench_gui.core.plan.plan_from_dict` raises
one :class:`~bench_gui.core.plan_model.PlanError` at the end. The ``[driver]`` checks live in
:mod:`bench_gui.core.plan_driver_checks`, the ``[power]``, ``[monitor]`` and ``[os]`` ones in
:mod:`bench_gui.core.plan_host_checks`.
"""

from __future__ import annotations

import re
import reprlib
from typing import Any

from bench_gui.core.plan_model import (
    BUILD_MODES,
    MAX_RAM_MULTIPLE,
    MAX_STEPS,
    MAX_VUS_PER_STEP,
    MIN_MEMORY_LIMIT,
    ODBC_FIELDS,
    PASSWORD_ENV_NAMES,
    PROFILES,
    RANDOM_READ_ENGINES,
    TLS_MODES,
    Target,
)
from bench_gui.engines.registry import target_kind, target_kinds
from bench_gui.wire.fio_sizes import MIB, format_size, is_power_of_two, parse_size
from bench_gui.wire.run_config import Workload

# A saved SSH target's name (the driver hosts, os.host).
TARGET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def shown(value: Any) -> str:
    """A value as an error message shows it: short, one line, whatever the value is."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    try:
        return reprlib.repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} that cannot be shown"


def password_env_problem(name: str) -> str:
    """Why ``target.password_env`` may not name this variable ('' if it may)."""
    if not name or PASSWORD_ENV_NAMES.match(name):
        return ""
    return (
        f"{shown(name)} is not allowed: only PGPASSWORD or a BENCH_GUI_* variable (its value"
        " is sent to the plan's host, so a plan may not pick any variable of your"
        " environment); or keep the password in the OS keyring: bench-gui target db-password"
    )


def check_int(problems: list[tuple[str, str]], name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        problems.append((name, f"must be a whole number, got {shown(value)}"))
        return low
    if not low <= value <= high:
        problems.append((name, f"must be between {low} and {high}, got {shown(value)}"))
        return low
    return value


def check_float(
    problems: list[tuple[str, str]], name: str, value: Any, low: float, high: float
) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append((name, f"must be a number of seconds, got {shown(value)}"))
        return low
    if not low <= value <= high:  # NaN too
        problems.append((name, f"must be between {low:g} and {high:g} seconds, got {shown(value)}"))
        return low
    return float(value)


def check_bool(problems: list[tuple[str, str]], name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        problems.append((name, f"must be true or false, got {shown(value)}"))
        return False
    return value


def check_str(problems: list[tuple[str, str]], name: str, value: Any) -> str:
    if not isinstance(value, str):
        problems.append((name, f"must be text, got {shown(value)}"))
        return ""
    return value


def _check_number(
    problems: list[tuple[str, str]], name: str, value: Any, low: float, high: float
) -> float:
    """A plain number (not seconds) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append((name, f"must be a number, got {shown(value)}"))
        return low
    if not low <= value <= high:  # NaN too
        problems.append((name, f"must be between {low:g} and {high:g}, got {shown(value)}"))
        return low
    return float(value)


def _check_size(
    problems: list[tuple[str, str]], name: str, value: Any, low: int, what: str
) -> int | None:
    """Bytes of a size text ("512MiB") or a whole number of bytes, at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        problems.append((name, f'must be a size like "512MiB", got {shown(value)}'))
        return None
    try:
        size = parse_size(value)
    except ValueError as exc:
        problems.append((name, str(exc)))
        return None
    if size < low:
        problems.append((name, f"{shown(value)} is less than {format_size(low)}: {what}"))
        return None
    return size


def _number_text(text: str) -> float | int | str:
    """``"0.25"`` -> 0.25, ``"4"`` -> 4; a size text stays text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def parse_dataset_sizes(value: Any) -> list[float | int | str]:
    """``[0.25, 1, "512MiB"]`` (or the same as comma-separated text): RAM multiples and
    absolute sizes, each checked; raise ValueError naming the bad item."""
    items: list[Any]
    if isinstance(value, str):
        items = [_number_text(v.strip()) for v in value.split(",") if v.strip()]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"must be a list of RAM multiples or sizes, got {shown(value)}")
    if not items:
        raise ValueError("is empty: name at least one dataset size")
    if len(items) > MAX_STEPS:
        raise _too_many_steps(len(items))
    out: list[float | int | str] = []
    seen: dict[tuple[str, float], Any] = {}
    for number, item in enumerate(items, 1):
        where = f"item {number} ({shown(item)})"
        key: tuple[str, float]
        if isinstance(item, bool):
            raise ValueError(f"{where} is neither a RAM multiple nor a size")
        if isinstance(item, int | float):
            if not 0 < item <= MAX_RAM_MULTIPLE:  # NaN too
                raise ValueError(
                    f"{where}: a RAM multiple must be above 0 and at most {MAX_RAM_MULTIPLE}"
                )
            key = ("x", float(item))
            out.append(item)
        elif isinstance(item, str):
            try:
                size = parse_size(item)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            if size < MIB:
                raise ValueError(f"{where} is less than 1 MiB: too small a dataset")
            key = ("b", float(size))
            out.append(item.strip())
        else:
            raise ValueError(f"{where} is neither a RAM multiple nor a size")
        if key in seen:
            raise ValueError(f"{where} repeats {shown(seen[key])}: each size once")
        seen[key] = item
    return out


def check_random_read(problems: list[tuple[str, str]], wl: Workload, data: dict[str, Any]) -> None:
    """The fields of a ``kind = "random_read"`` workload (seed 004 driven by fio)."""
    try:
        wl.dataset_sizes = parse_dataset_sizes(data.get("dataset_sizes", wl.dataset_sizes))
    except ValueError as exc:
        problems.append(("workload.dataset_sizes", str(exc)))
    block = data.get("block_size", wl.block_size)
    size = _check_size(problems, "workload.block_size", block, 512, "the smallest read is 512 B")
    if size is not None:
        if not is_power_of_two(size) or size > MIB:
            problems.append(
                ("workload.block_size", f"must be a power of two up to 1 MiB, got {shown(block)}")
            )
        wl.block_size = str(block).strip()
    wl.jobs = check_int(problems, "workload.jobs", data.get("jobs", wl.jobs), 1, 256)
    wl.ioengine = check_str(problems, "workload.ioengine", data.get("ioengine", wl.ioengine))
    if wl.ioengine not in RANDOM_READ_ENGINES:
        problems.append(("workload.ioengine", f"must be one of {', '.join(RANDOM_READ_ENGINES)}"))
    wl.direct = check_bool(problems, "workload.direct", data.get("direct", wl.direct))
    if wl.direct and wl.ioengine == "mmap":
        problems.append(
            (
                "workload.direct",
                "mmap reads through the page cache: direct I/O needs ioengine psync or libaio",
            )
        )
    if wl.ioengine == "libaio" and not wl.direct:
        problems.append(
            (
                "workload.ioengine",
                "libaio needs direct = true (buffered libaio reads are synchronous: use psync"
                " for buffered reads)",
            )
        )
    wl.zipf_theta = _check_number(
        problems, "workload.zipf_theta", data.get("zipf_theta", wl.zipf_theta), 0.001, 100
    )
    if wl.zipf_theta == 1.0:
        problems.append(
            ("workload.zipf_theta", "1 is not allowed (fio's generator divides by 1 - theta)")
        )
    wl.warmup_s = check_float(
        problems, "workload.warmup_s", data.get("warmup_s", wl.warmup_s), 0, 86_400
    )
    wl.measure_s = check_float(
        problems, "workload.measure_s", data.get("measure_s", wl.measure_s), 1, 86_400
    )
    wl.file = check_str(problems, "workload.file", data.get("file", wl.file)).strip()
    if wl.file and (not wl.file.startswith("/") or wl.file.endswith("/")):
        problems.append(("workload.file", f"must be an absolute path of a file, got {wl.file!r}"))
    elif any(c in wl.file for c in "\0\n\r"):
        problems.append(("workload.file", "must not hold NUL or line breaks"))
    wl.drop_caches = check_bool(
        problems, "workload.drop_caches", data.get("drop_caches", wl.drop_caches)
    )
    limit = data.get("memory_limit", wl.memory_limit)
    wl.memory_limit = ""
    if limit != "":
        why = "fio and its libraries alone need about 60 MiB"
        if _check_size(problems, "workload.memory_limit", limit, MIN_MEMORY_LIMIT, why):
            wl.memory_limit = str(limit).strip()
    wl.raw_iops_s = check_float(
        problems, "workload.raw_iops_s", data.get("raw_iops_s", wl.raw_iops_s), 0, 3600
    )


def _too_many_users(number: int) -> ValueError:
    return ValueError(
        f"{shown(number) if number.bit_length() > 64 else format(number, ',')} virtual users in"
        f" one step: at most {MAX_VUS_PER_STEP} (each is a database connection of its own)"
    )


def _too_many_steps(count: int) -> ValueError:
    return ValueError(
        f"{count:,} sweep steps: at most {MAX_STEPS} (each step is a full ramp-up and measured"
        " window; more would run for days)"
    )


def parse_vu_list(value: Any) -> list[int]:
    """Accept ``[8, 16]``, ``"8,16,24"`` or ``"8-64/8"`` (start-stop/step); raise ValueError.

    The limits (:data:`MAX_VUS_PER_STEP`, :data:`MAX_STEPS`) are checked before a range is
    expanded, so a typo of a few digits never builds a list of millions.
    """
    if isinstance(value, str):
        text = value.replace(" ", "")
        if not text:
            raise ValueError("is empty")
        if "-" in text and "," not in text:
            span, _, step_text = text.partition("/")
            start_text, _, stop_text = span.partition("-")
            try:
                start, stop = int(start_text), int(stop_text)
                step = int(step_text) if step_text else 1
            except ValueError:
                raise ValueError(f"{shown(value)} is not a range like 8-64/8") from None
            if step <= 0 or stop < start:
                raise ValueError(f"{shown(value)} is not a rising range")
            if start < 1:
                raise ValueError(f"{start} is not a positive user count")
            if stop > MAX_VUS_PER_STEP:
                raise _too_many_users(stop)
            count = (stop - start) // step + 1
            if count > MAX_STEPS:
                raise _too_many_steps(count)
            return list(range(start, stop + 1, step))
        items: list[Any] = text.split(",")
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"must be a list of user counts, got {shown(value)}")
    if len(items) > MAX_STEPS:
        raise _too_many_steps(len(items))
    result: list[int] = []
    for item in items:
        if isinstance(item, bool):
            raise ValueError(f"{shown(item)} is not a whole number")
        if isinstance(item, int):
            number = item
        elif isinstance(item, str):
            try:
                number = int(item)
            except ValueError:
                raise ValueError(f"{shown(item)} is not a whole number") from None
        else:
            raise ValueError(f"{shown(item)} is not a whole number")
        if number < 1:
            raise ValueError(f"{shown(number)} is not a positive user count")
        if number > MAX_VUS_PER_STEP:
            raise _too_many_users(number)
        result.append(number)
    if not result:
        raise ValueError("is empty")
    return result


def plugin_engine_kinds() -> tuple[str, ...]:
    """The target kinds third-party engines add: the names of the installed
    ``bench_gui.engines`` entry points no engine kit serves (read from the packages'
    metadata; nothing of them is imported, so a plugin that fails to load is still a kind here
    and its error is reported where it is loaded)."""
    from importlib.metadata import entry_points

    served = {t.name for t in target_kinds()}
    names = sorted({ep.name for ep in entry_points(group="bench_gui.engines")})
    return tuple(n for n in names if n not in served)


def check_odbc_target(
    problems: list[tuple[str, str]], target: Target, data: dict[str, Any]
) -> None:
    """The fields of an ODBC target (its kit's :class:`TargetKind` says ``odbc``), and none of
    them elsewhere."""
    spec = target_kind(target.kind)
    odbc = spec is not None and spec.odbc
    for key in ODBC_FIELDS:
        value = check_str(problems, f"target.{key}", data.get(key, ""))
        if key not in data:
            continue
        if not odbc:
            kinds = ", ".join(t.name for t in target_kinds() if t.odbc)
            problems.append((f"target.{key}", f"only for ODBC targets ({kinds})"))
            continue
        setattr(target, key, value)
        if key in ("odbc_driver", "dsn") and any(c in value for c in ";{}=\n"):
            problems.append((f"target.{key}", f"{shown(value)} may not contain ; {{ }} or ="))
    if spec is None or not odbc:
        return
    if "sslmode" in data:
        problems.append(("target.sslmode", "a PostgreSQL field: use target.tls"))
    if target.tls not in TLS_MODES:
        problems.append(("target.tls", "must be one of off, on, verify (or empty)"))
    modes = spec.authentication
    if target.authentication not in modes:
        problems.append(
            (
                "target.authentication",
                f"must be one of {', '.join(m for m in modes if m)} for {target.kind}",
            )
        )
    if not target.host and not target.dsn:
        problems.append(("target.host", f"is required for a {target.kind} target (or a dsn)"))


def check_tproc_c(problems: list[tuple[str, str]], wl: Workload, wl_data: dict[str, Any]) -> None:
    """The fields of a TPROC-C workload."""
    wl.warehouses = check_int(
        problems, "workload.warehouses", wl_data.get("warehouses", wl.warehouses), 1, 100_000
    )
    try:
        wl.virtual_users = parse_vu_list(wl_data.get("virtual_users", wl.virtual_users))
    except ValueError as exc:
        problems.append(("workload.virtual_users", str(exc)))
    wl.rampup_s = check_float(
        problems, "workload.rampup_s", wl_data.get("rampup_s", wl.rampup_s), 0, 86_400
    )
    wl.duration_s = check_float(
        problems, "workload.duration_s", wl_data.get("duration_s", wl.duration_s), 1, 86_400
    )
    for key in ("all_warehouses", "keying_thinking", "reset_between_steps", "drop_ends_sessions"):
        setattr(
            wl, key, check_bool(problems, f"workload.{key}", wl_data.get(key, getattr(wl, key)))
        )
    wl.build = check_str(problems, "workload.build", wl_data.get("build", wl.build))
    if wl.build not in BUILD_MODES:
        problems.append(("workload.build", f"must be one of {', '.join(BUILD_MODES)}"))
    wl.build_workers = check_int(
        problems, "workload.build_workers", wl_data.get("build_workers", wl.build_workers), 0, 256
    )
    wl.profile = check_str(problems, "workload.profile", wl_data.get("profile", wl.profile))
    if wl.profile not in PROFILES:
        problems.append(
            (
                "workload.profile",
                f"{shown(wl.profile)} is not a profile: one of {', '.join(PROFILES)}"
                " (spec: TPC-C as written; hammerdb: HammerDB 6.0's own transactions)",
            )
        )
    wl.processes = check_int(
        problems, "workload.processes", wl_data.get("processes", wl.processes), 0, 256
    )
    wl.db_stall_limit_s = check_float(
        problems,
        "workload.db_stall_limit_s",
        wl_data.get("db_stall_limit_s", wl.db_stall_limit_s),
        1,
        86_400,
    )
