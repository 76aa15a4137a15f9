"""bench_gui.engines.postgresql.agent."""
