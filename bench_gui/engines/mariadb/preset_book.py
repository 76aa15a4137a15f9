"""MariaDB/MySQL's profile as ``bench-gui tune presets`` lists and shows it (the kit's
``presets`` face): the InnoDB rules, calculated from the server's machine when applied, so
shown as the rules themselves (:mod:`bench_gui.engines.mariadb.innodb` gives them in full)."""

from __future__ import annotations

import json
from typing import Final

from bench_gui.engines.mariadb.tuning import INNODB
from bench_gui.engines.preset_book import PresetBook, PresetRow, PresetView

TITLE: Final = "InnoDB rules: from the server's RAM, CPUs, storage and the planned users"
# Each variable the rules set and how (the module docstring of innodb says why).
RULES: Final = (
    ("innodb_buffer_pool_size", "RAM/4; a server declared dedicated (--server dedicated):"
     " RAM/2 below 4 GiB, RAM×3/4 from there; in whole 128 MiB chunks"),
    ("innodb_log_file_size / innodb_redo_log_capacity", "a quarter of the buffer pool,"
     " between 512 MiB and 8 GiB"),
    ("innodb_flush_method", "O_DIRECT on Linux"),
    ("innodb_io_capacity / innodb_io_capacity_max", "by storage kind (hdd, san, ssd, nvme)"),
    ("innodb_flush_log_at_trx_commit", "1 (every commit flushed); 2 with --durability"
     " relaxed"),
    ("max_connections", "the planned users + 10% + 10, never below 151 nor the server's own"),
    ("innodb_buffer_pool_instances", "one per GiB of pool, at most 8 (MySQL, MariaDB before"
     " 10.5)"),
)  # fmt: skip


def presets() -> PresetBook:
    """The InnoDB rules, MariaDB's and MySQL's one calculated profile."""
    data = {"name": INNODB, "title": TITLE, "calculated": True, "rules": dict(RULES)}
    row = PresetRow(INNODB, TITLE, True, "calculated", data)

    def show(name: str, version: str | None) -> PresetView | None:
        if name != INNODB:
            return None
        lines = [f"# {TITLE} (MariaDB / MySQL; bench-gui tune diff PLAN {INNODB})"]
        lines += [f"# {variable}: {rule}" for variable, rule in RULES]
        return PresetView("\n".join(lines) + "\n", json.dumps(data))

    return PresetBook([row], show)
