"""bench_gui.gui.widgets."""
