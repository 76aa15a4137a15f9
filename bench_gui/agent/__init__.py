"""The workload agent: runs on the driver host, emits JSON-lines events.

Imports nothing of the desktop side except :mod:`bench_gui.agent.protocol`, so the package can
be shipped to a driver host on its own.
"""

AGENT_VERSION = "0.1.0"
