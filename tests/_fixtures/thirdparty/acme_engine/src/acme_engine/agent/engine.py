"""Acme's agent side: PostgreSQL's engine under another name, with a label from a requirement
the agent does not bring (acme-helpers), so shipping requirements is tested too."""

from __future__ import annotations

from acme_helpers import engine_label

from bench_gui.engines.postgresql.agent.engine import PgEngine


class AcmeAgentEngine(PgEngine):
    """The agent's PostgreSQL engine, named acme."""

    name = "acme"
    label = engine_label("acme")
