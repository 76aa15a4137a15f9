"""The PostgreSQL engine kit's entry: the embedded demo's engine, tuned with PgTune."""

from bench_gui.engines.base import EngineKit

KIT = EngineKit(
    name="postgresql",
    label="PostgreSQL",
    kinds=("postgresql", "demo"),
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
    },
)
