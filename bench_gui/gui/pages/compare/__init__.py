"""The Compare page, in parts: the page (:mod:`.page`), the sessions and the baseline
(:mod:`.session_picker`), the price table (:mod:`.prices`), the comparison on show
(each workload kit's ``compare_view``) and the Export button (:mod:`.export_menu`)."""
