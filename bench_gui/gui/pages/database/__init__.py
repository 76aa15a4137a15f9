"""The Database page: tune the target's PostgreSQL and its host's OS knobs, with a diff before
anything changes.

- :mod:`.page`: :class:`DatabasePage`, the header, the banner and the two tabs;
- :mod:`.tuning_tab`: what the engine tabs share (:class:`TuningTab`: the connect flow, the
  diff, apply and rollback through one task runner, the history, the busy state), built from
  :mod:`.server_box`, :mod:`.settings_diff` and :mod:`.history`;
- :mod:`.postgresql`, :mod:`.mariadb` and :mod:`.mssql`: the PostgreSQL, MariaDB/MySQL and
  SQL Server tabs, each a :class:`TuningTab` with its form (:mod:`.proposal_form` and
  :mod:`.innodb_form`, both on :mod:`.machine_form`; :mod:`.mssql_form`) and its words;
- :mod:`.os_knobs`: the OS knobs tab (:class:`OsKnobsPanel`), built from :mod:`.os_host`,
  :mod:`.os_table` and :mod:`.history`;
- :mod:`.common`: cells, colours, the current plan, the errors each tab expects.
"""
