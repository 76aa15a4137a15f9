"""The Workload page, in parts: the page with its plan files and actions (:mod:`.page`), the
target, sweep and options sections (:mod:`.sections`), the OS knobs (:mod:`.os_section`) and
the schema build and check (:mod:`.schema_box`); the power section is
:mod:`bench_gui.gui.widgets.power_options`."""

from bench_gui.gui.pages.workload.page import WorkloadPage
from bench_gui.gui.pages.workload.sections import THIS_MACHINE

__all__ = ["THIS_MACHINE", "WorkloadPage"]
