"""Acme's desktop side: the plan's target as a libpq conninfo (no password in it)."""

from __future__ import annotations

from typing import Any


class AcmeEngine:
    name = "acme"
    label = "Acme (PostgreSQL inside)"
    default_port = 5432

    def conninfo(self, target: Any, database: str) -> str:
        return f"host={target.host} port={target.port} user={target.user} dbname={database}"
