"""Fuzzing the plan reader: whatever a plan holds, the only error is a PlanError.

About a thousand mutated plans, seeded and reproducible (the failing case's number and text are
in the message): half are mutations of the TOML text (bytes flipped, cut, doubled; tokens and
huge or deep values spliced in), read through ``load_plan`` as a file is, half are value
mutations of a plan's dictionary, checked by ``plan_from_dict`` as the GUI and ``attach`` do.
A plan that is accepted must also save and load back as the same plan; a refused one must say
why in one line per problem.
"""

from __future__ import annotations

import copy
import math
import random
import reprlib
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan import load_plan, plan_from_dict, plan_from_toml
from bench_gui.core.plan_model import Plan, PlanError

SEED = 15
TEXT_CASES = 500
VALUE_CASES = 500
README = Path(__file__).resolve().parents[2] / "README.md"

BASE_TOML = [
    Plan().to_toml(),
    """name = "ssd"
[target]
kind = "postgresql"
host = "db1"
password_env = "BENCH_GUI_DB1"
[workload]
virtual_users = "8-64/8"
warehouses = 16
[power]
meter = "csv"
options = { path = "/tmp/watts.csv" }
[monitor]
devices = ["sda", "/dev/nvme0n1"]
[os]
knobs = { "vm.dirty_ratio" = "10", scheduler = "none" }
""",
]

TOKENS = [
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    "=",
    ",",
    "\n",
    "\\",
    "#",
    "[[",
    "]]",
    "\x00",
    "\u202e",
    "\ud7ff",
    "nan",
    "inf",
    "-inf",
    "true",
    "0x7fffffffffffffffff",
    "9" * 5000,
    "1e999",
    "1-3000000000/1",
    "[" * 2000,
    "{a=" * 500,
    "1979-05-27T07:32:00Z",
    '"""\n',
    "[target]\n",
    "[workload]\n",
    "virtual_users = ",
    "password_env = 'AWS_SECRET_ACCESS_KEY'\n",
]
# TOML values put in place of a line's value.
TOML_VALUES = [
    '"8-64/8"',
    '"1-3000000000/1"',
    '"8,16,x"',
    "[8, 16, 16]",
    "[]",
    "{}",
    '[1, "a", 2.5]',
    "[[1]]",
    "{ a = { b = 1 } }",
    "99999999999999999999",
    "9" * 5000,
    "[" * 3000 + "]" * 3000,
    "-1",
    "0",
    "nan",
    "-inf",
    "1e308",
    "0.0",
    "true",
    "1979-05-27",
    '""',
    '"\\u202e"',
    '"' + "x" * 10_000 + '"',
    '"PGPASSWORD"',
    '"SSH_AUTH_SOCK"',
    '"postgresql"',
    '"ipmi"',
    '"/dev/sdb"',
]
# The fields most mutations go to: the numbers, ranges, names and tables the checks read.
FIELDS = [
    ("workload", "virtual_users"),
    ("workload", "warehouses"),
    ("workload", "rampup_s"),
    ("workload", "duration_s"),
    ("workload", "processes"),
    ("target", "port"),
    ("target", "kind"),
    ("target", "password_env"),
    ("target", "database"),
    ("driver", "target"),
    ("power", "meter"),
    ("power", "options"),
    ("power", "interval_s"),
    ("monitor", "devices"),
    ("os", "knobs"),
    ("os", "preset"),
    ("os", "host"),
    ("os", "devices"),
]
RAW_BYTES = [b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf"]


class _Shown(reprlib.Repr):
    """Short reprs of the cases, numbers of thousands of digits included."""

    def repr_int(self, x: int, level: int) -> str:
        return f"<int of {x.bit_length()} bits>" if x.bit_length() > 64 else repr(x)


def describe(value: Any) -> str:
    shown = _Shown()
    shown.maxstring = shown.maxother = 80
    return shown.repr(value)


def deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


VALUES: list[Callable[[random.Random], Any]] = [
    lambda r: None,
    lambda r: r.choice([True, False]),
    lambda r: r.choice([0, -1, 1, 5000, 5001, 65535, 65536, 2**63, -(2**63) - 1, 10**400]),
    lambda r: r.choice([10**400, -(10**5000), 2**64]),
    lambda r: r.choice([0.0, -0.0, 1.5, math.nan, math.inf, -math.inf, 1e308, 5e-324]),
    lambda r: r.choice(["", " ", "x" * 100_000, "\u202e", "\x1b[31m", "\ud800", "a\nb"]),
    lambda r: r.choice(["8-64/8", "1-3000000000/1", "8,x", "0-8/2", "1-5000/1", "-5", "8-"]),
    lambda r: r.choice([[], [1] * 200, [1, "2", 3.0], [None], deep(200), [[8, 16]]]),
    lambda r: r.choice([{}, {"a": 1}, {"": None}, {"vm.dirty_ratio": "10"}, {1: 2}]),
    lambda r: r.choice(["demo", "postgresql", "ipmi", "rapl", "csv", "redfish", "none"]),
    lambda r: r.choice(["PGPASSWORD", "BENCH_GUI_X", "HOME", "bench_gui_x", "PGPASSWORD\n"]),
    lambda r: r.choice(["sda", "/dev/sda", "../etc", "sda;rm", "micron-9300-linux", "lab-1"]),
]


def mutate_text(rng: random.Random, text: str) -> bytes:
    data = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 3)):
        action = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7])
        at = rng.randrange(len(data) + 1)
        if action == 7:  # another value for a ``key = value`` line
            lines = bytes(data).split(b"\n")
            keyed = [i for i, line in enumerate(lines) if b" = " in line]
            wanted = {key.encode() for _section, key in FIELDS}
            favoured = [i for i in keyed if lines[i].split(b" = ", 1)[0].strip() in wanted]
            keyed = favoured if favoured and rng.random() < 0.7 else keyed
            if keyed:
                i = rng.choice(keyed)
                key = lines[i].split(b" = ", 1)[0]
                lines[i] = key + b" = " + rng.choice(TOML_VALUES).encode()
                data = bytearray(b"\n".join(lines))
        elif action == 0 and data:  # flip a byte (to a byte that is not UTF-8, now and then)
            data[min(at, len(data) - 1)] = rng.choice([rng.randrange(32, 127), rng.randrange(256)])
        elif action == 1:  # cut a span
            del data[at : at + rng.randint(1, 40)]
        elif action == 2:  # double a span
            data[at:at] = data[at : at + rng.randint(1, 80)]
        elif action == 3:  # splice in a token
            data[at:at] = rng.choice(TOKENS).encode("utf-8", "surrogatepass")
        elif action == 4:  # splice in raw bytes that are not UTF-8
            data[at:at] = rng.choice(RAW_BYTES)
        elif action == 5:  # truncate
            del data[at:]
        else:  # swap two lines
            lines = bytes(data).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def mutate_value(
    rng: random.Random, data: dict[str, Any], others: list[dict[str, Any]]
) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if rng.random() < 0.25:  # a valid value of another plan: many such plans are accepted
        other = rng.choice(others)
        name = rng.choice([k for k, v in other.items() if isinstance(v, dict)])
        key = rng.choice(list(other[name]) or ["x"])
        if key in other[name] and isinstance(data.get(name), dict):
            data[name][key] = copy.deepcopy(other[name][key])
        return data
    for _ in range(rng.randint(1, 2)):
        if rng.random() < 0.5:  # one of the fields the checks read
            section_name, key = rng.choice(FIELDS)
            if not isinstance(data.get(section_name), dict):
                data[section_name] = {}
            data[section_name][key] = rng.choice(VALUES)(rng)
            continue
        section_name = rng.choice([*data, "storage", "target", "workload", "power"])
        section = data.get(section_name)
        value = rng.choice(VALUES)(rng)
        action = rng.randrange(4)
        if action == 0 or not isinstance(section, dict):  # the section itself
            data[section_name] = value
        elif action == 1 and section:  # a field of the section
            section[rng.choice(list(section))] = value
        elif action == 2:  # a field nobody knows
            section[rng.choice(["colour", "", "\u202e", "x" * 300])] = value
        elif section:  # a field removed
            del section[rng.choice(list(section))]
        if isinstance(data.get("power"), dict) and rng.random() < 0.3:
            data["power"]["options"] = rng.choice(VALUES)(rng)
    return data


def check_outcome(make: Callable[[], Plan]) -> None:
    """Accepted: it saves and loads back unchanged. Refused: one line per problem, short."""
    try:
        plan = make()
    except PlanError as exc:
        problems = exc.problems
    else:
        assert plan_from_toml(plan.to_toml()) == plan
        return
    assert problems
    for _name, reason in problems:
        assert "\n" not in reason, reason[:200]
        assert len(reason) < 600, reason[:200]


def run_cases(cases: list[tuple[str, Callable[[], Plan]]]) -> list[str]:
    failures = []
    for label, make in cases:
        try:
            check_outcome(make)
        except Exception:  # noqa: BLE001 - the fuzzer's point: list every unexpected error
            failures.append(f"{label}: {traceback.format_exc(limit=-3)}")
    return failures


def test_mutated_plan_texts_raise_only_plan_errors(tmp_path: Path) -> None:
    readme = README.read_text(encoding="utf-8")
    bases = [*BASE_TOML, readme.split("## A plan", 1)[1].split("```toml", 1)[1].split("```")[0]]
    rng = random.Random(SEED)
    cases = []
    for i in range(TEXT_CASES):
        raw = mutate_text(rng, rng.choice(bases))
        path = tmp_path / f"plan{i}.toml"
        path.write_bytes(raw)
        cases.append((f"text case {i} ({raw[:300]!r})", lambda path=path: load_plan(path)))
    failures = run_cases(cases)
    assert not failures, f"{len(failures)} of {TEXT_CASES}:\n" + "\n".join(failures[:5])


def test_mutated_plan_values_raise_only_plan_errors() -> None:
    bases = [plan_from_toml(text).to_dict() for text in BASE_TOML]
    rng = random.Random(SEED)
    cases = []
    # First every kind of value in every field the checks read, then random mutations.
    every = [(field, make) for field in FIELDS for make in VALUES]
    for i in range(VALUE_CASES):
        if i < len(every):
            (section, key), make = every[i]
            data = copy.deepcopy(rng.choice(bases))
            data.setdefault(section, {})[key] = make(rng)
        else:
            data = mutate_value(rng, rng.choice(bases), bases)
        cases.append((f"value case {i} ({describe(data)})", lambda data=data: plan_from_dict(data)))
    failures = run_cases(cases)
    assert not failures, f"{len(failures)} of {VALUE_CASES}:\n" + "\n".join(failures[:5])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1-3000000000/1", "3,000,000,000 virtual users in one step: at most 5000"),
        ("1-5000/1", "5,000 sweep steps: at most 100"),
        ("1-" + "9" * 5000, "is not a range like 8-64/8"),
    ],
)
def test_huge_ranges_are_refused_before_they_are_built(text: str, reason: str) -> None:
    """The range is refused from its bounds: nothing of 3 billion users is ever made."""
    with pytest.raises(PlanError) as caught:
        plan_from_toml(f'[workload]\nvirtual_users = "{text}"\n')
    assert caught.value.problems[0][0] == "workload.virtual_users"
    assert reason in caught.value.problems[0][1]
