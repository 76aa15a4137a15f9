"""bench_gui.gui.pages."""
