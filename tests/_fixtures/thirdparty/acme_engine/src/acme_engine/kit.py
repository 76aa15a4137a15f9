"""Acme's kit entry: PostgreSQL under another name, so its tuning faces are PostgreSQL's."""

from bench_gui.engines.base import EngineKit, TargetKind

KIT = EngineKit(
    name="acme",
    label="Acme (PostgreSQL inside)",
    targets=(
        TargetKind("acme", "Acme (PostgreSQL inside)", tpm_source="xact_commit + xact_rollback"),
    ),
    profile="pgtune",
    unverified="Acme's tuning is PostgreSQL's, never checked against an Acme server.",
    faces={
        "tuner": "bench_gui.engines.postgresql.tuner:PgTuner",
        "connect": "bench_gui.engines.postgresql.tuning:connect",
        "version": "bench_gui.engines.postgresql.tuning:version",
        "snapshot": "bench_gui.engines.postgresql.settings:Snapshot.from_dict",
        "proposal": "bench_gui.engines.postgresql.tuning:proposal",
        "panel": "bench_gui.engines.postgresql.panel:PostgresPanel",
        "memory_warnings": "bench_gui.engines.postgresql.pgtune:memory_warnings",
        "database_check": "bench_gui.engines.postgresql.targets:database_check",
        "presets": "bench_gui.engines.postgresql.preset_book:presets",
        "tune_commands": "bench_gui.engines.postgresql.cli:tune_commands",
        "tune_options": "bench_gui.engines.postgresql.cli:tune_options",
    },
)
