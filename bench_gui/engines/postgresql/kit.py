"""The PostgreSQL engine kit's entry: the embedded demo's engine, tuned with PgTune."""

from typing import Final

from bench_gui.engines.base import EngineKit, TargetKind

# What its TPM counts (the agent's monitor reads pg_stat_database, as HammerDB does).
TPM_SOURCE: Final = "xact_commit + xact_rollback (pg_stat_database)"

KIT = EngineKit(
    name="postgresql",
    label="PostgreSQL",
    targets=(
        # The embedded demo: a PostgreSQL the app starts on this machine.
        TargetKind("demo", "Embedded demo (PostgreSQL)", tpm_source=TPM_SOURCE, listed=False),
        TargetKind("postgresql", "PostgreSQL", tpm_source=TPM_SOURCE),
    ),
    profile="pgtune",
    data_dir_by_admin=True,
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
