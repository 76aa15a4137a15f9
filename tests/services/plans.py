"""Short TPROC-C plans for the run tests against the private PostgreSQL: through one SSH driver
host or two (the fixtures that save the hosts and clone their database are in this folder's
``conftest.py``)."""

from __future__ import annotations

from typing import Any

from bench_gui.core.plan_model import Driver, Plan, Target
from bench_gui.wire.run_config import Workload

# The database every run on two driver hosts uses (cloned once: ``multi_database``).
DATABASE = "multi_runner"
# The saved SSH targets of ``two_hosts``: alpha on ``sshd``, beta on ``sshd2``.
HOSTS = ["alpha", "beta"]


def tpcc_plan(pg_server: Any, database: str, name: str, driver: Driver, **workload: Any) -> Plan:
    """One user for 3 s on a 1-warehouse copy unless ``workload`` says otherwise."""
    wl = Workload(warehouses=1, virtual_users=[1], rampup_s=1, duration_s=3, processes=1)
    for key, value in workload.items():
        setattr(wl, key, value)
    target = Target(kind="postgresql", host=pg_server.socket_dir, database=database)
    return Plan(name=name, target=target, workload=wl, driver=driver)


def two_host_plan(pg_server: Any, hosts: list[str], **workload: Any) -> Plan:
    """A short sweep (2 then 4 users for 4 s unless told) on ``hosts``, the first the primary."""
    driver = Driver(target=hosts[0], targets=list(hosts))
    return tpcc_plan(
        pg_server,
        DATABASE,
        "two driver hosts",
        driver,
        **{"virtual_users": [2, 4], "duration_s": 4, **workload},
    )
