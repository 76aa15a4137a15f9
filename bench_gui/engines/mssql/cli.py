"""SQL Server's part of ``bench-gui tune`` (the kit's ``tune_commands`` and ``tune_options``
faces): none. Seed 003's settings take no input but the server's RAM (``--ram``, which every
engine's ``diff`` and ``apply`` have), and there is no calculator to run without a server."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def tune_options(parser: argparse.ArgumentParser) -> None:
    """No option beyond the machine's."""


def tune_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    machine: Callable[[argparse.ArgumentParser, bool], None],
) -> dict[str, Callable[[argparse.Namespace], int]]:
    """No command of its own."""
    return {}
