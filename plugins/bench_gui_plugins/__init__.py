"""First-party plugins of bench_gui, found through entry points like third-party ones."""
