"""The Database page: tune the target's PostgreSQL and its host's OS knobs, with a diff before
anything changes.

- :mod:`.page`: :class:`DatabasePage`, the header, the banner and the two tabs;
- :mod:`.postgresql`: the PostgreSQL tab (:class:`PostgresPanel`), built from
  :mod:`.server_box`, :mod:`.proposal_form`, :mod:`.settings_diff` and :mod:`.history`;
- :mod:`.mariadb` and :mod:`.mssql`: the MariaDB/MySQL and SQL Server tabs, from the same
  parts (with :mod:`.innodb_form` and :mod:`.mssql_form`);
- :mod:`.os_knobs`: the OS knobs tab (:class:`OsKnobsPanel`), built from :mod:`.os_host`,
  :mod:`.os_table` and :mod:`.history`;
- :mod:`.common`: cells, colours, the current plan, the errors each tab expects.
"""

from bench_gui.gui.pages.database.os_knobs import OsKnobsPanel
from bench_gui.gui.pages.database.os_table import OS_CURRENT, OS_KEY, OS_STATUS, OS_WANTED
from bench_gui.gui.pages.database.page import DatabasePage
from bench_gui.gui.pages.database.postgresql import PostgresPanel, default_connect
from bench_gui.gui.pages.database.settings_diff import (
    COL_CHECK,
    COL_CURRENT,
    COL_EFFECT,
    COL_NAME,
    COL_PROPOSED,
    COL_RULE,
)

__all__ = [
    "COL_CHECK",
    "COL_CURRENT",
    "COL_EFFECT",
    "COL_NAME",
    "COL_PROPOSED",
    "COL_RULE",
    "OS_CURRENT",
    "OS_KEY",
    "OS_STATUS",
    "OS_WANTED",
    "DatabasePage",
    "OsKnobsPanel",
    "PostgresPanel",
    "default_connect",
]
