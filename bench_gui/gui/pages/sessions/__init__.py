"""The Sessions page, in parts: the page (:mod:`.page`), the list of stored runs
(:mod:`.run_table`), the opened session's charts, metrics and log (:mod:`.detail`), rename,
delete, export and import (:mod:`.housekeeping`), the power-log import (:mod:`.power_import`),
and the team store: the bar that switches stores, filters by author and pushes
(:mod:`.team_store`), its setting (:mod:`.team_settings`) and dialog (:mod:`.team_dialog`).
"""

from bench_gui.gui.pages.sessions.detail import TAB_LOG, TAB_METRICS, TAB_OVERVIEW
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.gui.pages.sessions.run_table import RUN_COLUMNS

__all__ = ["RUN_COLUMNS", "TAB_LOG", "TAB_METRICS", "TAB_OVERVIEW", "SessionsPage"]
