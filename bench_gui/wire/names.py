"""Names the desktop and the agent must spell alike: the environment variables the desktop sets
for an agent, and the entry-point group of third-party engines' agent sides."""

from __future__ import annotations

from typing import Final

# Entry-point group of third-party engines' agent sides: name -> "module:Class", the class
# built as the first-party ones are (bench_gui.agent.engines). Looked up after the built-in
# engines (which a plugin cannot override); the deployment ships every installed distribution
# that declares one.
AGENT_ENGINE_GROUP: Final = "bench_gui.agent_engines"
# The agent's version: a driver host whose deployed agent says another is deployed again.
AGENT_VERSION: Final = "0.1.0"

# The ODBC engines' password, from the environment (never in a conninfo string).
DB_PASSWORD_ENV: Final = "BENCH_GUI_DB_PASSWORD"

# Another folder for the agents' run locks (a test suite keeps its locks to itself with it).
LOCK_DIR_ENV: Final = "BENCH_GUI_LOCK_DIR"
