"""The names SQL Server's diff rows give the database options beside sp_configure's own (the
proposal, the diff and the tuner all speak them)."""

from __future__ import annotations

from typing import Final

RECOVERY_MODEL: Final = "recovery model"  # the diff's names of the database options
TARGET_RECOVERY: Final = "target recovery time"
DATABASE_MAXDOP: Final = "database maxdop"
DATABASE_OPTIONS: Final = (RECOVERY_MODEL, TARGET_RECOVERY, DATABASE_MAXDOP)
SERVER_MAXDOP: Final = "max degree of parallelism"
