"""The Workload page, in parts: the page with its plan files and actions (:mod:`.page`), the
target with its engines (:mod:`.target_section`, :mod:`.engine_choice`, :mod:`.odbc_fields`),
the workload's kind with TPROC-C's sweep and options (:mod:`.sections`), the random-read study
(:mod:`bench_gui.workloads.random_read.plan_form`), the OS knobs (:mod:`.os_section`) and
the schema build and check (:mod:`.schema_box`); the power section is
:mod:`bench_gui.gui.widgets.power_options`."""
