"""The contract between the desktop and the agent: what both sides must agree on.

The event protocol, histograms, power and fio-size arithmetic, database setting units and the
host knobs a run records. Stdlib (and hdrhistogram) only, importing nothing else of bench_gui:
the agent imports it and is shipped with it to a driver host; the desktop imports it instead
of the agent (both checked by import-linter in pyproject.toml).
"""
