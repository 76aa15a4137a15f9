"""The TPROC-C workload's kit entry: HammerDB's order-entry sweep over virtual users."""

from bench_gui.workloads.contract import WorkloadKit

KIT = WorkloadKit(
    name="tproc_c",
    label="TPROC-C",
    one_session="a TPROC-C sweep",
    sessions="TPROC-C sweeps",
    step_noun="step",
    search_words=("tproc-c", "tpcc", "oltp"),
    words=("NOPM", "virtual users"),
    uses_database=True,
    compare_inputs=frozenset({"stop_conditions", "response_scope", "array_prices", "power_price"}),
    brief_sections=(
        "throughput",
        "latency_avg",
        "latency_p999",
        "power",
        "saturation",
        "economics",
        "repeatability",
    ),  # fmt: skip
    foreign_field_note='a TPROC-C field: not used by kind = "{kind}"',
    plan_title="TPROC-C sweep",
    start_words="Start sweep",
    choice_label="TPROC-C (OLTP on a database)",
    faces={
        "list_row": "bench_gui.workloads.tproc_c.session_view:list_row",
        "facts": "bench_gui.workloads.tproc_c.session_view:facts",
        "sessions_overview": "bench_gui.workloads.tproc_c.sessions_overview:TprocCOverview",
        "compare_view": "bench_gui.workloads.tproc_c.compare_view:ComparisonView",
        "live_view": "bench_gui.workloads.tproc_c.live_view:TprocCLiveView",
        "step_count": "bench_gui.workloads.tproc_c.plan_time:step_count",
        "plan_seconds": "bench_gui.workloads.tproc_c.plan_time:plan_seconds",
        "cli_session": "bench_gui.workloads.tproc_c.cli:print_session",
        "cli_steps": "bench_gui.workloads.tproc_c.cli:print_steps",
        "report": "bench_gui.workloads.tproc_c.report:build",
        "plan_fields": "bench_gui.core.plan_model:TPROC_C_FIELDS",
        "agent_config": "bench_gui.workloads.tproc_c.agent_config:database_config",
        "session_target": "bench_gui.workloads.tproc_c.agent_config:database_target",
        "step_results": "bench_gui.workloads.tproc_c.step_results:tproc_c_results",
        "plan_form": "bench_gui.workloads.tproc_c.plan_form:OptionsSection",
        "plan_checks": "bench_gui.workloads.tproc_c.plan_checks:check",
        "target_summary": "bench_gui.store.run_rows:database_summary",
    },
)
