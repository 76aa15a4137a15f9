"""Reading a study file: every field checked at load, each problem named by its path.

Each system's own sections (``[systems.KEY.target]``, ``driver``, ``os``, the workload's
``file``) with the study's shared ``[workload]``, ``[power]`` and ``[monitor]`` make an
ordinary plan, checked by :func:`bench_gui.core.plan.plan_from_dict` itself: a study is never
checked by a second validator. A plan problem is named by where it is in the study file (a
system's ``systems.ssd.target.host``, the shared ``workload.virtual_users`` once). All problems
are reported at once, as a plan's are.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from bench_gui.core.economics import DevicePrice, PowerPrice
from bench_gui.core.plan import plan_from_dict, plan_text
from bench_gui.core.plan_checks import check_bool, check_str, shown
from bench_gui.core.plan_model import PlanError
from bench_gui.core.saturation import DEFAULT_MIN_GAIN_PCT, StopConditions
from bench_gui.core.study_model import (
    MAX_SHORT_NAME,
    MAX_STUDY_BYTES,
    MAX_STUDY_KEY,
    REPORT_FORMATS,
    SYSTEM_WORKLOAD_FIELDS,
    Prices,
    ReportChoices,
    Storage,
    Study,
    StudyError,
    System,
    Tuning,
)
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for, kits

Problems = list[tuple[str, str]]

TOP_FIELDS: tuple[str, ...] = ("name", "key", "baseline", "notes", "workload", "power")
TOP_FIELDS += ("monitor", "stop", "prices", "report", "systems")
SYSTEM_FIELDS = ("name", "target", "driver", "os", "workload", "storage", "tuning")
# The plan sections a system brings itself; the shared ones come from the study's top level.
SYSTEM_PLAN_SECTIONS = ("target", "driver", "os")
SHARED_PLAN_SECTIONS = ("workload", "power", "monitor")
KEY_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
MAX_SYSTEM_KEY = 20
PAPERS = ("", "a4", "letter")
LATENCIES = ("all", "new-order")
CURRENCY_RE = re.compile(r"^[A-Z]{3}$")


def _table(problems: Problems, path: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        problems.append((path, "must be a table"))
        return {}
    return value


def _unknown(problems: Problems, path: str, data: dict[str, Any], known: tuple[str, ...]) -> None:
    for key in data:
        if key not in known:
            problems.append((f"{path}.{key}" if path else key, "unknown field"))


def _number(
    problems: Problems, path: str, value: Any, low: float, *, above: bool = False
) -> float | None:
    """A number >= low (> low with ``above``); None (and a problem) otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        problems.append((path, f"must be a number, got {shown(value)}"))
        return None
    if value < low or (above and value == low) or value == float("inf"):
        word = "above" if above else "at least"
        problems.append((path, f"must be {word} {low:g}, got {shown(value)}"))
        return None
    return float(value)


def _key(problems: Problems, path: str, value: Any, longest: int) -> str:
    text = check_str(problems, path, value)
    if text and (not KEY_RE.match(text) or len(text) > longest):
        problems.append(
            (
                path,
                f"must be lower-case letters, digits, - or _ (at most {longest}), got"
                f" {shown(text)}",
            )
        )
        return ""
    return text


def _slug(name: str) -> str:
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:MAX_STUDY_KEY].strip("-") or "study"


def _plan_problem(system: str, name: str) -> str:
    """Where a plan's field is in the study file."""
    head = name.split(".", 1)[0].split("[", 1)[0]
    if head in SHARED_PLAN_SECTIONS:
        return name
    if head == "name":
        return f"systems.{system}.name"
    return f"systems.{system}.{name}"


def _system(
    problems: Problems, key: str, data: dict[str, Any], shared: dict[str, Any]
) -> System | None:
    path = f"systems.{key}"
    _unknown(problems, path, data, SYSTEM_FIELDS)
    name = check_str(problems, f"{path}.name", data.get("name", key)).strip() or key
    plan_data: dict[str, Any] = {"name": name}
    for section in SYSTEM_PLAN_SECTIONS:
        if section in data:
            plan_data[section] = data[section]
    workload = dict(shared.get("workload", {}))
    own = _table(problems, f"{path}.workload", data.get("workload", {}))
    for field_name, value in own.items():
        if field_name not in SYSTEM_WORKLOAD_FIELDS:
            problems.append(
                (
                    f"{path}.workload.{field_name}",
                    "a system sets only where its data is ("
                    + ", ".join(SYSTEM_WORKLOAD_FIELDS)
                    + "): the sweep is the study's [workload], shared by every system",
                )
            )
        else:
            workload[field_name] = value
    plan_data["workload"] = workload
    for section in ("power", "monitor"):
        if section in shared:
            plan_data[section] = shared[section]
    plan = None
    try:
        plan = plan_from_dict(plan_data)
    except PlanError as exc:
        for name_, reason in exc.problems:
            where = _plan_problem(key, name_)
            if (where, reason) not in problems:
                problems.append((where, reason))

    storage = _storage(problems, f"{path}.storage", data.get("storage", {}))
    tuning_data = _table(problems, f"{path}.tuning", data.get("tuning", {}))
    _unknown(problems, f"{path}.tuning", tuning_data, ("profile", "restart"))
    tuning = Tuning(
        profile=check_str(problems, f"{path}.tuning.profile", tuning_data.get("profile", "")),
        restart=check_bool(problems, f"{path}.tuning.restart", tuning_data.get("restart", True)),
    )
    if tuning.profile and plan is not None and not kit_for(plan.workload.kind).uses_database:
        one = kit_for(plan.workload.kind).one_session
        problems.append((f"{path}.tuning", f"{one} has no database to tune"))
    if plan is None:
        return None
    return System(key=key, name=name, plan=plan, storage=storage, tuning=tuning, raw=data)


def _storage(problems: Problems, path: str, value: Any) -> Storage:
    data = _table(problems, path, value)
    known = ("devices", "count", "raid", "filesystem", "note", "layout", "confirm")
    _unknown(problems, path, data, known + ("accept_unreadable_processes",))
    storage = Storage(
        devices=check_str(problems, f"{path}.devices", data.get("devices", "")).strip(),
        raid=check_str(problems, f"{path}.raid", data.get("raid", "")).strip(),
        filesystem=check_str(problems, f"{path}.filesystem", data.get("filesystem", "")).strip(),
        note=check_str(problems, f"{path}.note", data.get("note", "")).strip(),
        layout=check_str(problems, f"{path}.layout", data.get("layout", "")).strip(),
        accept_unreadable=check_bool(
            problems, f"{path}.accept_unreadable_processes",
            data.get("accept_unreadable_processes", False),
        ),
    )  # fmt: skip
    confirm = data.get("confirm", [])
    if not isinstance(confirm, list) or not all(isinstance(c, str) for c in confirm):
        problems.append((f"{path}.confirm", "must be a list of device names"))
    else:
        storage.confirm = list(confirm)
    if storage.layout and not storage.confirm:
        problems.append(
            (f"{path}.confirm", "is required with a layout: its devices, typed, since building"
             " it erases them")
        )  # fmt: skip
    elif storage.confirm and not storage.layout:
        problems.append((f"{path}.confirm", "only with a layout"))
    if "count" in data:
        count = data["count"]
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10_000:
            problems.append(
                (f"{path}.count", f"must be a whole number 1-10000, got {shown(count)}")
            )
        else:
            storage.count = count
    return storage


def _stop(problems: Problems, value: Any) -> StopConditions:
    data = _table(problems, "stop", value)
    _unknown(problems, "stop", data, ("min_gain_pct", "max_avg_ms", "max_p999_ms"))
    gain = DEFAULT_MIN_GAIN_PCT
    if "min_gain_pct" in data:
        gain = _number(problems, "stop.min_gain_pct", data["min_gain_pct"], 0) or 0.0
    limits: dict[str, float | None] = {}
    for name in ("max_avg_ms", "max_p999_ms"):
        limits[name] = (
            _number(problems, f"stop.{name}", data[name], 0, above=True) if name in data else None
        )
    return StopConditions(gain, limits["max_avg_ms"], limits["max_p999_ms"])


def _currency(problems: Problems, path: str, value: Any) -> str:
    text = check_str(problems, path, value)
    if text and not CURRENCY_RE.match(text):
        problems.append((path, f"must be a three-letter currency code (USD), got {shown(text)}"))
        return "USD"
    return text or "USD"


def _date(problems: Problems, path: str, value: Any) -> str:
    text = check_str(problems, path, value).strip()
    if text:
        from datetime import date

        try:
            date.fromisoformat(text)
        except ValueError:
            problems.append((path, f"must be a date YYYY-MM-DD, got {shown(text)}"))
            return ""
    return text


def _prices(problems: Problems, value: Any) -> Prices:
    data = _table(problems, "prices", value)
    _unknown(problems, "prices", data, ("device", "power"))
    prices = Prices()
    entries = data.get("device", [])
    if not isinstance(entries, list):
        problems.append(("prices.device", "must be an array of tables ([[prices.device]])"))
        entries = []
    fields = ("device", "unit_price", "currency", "date", "source")
    for i, entry in enumerate(entries):
        path = f"prices.device[{i}]"
        item = _table(problems, path, entry)
        if not item:
            continue
        _unknown(problems, path, item, fields)
        device = check_str(problems, f"{path}.device", item.get("device", "")).strip()
        if not device:
            problems.append((f"{path}.device", "is required: the device model it prices"))
        price = _number(problems, f"{path}.unit_price", item.get("unit_price"), 0, above=True)
        currency = _currency(problems, f"{path}.currency", item.get("currency", "USD"))
        when = _date(problems, f"{path}.date", item.get("date", ""))
        source = check_str(problems, f"{path}.source", item.get("source", ""))
        if device and price is not None:
            prices.devices.append(DevicePrice(device, price, currency, when, source))
    if "power" in data:
        power = _table(problems, "prices.power", data["power"])
        _unknown(problems, "prices.power", power, ("per_kwh", "currency", "date", "source"))
        per_kwh = _number(problems, "prices.power.per_kwh", power.get("per_kwh"), 0, above=True)
        currency = _currency(problems, "prices.power.currency", power.get("currency", "USD"))
        when = _date(problems, "prices.power.date", power.get("date", ""))
        source = check_str(problems, "prices.power.source", power.get("source", ""))
        if per_kwh is not None:
            prices.power = PowerPrice(per_kwh, currency, when, source)
    return prices


def _short_names(problems: Problems, value: Any, systems: list[str]) -> dict[str, str]:
    """``[report.short_names]``: system key -> the short name the brief's headers use."""
    data = _table(problems, "report.short_names", value)
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for key, text in data.items():
        path = f"report.short_names.{key}"
        if key not in systems:
            problems.append(
                (path, f"is not a system of the study ({', '.join(systems) or 'none'})")
            )
            continue
        name = " ".join(check_str(problems, path, text).split())
        if not name:
            problems.append((path, "must not be empty"))
        elif len(name) > MAX_SHORT_NAME:
            problems.append(
                (path, f"is {len(name)} characters; a table header takes {MAX_SHORT_NAME} at most")
            )
        elif name.lower() in seen:
            problems.append((path, f"is the short name of {seen[name.lower()]} too"))
        else:
            seen[name.lower()] = key
            out[key] = name
    return out


def _order(problems: Problems, value: Any, kind: str) -> list[str]:
    """``report.order``: the brief's sections in the seed's order, each once."""
    known = kit_for(kind).brief_sections if kind in {k.name for k in kits()} else ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(("report.order", f"must be a list of sections ({', '.join(known)})"))
        return []
    for i, key in enumerate(value):
        if key not in known:
            problems.append(
                (f"report.order[{i}]", f"{shown(key)} is not a section of this brief: one of"
                 f" {', '.join(known)}")
            )  # fmt: skip
        elif key in value[:i]:
            problems.append((f"report.order[{i}]", f"{shown(key)} is named twice"))
    return list(value)


def _report(problems: Problems, value: Any, kind: str, systems: list[str]) -> ReportChoices:
    data = _table(problems, "report", value)
    known: tuple[str, ...] = ("title", "output", "formats", "paper", "latency", "appendix")
    known += ("author", "logo", "date", "target_ops", "dataset", "reproduce", "short_names")
    known += ("order",)
    _unknown(problems, "report", data, known)
    out = ReportChoices()
    out.title = check_str(problems, "report.title", data.get("title", ""))
    out.output = check_str(problems, "report.output", data.get("output", out.output)).strip()
    if not out.output or "/" in out.output or "\\" in out.output or out.output.startswith("."):
        problems.append(("report.output", "must be a file name without a folder (brief)"))
    formats = data.get("formats", out.formats)
    if not isinstance(formats, list) or not formats:
        problems.append(("report.formats", f"must be a list of {', '.join(REPORT_FORMATS)}"))
    else:
        bad = [f for f in formats if f not in REPORT_FORMATS]
        if bad:
            problems.append(
                ("report.formats", f"{shown(bad)}: each is one of {', '.join(REPORT_FORMATS)}")
            )
        else:
            out.formats = list(dict.fromkeys(formats))
    out.paper = check_str(problems, "report.paper", data.get("paper", "")).lower()
    if out.paper not in PAPERS:
        problems.append(("report.paper", f"must be a4 or letter, got {shown(out.paper)}"))
    out.latency = check_str(problems, "report.latency", data.get("latency", "all"))
    if out.latency not in LATENCIES:
        problems.append(("report.latency", f"must be all or new-order, got {shown(out.latency)}"))
    out.appendix = check_bool(problems, "report.appendix", data.get("appendix", False))
    out.reproduce = check_bool(problems, "report.reproduce", data.get("reproduce", True))
    out.author = check_str(problems, "report.author", data.get("author", "")).strip()
    out.logo = check_str(problems, "report.logo", data.get("logo", "")).strip()
    out.date = _date(problems, "report.date", data.get("date", ""))
    if "order" in data:
        out.order = _order(problems, data["order"], kind)
    if "short_names" in data:
        out.short_names = _short_names(problems, data["short_names"], systems)
    for owner in kits():
        for name in sorted(owner.report_options - kit_for(kind).report_options):
            if name in data:
                problems.append((f"report.{name}", f"only for {owner.one_session}"))
    if "target_ops" in data:
        out.target_ops = _number(problems, "report.target_ops", data["target_ops"], 0, above=True)
    if "dataset" in data:
        out.dataset = check_str(problems, "report.dataset", data["dataset"]).strip()
        from bench_gui.wire.fio_sizes import parse_size

        try:
            parse_size(out.dataset)
        except ValueError as exc:
            problems.append(("report.dataset", str(exc)))
    return out


def _check_shared(problems: Problems, shared: dict[str, Any]) -> None:
    """The shared sections checked as a plan's, when no system makes a plan of them."""
    try:
        plan_from_dict(dict(shared))
    except PlanError as exc:
        for name, reason in exc.problems:
            head = name.split(".", 1)[0].split("[", 1)[0]
            if head in SHARED_PLAN_SECTIONS and (name, reason) not in problems:
                problems.append((name, reason))


def study_from_dict(data: dict[str, Any]) -> Study:
    """Build and check a study; raise :class:`StudyError` naming every bad field."""
    problems: Problems = []
    _unknown(problems, "", data, TOP_FIELDS)
    name = check_str(problems, "name", data.get("name", "")).strip()
    if not name:
        problems.append(("name", "is required: the study's title"))
    key = _key(problems, "key", data.get("key", _slug(name)), MAX_STUDY_KEY) or "study"
    notes = check_str(problems, "notes", data.get("notes", ""))
    shared: dict[str, Any] = {}
    for section in SHARED_PLAN_SECTIONS:
        if section in data:
            shared[section] = _table(problems, section, data[section])
    if "workload" not in data:
        problems.append(("workload", "is required: the workload and sweep every system runs"))

    systems_data = _table(problems, "systems", data.get("systems", {}))
    systems: list[System] = []
    for sys_key, sys_data in systems_data.items():
        path = f"systems.{sys_key}"
        if not KEY_RE.match(sys_key) or len(sys_key) > MAX_SYSTEM_KEY:
            problems.append(
                (
                    path,
                    f"a system's key is lower-case letters, digits, - or _ (at most"
                    f" {MAX_SYSTEM_KEY})",
                )
            )
            continue
        table = _table(problems, path, sys_data)
        system = _system(problems, sys_key, table, shared)
        if system is not None:
            systems.append(system)
    if len(systems_data) < 1:
        problems.append(("systems", "is required: one [systems.KEY] table per system compared"))
        _check_shared(problems, shared)
    names = [s.name for s in systems]
    for system in systems:
        if names.count(system.name) > 1:
            problems.append((f"systems.{system.key}.name", "is another system's name too"))
    kinds = {s.plan.workload.kind for s in systems}
    if len(kinds) > 1:
        problems.append(("workload.kind", "every system runs the one workload"))

    baseline = check_str(problems, "baseline", data.get("baseline", ""))
    if not baseline and systems_data:
        baseline = next(iter(systems_data))
    if baseline and baseline not in systems_data:
        problems.append(
            ("baseline", f"must be one of the systems ({', '.join(systems_data)}), got"
             f" {shown(baseline)}")
        )  # fmt: skip
    kind = next(iter(kinds)) if kinds else DEFAULT_WORKLOAD
    stop = _stop(problems, data.get("stop", {}))
    study_kit = kit_for(kind)
    if "stop" in data and "stop_conditions" not in study_kit.compare_inputs:
        problems.append(
            ("stop", f"{study_kit.one_session} has no stop condition ({study_kit.step_noun}s)")
        )
    prices = _prices(problems, data.get("prices", {}))
    report = _report(problems, data.get("report", {}), kind, list(systems_data))
    if problems:
        raise StudyError(problems)
    return Study(name, key, systems, baseline, stop, prices, report, notes)


def study_from_toml(text: str, where: str = "study") -> Study:
    """A study from TOML text; syntax errors and bad values both raise :class:`StudyError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError([(where, f"is not valid TOML: {exc}")]) from exc
    except (ValueError, RecursionError) as exc:
        raise StudyError([(where, f"is not a usable study: {type(exc).__name__}")]) from exc
    study = study_from_dict(data)
    study.text = text
    return study


def load_study(path: Path) -> Study:
    """Read a study file; a missing file, bad TOML and bad values raise :class:`StudyError`."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_STUDY_BYTES + 1)
    except OSError as exc:
        raise StudyError([(str(path), f"cannot be read: {exc.strerror}")]) from exc
    try:
        text = plan_text(raw, str(path))
    except PlanError as exc:
        raise StudyError(exc.problems) from exc
    study = study_from_toml(text, str(path))
    check_layouts(study, path.parent)
    return study


def layout_path(study_folder: Path, name: str) -> Path:
    """A system's layout file: as written when absolute, else beside the study file."""
    given = Path(name).expanduser()
    return given if given.is_absolute() else study_folder / given


def check_layouts(study: Study, folder: Path) -> None:
    """Each system's layout readable and valid, and its devices exactly those confirmed."""
    from bench_gui.core.storage import LayoutError, load_layout, normalize_device

    problems: Problems = []
    for system in study.systems:
        storage = system.storage
        if not storage.layout:
            continue
        where = f"systems.{system.key}.storage"
        try:
            layout = load_layout(layout_path(folder, storage.layout))
        except LayoutError as exc:
            reasons = "; ".join(f"{name}: {why}" for name, why in exc.problems)
            problems.append((f"{where}.layout", f"is not a usable layout: {reasons}"))
            continue
        except OSError as exc:
            problems.append((f"{where}.layout", f"cannot be read: {exc.strerror or exc}"))
            continue
        typed = {normalize_device(name) for name in storage.confirm}
        wanted = {normalize_device(name) for name in layout.device_paths}
        if typed != wanted:
            problems.append(
                (f"{where}.confirm", f"must name exactly the layout's devices ("
                 f"{', '.join(sorted(wanted))}), got {shown(storage.confirm)}")
            )  # fmt: skip
    if problems:
        raise StudyError(problems)


__all__ = ["StudyError", "load_study", "study_from_dict", "study_from_toml"]
