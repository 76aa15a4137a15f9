"""The workload agent: runs on the driver host, emits JSON-lines events.

Imports nothing of the desktop side, only the contract :mod:`bench_gui.wire` (shipped with it
to a driver host by :mod:`bench_gui.remote.deploy`).
"""

AGENT_VERSION = "0.1.0"
