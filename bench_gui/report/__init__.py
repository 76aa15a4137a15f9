"""bench_gui.report."""
