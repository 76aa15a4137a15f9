"""bench_gui.agent.pg."""
