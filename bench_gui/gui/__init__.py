"""bench_gui.gui."""
