"""A workload kit's own plan fields: a plan's ``[workload.options]`` table (``Workload.options``).

A kit with fields of its own declares and checks them in its ``plan_options`` face rather than
adding fields to the shared :class:`bench_gui.wire.run_config.Workload`, so adding a workload
stays one folder. The plan reader calls :func:`read_options` once, at the plan boundary; a kit
declares its options by name and default and checks them with :func:`check_options`, which
names a wrong type or an unknown name. The agent side reads ``RunConfig.options`` as checked.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Final

from bench_gui.workloads.contract import WorkloadKit

FIELD: Final = "workload.options"


def _kind_of(value: Any) -> str:
    """What a TOML value is, as the plan's problems say it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime.date | datetime.time):
        return "a date or time"
    return type(value).__name__


def _json_value(value: Any) -> bool:
    """Whether ``value`` reaches the agent as it is (the run configuration is JSON)."""
    if isinstance(value, list):
        return all(_json_value(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_value(v) for k, v in value.items())
    return isinstance(value, str | int | float | bool)


def read_options(problems: list[tuple[str, str]], kit: WorkloadKit, value: Any) -> dict[str, Any]:
    """The options a plan of ``kit``'s workload keeps from its ``[workload.options]`` table:
    refused for a kit that declares none, else checked by its ``plan_options`` face. Every
    problem is named ``workload.options.<name>``."""
    if not isinstance(value, dict):
        problems.append((FIELD, f"must be a table, not {_kind_of(value)}"))
        return {}
    if not kit.has_face("plan_options"):
        for name in value:
            problems.append(
                (f"{FIELD}.{name}", f"the {kit.label} workload ({kit.name}) has no options")
            )
        return {}
    given: dict[str, Any] = {}
    for name, option in value.items():
        if _json_value(option):
            given[name] = option
        else:  # a TOML date or time: the agent reads JSON
            problems.append(
                (
                    f"{FIELD}.{name}",
                    f"is {_kind_of(option)}, which the agent cannot read: write it as a string",
                )
            )
    kept: dict[str, Any] = kit.face("plan_options")(problems, given)
    return dict(kept)


# What a declared default's type asks of a value.
_EXPECTED: Final = (
    (bool, "a boolean (true or false)"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "a table"),
)


def _fits(default: Any, value: Any) -> bool:
    """Whether ``value`` is of the type of ``default`` (an integer is a number)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, int | float)
    return isinstance(value, type(default))


def check_options(
    problems: list[tuple[str, str]], options: Mapping[str, Any], declared: Mapping[str, Any]
) -> dict[str, Any]:
    """A kit's ``plan_options`` from its declaration (each option's name and default): an
    unknown name or a value of another type than the default's is a problem naming it. Returns
    the options as given (a float's integer as a float), so a plan is written as it was read;
    the agent side takes a default for one the plan does not set."""
    kept: dict[str, Any] = {}
    for name, value in options.items():
        if name not in declared:
            known = ", ".join(declared) or "none"
            problems.append((f"{FIELD}.{name}", f"unknown option (the options are: {known})"))
            continue
        default = declared[name]
        if not _fits(default, value):
            expected = next(
                (words for kind, words in _EXPECTED if isinstance(default, kind)),
                _kind_of(default),
            )
            given = _kind_of(value)
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                given += f" ({value!r})"
            problems.append((f"{FIELD}.{name}", f"must be {expected}, not {given}"))
            continue
        kept[name] = float(value) if isinstance(default, float) else value
    return kept
