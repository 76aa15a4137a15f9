"""bench_gui.store: sessions (runs, samples, step results, histograms, logs) in SQLite, or in a
team's PostgreSQL (team_store, team_sync: push and pull; dialect: the SQL both share)."""

from bench_gui.store.annotations import PowerPriceEntry, PriceEntry
from bench_gui.store.exchange import SessionFileError, export_session, import_session
from bench_gui.store.paths import DATA_DIR_ENV, data_dir, default_sessions_path
from bench_gui.store.records import LogLine, RunDetail, RunInfo, Sample, StepResult
from bench_gui.store.sessions import (
    FINAL_STATUSES,
    RUN_STATUSES,
    SCHEMA_VERSION,
    SessionNotFound,
    SessionStore,
    StoreError,
    target_summary,
)

__all__ = [
    "DATA_DIR_ENV",
    "FINAL_STATUSES",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "LogLine",
    "RunDetail",
    "PowerPriceEntry",
    "PriceEntry",
    "RunInfo",
    "Sample",
    "SessionFileError",
    "SessionNotFound",
    "SessionStore",
    "StepResult",
    "StoreError",
    "data_dir",
    "default_sessions_path",
    "export_session",
    "import_session",
    "target_summary",
]
