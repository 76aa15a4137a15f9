"""The Sessions page, in parts: the page (:mod:`.page`), the list of stored runs
(:mod:`.run_table`), the opened session's charts, metrics and log (:mod:`.detail`), rename,
delete, export and import (:mod:`.housekeeping`), the power-log import (:mod:`.power_import`),
and the team store: the bar that switches stores, filters by author and pushes
(:mod:`.team_store`), its setting (:mod:`.team_settings`) and dialog (:mod:`.team_dialog`).
"""
