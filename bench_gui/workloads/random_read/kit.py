"""The random-read workload's kit entry (seed 004): fio's random reads by dataset size."""

from bench_gui.workloads.contract import WorkloadKit

KIT = WorkloadKit(
    name="random_read",
    label="Random read",
    one_session="a random-read study",
    sessions="random-read studies",
    step_noun="dataset size",
    search_words=("random read", "random-read", "fio"),
    words=("raw IOPS", "ops/s"),
    uses_database=False,
    one_host_why="runs fio on one host",
    engine="fio",
    compare_inputs=frozenset({"ram_price"}),
    report_options=frozenset({"target_ops", "dataset"}),
    faces={
        "list_row": "bench_gui.workloads.random_read.session_view:list_row",
        "facts": "bench_gui.workloads.random_read.session_view:facts",
        "sessions_overview": "bench_gui.workloads.random_read.sessions_overview:RandomReadOverview",
        "compare_view": "bench_gui.workloads.random_read.compare_results:RandomReadView",
        "live_view": "bench_gui.workloads.random_read.live_view:RandomReadLiveView",
        "step_count": "bench_gui.workloads.random_read.plan_time:step_count",
        "plan_seconds": "bench_gui.workloads.random_read.plan_time:plan_seconds",
        "cli_session": "bench_gui.workloads.random_read.cli:print_session",
        "cli_steps": "bench_gui.workloads.random_read.cli:print_steps",
        "report": "bench_gui.workloads.random_read.report:build",
        "plan_fields": "bench_gui.wire.fio_sizes:RANDOM_READ_FIELDS",
        "agent_config": "bench_gui.services.agent_config:random_read_config",
        "session_target": "bench_gui.services.agent_config:file_target",
        "step_results": "bench_gui.services.run_results:random_read_results",
    },
)
