"""The Compare page, in parts: the page (:mod:`.page`), the sessions and the baseline
(:mod:`.session_picker`), the price table (:mod:`.prices`), the comparison on show
(:mod:`.results`) and the Export button (:mod:`.export_menu`)."""

from bench_gui.gui.pages.compare.page import ComparePage
from bench_gui.gui.pages.compare.session_picker import ID_ROLE

__all__ = ["ID_ROLE", "ComparePage"]
