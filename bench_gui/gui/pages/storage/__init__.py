"""The Storage page, in parts: the page (:mod:`.page`), the device table (:mod:`.devices`),
the layout editor (:mod:`.layout_form`, :mod:`.members`), the plan and the typed confirmation
(:mod:`.plan_view`), the database placement (:mod:`.database_form`), and the background work
(:mod:`.jobs`)."""

from bench_gui.gui.pages.storage.page import StoragePage

__all__ = ["StoragePage"]
