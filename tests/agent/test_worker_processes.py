"""How many worker processes a step's users are spread over (issue 30: fewer wake-ups)."""

from __future__ import annotations

from bench_gui.agent.driver import worker_processes
from bench_gui.engines.mariadb.agent.engine import MariaDbEngine
from bench_gui.engines.postgresql.agent.engine import PgEngine


def test_postgresql_users_share_a_process_until_it_holds_enough_of_them() -> None:
    per = PgEngine.users_per_process
    # 4 users on 2 CPUs: one process, whose wake-ups serve several users' results.
    assert worker_processes(0, cpus=2, vus=4, users_per_process=per) == 1
    assert worker_processes(0, cpus=2, vus=per + 1, users_per_process=per) == 2
    assert worker_processes(0, cpus=2, vus=100, users_per_process=per) == 2  # one per CPU
    assert worker_processes(0, cpus=8, vus=1, users_per_process=per) == 1


def test_a_plans_process_count_and_the_thread_per_user_engines_are_kept() -> None:
    assert worker_processes(2, cpus=2, vus=4, users_per_process=PgEngine.users_per_process) == 2
    assert worker_processes(8, cpus=2, vus=3, users_per_process=8) == 3  # never above the users
    per = MariaDbEngine.users_per_process
    assert worker_processes(0, cpus=2, vus=4, users_per_process=per) == 2
