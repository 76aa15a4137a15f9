"""bench_gui.core."""
