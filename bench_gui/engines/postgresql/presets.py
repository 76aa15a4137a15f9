"""Named tuning presets: the seed briefs' settings, user presets, and mapping across versions.

A preset is a set of PostgreSQL settings written for one release (the seed briefs tuned 9.4).
Applied to another release, each setting is mapped, and the mapping says what it did:
``checkpoint_segments`` became ``max_wal_size`` in 9.5 (the 9.5 release notes' equivalent:
3 × checkpoint_segments × 16MB), ``effective_io_concurrency`` changed meaning in 13 (the 13
release notes' conversion: round(Σ n=1..N of N/n)), ``wal_keep_segments`` became
``wal_keep_size`` in 13; settings a release does not have are left out with a note.

User presets are TOML documents (:func:`preset_to_toml`, :func:`preset_from_toml`); the files
themselves are kept by :mod:`bench_gui.store.user_presets`. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import tomli_w

from bench_gui.engines.postgresql.pgtune import (
    MB_KB,
    PgVersion,
    Proposal,
    format_kb,
    to_base_units,
)
from bench_gui.engines.tuning_terms import PresetError, TunedSetting

PRESET_NAME_RE: Final = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_SETTING_NAME_RE: Final = re.compile(r"^[a-z_][a-z0-9_.]*$")

# First release that has a setting (only those a preset or PgTune may name).
SINCE: Final = {
    "huge_pages": PgVersion(9, 4),
    "max_worker_processes": PgVersion(9, 4),
    "autovacuum_work_mem": PgVersion(9, 4),
    "wal_log_hints": PgVersion(9, 4),
    "max_wal_size": PgVersion(9, 5),
    "min_wal_size": PgVersion(9, 5),
    "wal_compression": PgVersion(9, 5),
    "max_parallel_workers_per_gather": PgVersion(9, 6),
    "min_parallel_relation_size": PgVersion(9, 6),
    "max_parallel_workers": PgVersion(10),
    "min_parallel_table_scan_size": PgVersion(10),
    "max_parallel_maintenance_workers": PgVersion(11),
    "jit": PgVersion(11),
    "wal_keep_size": PgVersion(13),
    "maintenance_io_concurrency": PgVersion(13),
    "hash_mem_multiplier": PgVersion(13),
    "io_combine_limit": PgVersion(17),
    "io_method": PgVersion(18),
    "io_workers": PgVersion(18),
}
# The release that no longer has a setting.
REMOVED_IN: Final = {
    "checkpoint_segments": PgVersion(9, 5),
    "min_parallel_relation_size": PgVersion(10),
    "replacement_sort_tuples": PgVersion(11),
    "default_with_oids": PgVersion(12),
    "wal_keep_segments": PgVersion(13),
    "operator_precedence_warning": PgVersion(14),
    "stats_temp_directory": PgVersion(15),
    "vacuum_defer_cleanup_age": PgVersion(16),
    "old_snapshot_threshold": PgVersion(17),
    "db_user_namespace": PgVersion(17),
}
WAL_SEGMENT_MB: Final = 16  # the default WAL segment size, which the old settings counted in


def exists_in(name: str, version: PgVersion) -> bool:
    """Whether a release has a setting (as far as the tables above know; others: yes)."""
    since = SINCE.get(name)
    removed = REMOVED_IN.get(name)
    return (since is None or version >= since) and (removed is None or version < removed)


def eic_13(old: int) -> int:
    """effective_io_concurrency from before 13 in 13's meaning: round(Σ n=1..N of N/n)."""
    return round(sum(old / n for n in range(1, old + 1))) if old > 0 else 0


def _mb(value: str, unit: str = "MB") -> float:
    return to_base_units(value, unit)


def map_settings(
    settings: Mapping[str, str],
    written_for: PgVersion | None,
    target: PgVersion,
    source: str = "preset",
) -> tuple[list[TunedSetting], list[str]]:
    """Map settings written for one release to another; (settings with rules, notes)."""
    origin = written_for or target
    out: list[TunedSetting] = []
    notes: list[str] = []
    names = set(settings)
    where = f"as written for {origin}" if written_for else "as given"

    def keep(name: str, value: str, rule: str = "") -> None:
        out.append(TunedSetting(name, value, rule or f"{source}: {value} ({where})", source))

    for name, value in settings.items():
        if name == "checkpoint_segments" and target >= PgVersion(9, 5):
            if "max_wal_size" in names:
                notes.append("checkpoint_segments: dropped (the preset sets max_wal_size too)")
                continue
            segs = int(float(value))
            mb = 3 * segs * WAL_SEGMENT_MB
            keep(
                "max_wal_size",
                format_kb(mb * MB_KB),
                f"{source}: checkpoint_segments {segs} on {origin}; 9.5 replaced it with"
                f" max_wal_size, about 3 × checkpoint_segments × 16MB = 3 × {segs} × 16MB"
                f" = {format_kb(mb * MB_KB)}",
            )
            continue
        if name in ("max_wal_size", "min_wal_size") and target < PgVersion(9, 5):
            if name == "min_wal_size" or "checkpoint_segments" in names:
                notes.append(f"{name}: not in PostgreSQL {target} (since 9.5)")
                continue
            size_mb = _mb(value)
            segs = max(1, math.ceil(size_mb / (3 * WAL_SEGMENT_MB)))
            keep(
                "checkpoint_segments",
                str(segs),
                f"{source}: max_wal_size {value}; before 9.5 that is checkpoint_segments ="
                f" ⌈max_wal_size / (3 × 16MB)⌉ = {segs}",
            )
            continue
        if name == "wal_keep_segments" and target >= PgVersion(13):
            segs = int(float(value))
            keep(
                "wal_keep_size",
                format_kb(segs * WAL_SEGMENT_MB * MB_KB),
                f"{source}: wal_keep_segments {segs}; 13 replaced it with wal_keep_size ="
                f" segments × 16MB = {format_kb(segs * WAL_SEGMENT_MB * MB_KB)}",
            )
            continue
        if name == "wal_keep_size" and target < PgVersion(13):
            segs = math.ceil(_mb(value) / WAL_SEGMENT_MB)
            keep(
                "wal_keep_segments",
                str(segs),
                f"{source}: wal_keep_size {value}; before 13: wal_keep_segments ="
                f" ⌈size / 16MB⌉ = {segs}",
            )
            continue
        renamed = {
            ("min_parallel_relation_size", True): "min_parallel_table_scan_size",
            ("min_parallel_table_scan_size", False): "min_parallel_relation_size",
        }.get((name, target >= PgVersion(10)))
        if renamed is not None:
            keep(renamed, value, f"{source}: {name} {value}, renamed {renamed} in 10")
            continue
        if name == "effective_io_concurrency":
            old = int(float(value))
            if origin < PgVersion(13) <= target:
                new = eic_13(old)
                rule = (
                    f"{source}: {old} on {origin}; 13 counts it differently: round(Σ n=1..{old}"
                    f" of {old}/n) = {new}"
                )
                if new > 1000:
                    rule += ", capped at the maximum 1000"
                    new = 1000
                keep(name, str(new), rule)
                continue
            if target < PgVersion(13) <= origin:
                back = next((n for n in range(0, 1001) if eic_13(n) >= old), 1000)
                keep(
                    name,
                    str(back),
                    f"{source}: {old} on {origin}; before 13 the same concurrency is the"
                    f" smallest N with round(Σ n=1..N of N/n) ≥ {old}: {back}",
                )
                continue
        if name == "wal_compression" and target < PgVersion(15):
            low = value.strip().lower()
            if low in ("lz4", "zstd", "pglz"):
                if target < PgVersion(9, 5):
                    notes.append(f"wal_compression: not in PostgreSQL {target} (since 9.5)")
                else:
                    keep(name, "on", f"{source}: {value}; before 15 only on (pglz) or off")
                continue
        if not exists_in(name, target):
            since = SINCE.get(name)
            removed = REMOVED_IN.get(name)
            if since is not None and target < since:
                notes.append(f"{name}: not in PostgreSQL {target} (since {since})")
            else:
                notes.append(f"{name}: removed in PostgreSQL {removed}; left out")
            continue
        keep(name, value)
    return out, notes


# -- presets -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """Named PostgreSQL settings, written for one release (None: any)."""

    name: str
    title: str
    settings: dict[str, str]
    version: PgVersion | None = None
    description: str = ""
    source: str = ""
    builtin: bool = False

    def proposal(self, version: PgVersion) -> Proposal:
        """The preset mapped to ``version``, each setting with its rule."""
        label = f"preset {self.name}"
        settings, notes = map_settings(self.settings, self.version, version, label)
        return Proposal(
            title=self.title or self.name, settings=settings, version=version, notes=notes
        )


def _seed_94(rpc: str, eic: str) -> dict[str, str]:
    """Table 7 of seed 000 / table 1 of seed 001, in postgresql.conf spelling."""
    return {
        "default_statistics_target": "100",
        "maintenance_work_mem": "2GB",
        "effective_cache_size": "72GB",
        "work_mem": "768MB",
        "shared_buffers": "30GB",
        "checkpoint_segments": "4096",
        "checkpoint_timeout": "5min",
        "checkpoint_completion_target": "0.8",
        "seq_page_cost": "0.5",
        "random_page_cost": rpc,
        "bgwriter_delay": "15ms",
        "bgwriter_lru_maxpages": "1000",
        "effective_io_concurrency": eic,
    }


_SEED_HOST = "128 GB RAM, 2× Xeon E5-2690 v3 (24 cores), CentOS 7, PostgreSQL 9.4"
BUILTIN_PRESETS: Final[dict[str, Preset]] = {
    p.name: p
    for p in (
        Preset(
            name="micron-s650dc-ssd",
            title="Seed 000: S650DC SAS SSD RAID 10 (PgTune + brief)",
            settings=_seed_94("2.0", "1000"),
            version=PgVersion(9, 4),
            description=f"The tuned values of the SSD runs; {_SEED_HOST}.",
            source="seeds/000 (Micron S650DC brief), Table 7, S650DC column",
            builtin=True,
        ),
        Preset(
            name="micron-15k-hdd",
            title="Seed 000: 16× 15K SAS HDD RAID 10 (PgTune + brief)",
            settings=_seed_94("4.0", "16"),
            version=PgVersion(9, 4),
            description=f"The tuned values of the HDD runs; {_SEED_HOST}.",
            source="seeds/000 (Micron S650DC brief), Table 7, HDD column",
            builtin=True,
        ),
        Preset(
            name="micron-9100max-nvme",
            title="Seed 001: 9100MAX NVMe SSD (PgTune + brief)",
            settings=_seed_94("2.0", "1000"),
            version=PgVersion(9, 4),
            description=f"The tuned values of the NVMe runs; {_SEED_HOST}, PostgreSQL 9.4.6.",
            source="seeds/001 (Micron 9100MAX brief), Table 1",
            builtin=True,
        ),
    )
}


def check_preset_name(name: str) -> str:
    if not PRESET_NAME_RE.match(name or ""):
        raise PresetError(
            f"preset name {name!r}: use 1-64 lower-case letters, digits, '.', '_' or '-'"
            " (starting with a letter or digit)"
        )
    return name


def _value_text(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise PresetError(f"settings.{name}: must be a value like '8GB', 0.9 or 'on', got {value!r}")


def preset_from_dict(data: Mapping[str, Any], name: str | None = None) -> Preset:
    """Build and validate a preset from its TOML table; raise :class:`PresetError`."""
    known = {"name", "title", "description", "source", "version", "settings"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise PresetError(f"{unknown[0]}: not a preset field")
    name = check_preset_name(str(data.get("name", name or "")))
    settings_data = data.get("settings", {})
    if not isinstance(settings_data, Mapping) or not settings_data:
        raise PresetError("settings: must be a table of at least one setting")
    settings: dict[str, str] = {}
    for key, value in settings_data.items():
        if not _SETTING_NAME_RE.match(str(key)):
            raise PresetError(f"settings.{key}: not a setting name")
        settings[str(key)] = _value_text(str(key), value)
    version = None
    if data.get("version") not in (None, ""):
        try:
            version = PgVersion.parse(str(data["version"]))
        except ValueError as exc:
            raise PresetError(f"version: {exc}") from None
    for key in ("title", "description", "source"):
        if not isinstance(data.get(key, ""), str):
            raise PresetError(f"{key}: must be text")
    return Preset(
        name=name,
        title=str(data.get("title") or name),
        settings=settings,
        version=version,
        description=str(data.get("description", "")),
        source=str(data.get("source", "")),
    )


def preset_to_dict(preset: Preset) -> dict[str, Any]:
    data: dict[str, Any] = {"name": preset.name, "title": preset.title}
    if preset.version is not None:
        data["version"] = str(preset.version)
    if preset.description:
        data["description"] = preset.description
    if preset.source:
        data["source"] = preset.source
    data["settings"] = dict(preset.settings)
    return data


def preset_to_toml(preset: Preset) -> str:
    return tomli_w.dumps(preset_to_dict(preset))


def preset_from_toml(text: str, name: str | None = None) -> Preset:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"not valid TOML: {exc}") from None
    return preset_from_dict(data, name)


def preset_from_proposal(
    name: str, proposal: Proposal, title: str = "", description: str = ""
) -> Preset:
    """Keep a proposal (a PgTune result, an edited preset) as a user preset."""
    return Preset(
        name=check_preset_name(name),
        title=title or proposal.title,
        settings=proposal.values(),
        version=proposal.version,
        description=description,
        source="saved from bench-gui",
    )
