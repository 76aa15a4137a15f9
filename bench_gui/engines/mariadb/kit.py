"""The MariaDB/MySQL engine kit's entry: InnoDB variables by the InnoDB rules."""

from bench_gui.engines.base import EngineKit, TargetKind
from bench_gui.wire.names import DB_PASSWORD_ENV


def _kind(name: str, label: str, driver: str) -> TargetKind:
    """MariaDB or MySQL through its Connector/ODBC: the same defaults, its own driver name."""
    return TargetKind(
        name,
        label,
        port=3306,
        user="root",
        admin_database="mysql",
        odbc=True,
        authentication=("", "password"),
        odbc_driver=driver,
        odbc_driver_hint="Empty: the first Connector/ODBC installed.",
        password_env=DB_PASSWORD_ENV,
        tpm_source="Com_commit + Com_rollback",
    )


KIT = EngineKit(
    name="mariadb",
    label="MariaDB / MySQL",
    targets=(
        _kind("mariadb", "MariaDB", "MariaDB Unicode"),
        _kind("mysql", "MySQL", "MySQL ODBC 8.0 Unicode Driver"),
    ),
    profile="innodb",
    faces={
        "tuner": "bench_gui.engines.mariadb.tuner:MariaDbTuner",
        "connect": "bench_gui.engines.mariadb.tuning:connect",
        "version": "bench_gui.engines.mariadb.tuning:version",
        "snapshot": "bench_gui.engines.mariadb.tuner:MariaDbSnapshot.from_dict",
        "proposal": "bench_gui.engines.mariadb.tuning:proposal",
        "panel": "bench_gui.engines.mariadb.panel:MariaDbPanel",
        "memory_warnings": "bench_gui.engines.mariadb.innodb:memory_warnings",
        "database_check": "bench_gui.engines.mariadb.tuner:database_check",
        "presets": "bench_gui.engines.mariadb.preset_book:presets",
        "tune_commands": "bench_gui.engines.mariadb.cli:tune_commands",
        "tune_options": "bench_gui.engines.mariadb.cli:tune_options",
    },
)
