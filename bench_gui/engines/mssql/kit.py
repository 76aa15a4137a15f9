"""The SQL Server engine kit's entry: seed 003's settings through sp_configure."""

from typing import Final

from bench_gui.engines.base import EngineKit, TargetKind
from bench_gui.wire.names import DB_PASSWORD_ENV

NOT_VERIFIED: Final = (
    "SQL Server tuning has not been verified against a live server here: its statements are"
    " checked by a T-SQL parser only"
)

KIT = EngineKit(
    name="mssql",
    label="SQL Server",
    targets=(
        TargetKind(
            "mssql",
            "SQL Server",
            port=1433,
            user="sa",
            admin_database="master",
            odbc=True,
            authentication=("", "sql", "windows", "entra_password", "entra_integrated"),
            odbc_driver="ODBC Driver 18 for SQL Server",
            odbc_driver_hint="Empty: the driver host's own SQL Server driver.",
            password_env=DB_PASSWORD_ENV,
            tpm_source="Batch Requests/sec",
            unverified="no SQL Server here; its T-SQL is only checked by a parser in the tests",
        ),
    ),
    profile="mssql-seed-003",
    reload_word="at once",
    restarts=False,
    tls_style="encrypt",
    unverified=NOT_VERIFIED,
    faces={
        "tuner": "bench_gui.engines.mssql.tuner:MssqlTuner",
        "connect": "bench_gui.engines.mssql.tuning:connect",
        "version": "bench_gui.engines.mssql.tuning:version",
        "snapshot": "bench_gui.engines.mssql.tuner:MssqlSnapshot.from_dict",
        "proposal": "bench_gui.engines.mssql.tuning:proposal",
        "panel": "bench_gui.engines.mssql.panel:MssqlPanel",
        "memory_warnings": "bench_gui.engines.mssql.tuning:memory_warnings",
        "database_check": "bench_gui.engines.mssql.tuning:database_check",
        "presets": "bench_gui.engines.mssql.preset_book:presets",
        "tune_commands": "bench_gui.engines.mssql.cli:tune_commands",
        "tune_options": "bench_gui.engines.mssql.cli:tune_options",
    },
)
