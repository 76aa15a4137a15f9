"""The workload agent: runs on the driver host, emits JSON-lines events.

Imports nothing of the desktop side, only the contract :mod:`bench_gui.wire` (shipped with it
to a driver host by :mod:`bench_gui.remote.deploy`). Its version, which a deployment checks on
the host, is :data:`bench_gui.wire.names.AGENT_VERSION`.
"""
