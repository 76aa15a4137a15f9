"""HammerDB 6.0's own job store from real runs (``hammer.DB``, described in README.md here): part
of the repository, so a fresh clone's tests read it without anything beside the clone."""

from pathlib import Path

HAMMER_DB = Path(__file__).resolve().parent / "hammer.DB"
