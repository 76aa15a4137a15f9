"""MariaDB/MySQL's part of ``bench-gui tune`` (the kit's ``tune_commands`` and
``tune_options`` faces): the InnoDB rules' inputs on ``diff`` and ``apply``; the rules have no
calculator command of their own (``tune diff PLAN innodb --ram ...`` shows them)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bench_gui.engines.mariadb.innodb import DURABILITIES, SERVER_ROLES


def tune_options(parser: argparse.ArgumentParser) -> None:
    """The InnoDB rules' inputs beyond the machine (read into the tuning service's
    ``Inputs``)."""
    parser.add_argument("--server", choices=SERVER_ROLES, default="shared",
                        help="InnoDB: shared (the default: RAM/4 for the pool) or dedicated"
                             " (declared: RAM×3/4)")  # fmt: skip
    parser.add_argument("--durability", choices=DURABILITIES, default="full",
                        help="InnoDB: relaxed flushes the log about once a second")  # fmt: skip


def tune_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    machine: Callable[[argparse.ArgumentParser, bool], None],
) -> dict[str, Callable[[argparse.Namespace], int]]:
    """None: the InnoDB rules are shown against a plan's server (``tune diff``)."""
    return {}
