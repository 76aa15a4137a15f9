"""Names the desktop and the agent must spell alike: the environment variables the desktop sets
for an agent, and the entry-point group of third-party engines' agent sides."""

from __future__ import annotations

from typing import Final

# Entry-point group of third-party engines' agent sides: name -> "module:Class", the class
# built as the first-party ones are (bench_gui.agent.engines). Looked up after the built-in
# engines (which a plugin cannot override); the deployment ships every installed distribution
# that declares one.
AGENT_ENGINE_GROUP: Final = "bench_gui.agent_engines"
# The entry-point group of a third-party workload's agent side ("name = module:attribute",
# an object with lock_key() and run(cfg, out, stop, hello_extra): bench_gui.agent.workloads).
AGENT_WORKLOAD_GROUP: Final = "bench_gui.agent_workloads"
# The agent's version: a driver host whose deployed agent says another is deployed again.
AGENT_VERSION: Final = "0.1.0"

# The ODBC engines' password, from the environment (never in a conninfo string).
DB_PASSWORD_ENV: Final = "BENCH_GUI_DB_PASSWORD"

# Another folder for the agents' run locks (a test suite keeps its locks to itself with it).
LOCK_DIR_ENV: Final = "BENCH_GUI_LOCK_DIR"
