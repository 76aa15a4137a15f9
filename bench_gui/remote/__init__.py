"""bench_gui.remote."""
