"""The Live page, in parts: the page and its redraw timer (:mod:`.page`), the header with the
run's phase and the Stop button (:mod:`.header`), the big numbers (:mod:`.tile_row`), the
charts and their layout (:mod:`.chart_board`), what the page says when a run ends
(:mod:`.outcome`) and how it writes its figures (:mod:`.numbers`). The view of a run is its
workload kit's ``live_view`` (:mod:`bench_gui.workloads.live_view`), which puts these parts
together or brings its own."""
