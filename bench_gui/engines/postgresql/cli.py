"""PostgreSQL's part of ``bench-gui tune`` (the kit's ``tune_commands`` and ``tune_options``
faces): PgTune's calculator as ``tune postgresql``, and PgTune's inputs on ``diff`` and
``apply`` (``--type``, ``--version``, ``--edition``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from bench_gui.engines.postgresql.pgtune import DB_TYPES, EDITIONS

Handler = Callable[[argparse.Namespace], int]


def tune_options(parser: argparse.ArgumentParser) -> None:
    """PgTune's inputs beyond the machine (read into the tuning service's ``Inputs``)."""
    parser.add_argument("--type", choices=DB_TYPES, default="oltp", help="workload type")
    parser.add_argument("--version", help="PostgreSQL version (default: the server's / 18)")
    parser.add_argument("--edition", choices=EDITIONS, default="current",
                        help="PgTune rules: current, or classic (the briefs' era)")  # fmt: skip


def tune_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    machine: Callable[[argparse.ArgumentParser, bool], None],
) -> dict[str, Handler]:
    """``tune postgresql``: PgTune's settings for a machine (``machine`` adds --ram, --cpus,
    --connections and --storage, --ram required)."""
    sp = commands.add_parser("postgresql", help="PgTune's settings for a machine")
    machine(sp, True)
    tune_options(sp)
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--alter-system", action="store_true", help="as ALTER SYSTEM statements")
    return {"postgresql": _calculate}


def _calculate(args: argparse.Namespace) -> int:
    """PgTune's proposal for the machine given, for the version given (default: the latest),
    printed as postgresql.conf lines, ALTER SYSTEM statements or JSON."""
    from bench_gui.engines.postgresql.pgtune import LATEST_VERSION, calculate
    from bench_gui.engines.postgresql.tuning import tune_input
    from bench_gui.services.tuning_parts import Inputs

    inputs = Inputs.from_args(args)
    if inputs.ram_bytes is None:  # --ram ""
        print("bench-gui: --ram is required (e.g. --ram 128GiB)", file=sys.stderr)
        return 2
    proposal = calculate(tune_input(inputs, None, LATEST_VERSION))
    if args.json:
        print(proposal.to_json())
    elif args.alter_system:
        print(proposal.to_alter_system())
    else:
        print(proposal.to_conf(), end="")
    return 0
