"""MariaDB's and MySQL's code that both sides of the kit run: the desktop's tuner and
connection strings, and the agent on a driver host (deployed beside ``agent/``). It imports
only :mod:`bench_gui.wire` and itself."""
