"""SQL Server's proposals: seed 003's settings (with max server memory from the server's RAM)
or a preset file of server and database options, each with its reason, as rows to diff."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from bench_gui.engines.mssql.option_names import (
    DATABASE_MAXDOP,
    DATABASE_OPTIONS,
    RECOVERY_MODEL,
    SERVER_MAXDOP,
    TARGET_RECOVERY,
)
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.tuning_terms import PresetError, TunedSetting


@dataclass
class MssqlProposal:
    """A preset as rows to diff: the server options by their sp_configure names, then the
    database options (:data:`DATABASE_OPTIONS`), each with its reason."""

    title: str
    preset: settings.Preset
    version: str = ""  # the server's release, when known
    notes: list[str] = field(default_factory=list)

    @property
    def settings(self) -> list[TunedSetting]:
        source = f"preset {self.preset.name}"
        rows = [
            TunedSetting(name, str(value), self.preset.reasons.get(name, ""), source)
            for name, value in self.preset.server.items()
        ]
        if self.preset.recovery_model is not None:
            rows.append(
                TunedSetting(
                    RECOVERY_MODEL,
                    self.preset.recovery_model,
                    self.preset.reasons.get(RECOVERY_MODEL, ""),
                    source,
                )
            )
        if self.preset.target_recovery_time_s is not None:
            rows.append(
                TunedSetting(
                    TARGET_RECOVERY,
                    str(self.preset.target_recovery_time_s),
                    self.preset.reasons.get(TARGET_RECOVERY, "") or "seconds",
                    source,
                )
            )
        maxdop = self.preset.database_maxdop
        if maxdop is not None or SERVER_MAXDOP in self.preset.server:
            rows.append(
                TunedSetting(
                    DATABASE_MAXDOP,
                    str(maxdop or 0),
                    self.preset.reasons.get(DATABASE_MAXDOP, "")
                    or "0: the database follows the server's max degree of parallelism (a"
                    " database-scoped MAXDOP other than 0 would override it here)",
                    source,
                )
            )
        return rows

    def values(self) -> dict[str, str]:
        return {s.name: s.value for s in self.settings}

    def edited(self, name: str, value: str) -> MssqlProposal:
        """This proposal with ``name`` set to ``value`` by hand; PresetError naming it when
        the value is no whole number (a recovery model is checked by the diff)."""
        p = self.preset
        server, recovery, target = dict(p.server), p.recovery_model, p.target_recovery_time_s
        maxdop = p.database_maxdop
        text = value.strip()
        if name == RECOVERY_MODEL:
            recovery = text.upper()
        else:
            try:
                number = int(text)
            except ValueError:
                raise PresetError(f"{name}: {value!r} is not a whole number") from None
            if name == TARGET_RECOVERY:
                target = number
            elif name == DATABASE_MAXDOP:
                maxdop = number
            else:
                server[name] = number
        reasons = {**p.reasons, name: "edited by hand"}
        preset = settings.Preset(p.name, server, recovery, target, reasons, p.notes, maxdop)
        return MssqlProposal(self.title, preset, self.version, list(self.notes))

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "engine": "mssql",
            "version": self.version,
            "settings": [s.to_dict() for s in self.settings],
            "notes": list(self.notes),
        }


def seed_003_proposal(ram_mb: int | None = None, version: str = "") -> MssqlProposal:
    """Seed 003's settings (:func:`~bench_gui.engines.mssql.shared.settings.seed_003_preset`); max
    server memory only when the server's RAM is known."""
    preset = settings.seed_003_preset(ram_mb)
    notes = [
        *preset.notes,
        "Cost threshold for parallelism: left as it is: with MAXDOP 1 no plan goes parallel,"
        " so its value changes nothing.",
        "Trace flags: none. Seed 003 names none, and 1117/1118 (once advised for this load)"
        " are SQL Server's default behaviour since 2016.",
    ]
    if ram_mb is None:
        notes.append(
            "max server memory is left alone: the server's RAM is unknown (give --ram, or let"
            " the login read sys.dm_os_sys_info: VIEW SERVER STATE)"
        )
    return MssqlProposal(preset.name, preset, version, notes)


_PRESET_KEYS: Final = {"engine", "name", "title", "server", "database", "reasons", "notes"}


def load_mssql_preset(path: Path) -> MssqlProposal:
    """A user's SQL Server preset file (TOML)::

        engine = "mssql"
        title = "Lab box"
        [server]                       # sp_configure name = whole number
        "max degree of parallelism" = 1
        [database]
        recovery_model = "SIMPLE"      # SIMPLE, FULL or BULK_LOGGED
        target_recovery_time = 60      # seconds
        maxdop = 0                     # the database's own MAXDOP (0: follow the server)
        [reasons]                      # optional, by setting name
        "max degree of parallelism" = "short transactions"

    PresetError naming the file and the field for anything else."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PresetError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{path}: not valid TOML: {exc}") from exc

    def bad(what: str) -> PresetError:
        return PresetError(f"{path}: {what}")

    if data.get("engine") != "mssql":
        raise bad('not a SQL Server preset: it needs engine = "mssql"')
    unknown = sorted(set(data) - _PRESET_KEYS)
    if unknown:
        raise bad(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_PRESET_KEYS))})")
    server: dict[str, int] = {}
    for name, value in dict(data.get("server") or {}).items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(f"server.{name!r} = {value!r}: expected a whole number")
        server[str(name).strip()] = value
    database = dict(data.get("database") or {})
    extra = sorted(set(database) - {"recovery_model", "target_recovery_time", "maxdop"})
    if extra:
        raise bad(f"database: unknown key(s) {', '.join(extra)}")
    recovery = database.get("recovery_model")
    if recovery is not None and str(recovery).upper() not in settings.RECOVERY_MODELS:
        raise bad(
            f"database.recovery_model {recovery!r}: expected one of"
            f" {', '.join(settings.RECOVERY_MODELS)}"
        )
    target = database.get("target_recovery_time")
    if target is not None and (
        isinstance(target, bool) or not isinstance(target, int) or not 0 <= target <= 86_400
    ):
        raise bad(f"database.target_recovery_time {target!r}: expected 0..86400 seconds")
    maxdop = database.get("maxdop")
    if maxdop is not None and (
        isinstance(maxdop, bool) or not isinstance(maxdop, int) or not 0 <= maxdop <= 32767
    ):
        raise bad(f"database.maxdop {maxdop!r}: expected 0..32767 (0: follow the server)")
    if not server and recovery is None and target is None and maxdop is None:
        raise bad("sets nothing: give [server] options or [database] options")
    reasons = {str(k).strip(): str(v) for k, v in dict(data.get("reasons") or {}).items()}
    title = str(data.get("title") or data.get("name") or path.stem)
    preset = settings.Preset(
        title,
        server,
        None if recovery is None else str(recovery).upper(),
        target,
        {n: reasons.get(n, f"preset file {path.name}") for n in [*server, *DATABASE_OPTIONS]},
        tuple(str(n) for n in data.get("notes") or ()),
        maxdop,
    )
    return MssqlProposal(title, preset, notes=list(preset.notes))
