"""The MariaDB/MySQL engine kit's entry: InnoDB variables by the InnoDB rules."""

from bench_gui.engines.base import EngineKit

KIT = EngineKit(
    name="mariadb",
    label="MariaDB / MySQL",
    kinds=("mariadb", "mysql"),
    profile="innodb",
    faces={
        "tuner": "bench_gui.engines.mariadb.tuner:MariaDbTuner",
        "connect": "bench_gui.engines.mariadb.tuning:connect",
        "version": "bench_gui.engines.mariadb.tuning:version",
        "snapshot": "bench_gui.engines.mariadb.tuner:MariaDbSnapshot.from_dict",
        "proposal": "bench_gui.engines.mariadb.tuning:proposal",
        "panel": "bench_gui.engines.mariadb.panel:MariaDbPanel",
        "memory_warnings": "bench_gui.engines.mariadb.innodb:memory_warnings",
    },
)
