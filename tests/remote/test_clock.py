"""A driver host's clock against this machine's, over the real loopback sshd: the same clock
reads as no offset (within the measure's uncertainty); a host whose clock runs a known offset
off (the real clock process, started through a wrapper that shifts its clock) reads as that
offset and is refused, by name, past the plan's limit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from bench_gui.remote.clock import (
    CLOCK_SCRIPT,
    ClockError,
    ClockReading,
    ClockRefused,
    check_clocks,
    clock_problem,
    measure_clock,
)

# Runs the clock command's own script with the process's clock shifted by argv[1] seconds.
SHIFTED = """\
import sys, time
shift = float(sys.argv[1])
real = time.time
time.time = lambda: real() + shift
exec(compile(sys.argv[2], "clock", "exec"))
"""


def shifted_argv(tmp_path: Path, seconds: float) -> list[str]:
    wrapper = tmp_path / "shifted_clock.py"
    wrapper.write_text(SHIFTED, encoding="utf-8")
    return [sys.executable, "-u", str(wrapper), repr(seconds), CLOCK_SCRIPT]


def test_this_machine_through_sshd_has_no_offset(ssh_runner: Any) -> None:
    reading = measure_clock(ssh_runner, rounds=10)
    # One clock on both ends: the host read it inside the round trip, so the offset is within
    # half of it (and a microsecond for the two clocks the desktop reads).
    assert abs(reading.offset_ms) <= reading.uncertainty_ms + 0.001, reading
    assert reading.uncertainty_ms == pytest.approx(reading.rtt_ms / 2)
    assert reading.rtt_ms > 0
    assert reading.rounds == 10
    assert reading.host == "loop"
    assert reading.address.startswith("root@127.0.0.1:")
    assert check_clocks([reading], 50.0) == []
    assert clock_problem(reading, 50.0) is None
    logged = ssh_runner.command_log[-1]
    assert "python3 -u -c" in logged.command
    assert logged.exit_status == 0
    stored = reading.to_dict()
    assert stored["host"] == "loop"
    assert set(stored) == {
        "host",
        "address",
        "offset_ms",
        "uncertainty_ms",
        "rtt_ms",
        "rounds",
        "measured_at",
    }


@pytest.mark.parametrize(("seconds", "side"), [(2.5, "ahead of"), (-0.75, "behind")])
def test_a_host_off_by_a_known_offset_is_measured_and_refused_by_name(
    ssh_runner: Any, tmp_path: Path, seconds: float, side: str
) -> None:
    reading = measure_clock(ssh_runner, argv=shifted_argv(tmp_path, seconds))
    assert abs(reading.offset_ms - seconds * 1000) <= reading.uncertainty_ms + 0.001, reading
    with pytest.raises(ClockRefused) as refused:
        check_clocks([reading], 50.0)
    text = str(refused.value)
    assert f"the clock of driver host 'loop' ({reading.address}) is" in text
    assert f"ms {side} this machine's" in text
    assert f"{abs(reading.offset_ms):,.1f} ms" in text
    assert "more than the plan's limit of 50 ms (driver.max_clock_offset_ms)" in text
    # A limit past the offset lets it run.
    assert check_clocks([reading], abs(seconds) * 1000 + 100) == []
    # The desktop's start instant in the host's clock: the offset added.
    assert reading.to_host(1_800_000_000.0) == pytest.approx(
        1_800_000_000.0 + seconds, abs=reading.uncertainty_ms / 1000 + 1e-6
    )


def test_every_host_too_far_off_is_named_at_once() -> None:
    def reading(host: str, offset: float, uncertainty: float = 0.2) -> ClockReading:
        return ClockReading(host, f"root@{host}:22", offset, uncertainty, 2 * uncertainty, 8, 0)

    hosts = [reading("a", 3.0), reading("b", 120.0), reading("c", -80.0), reading("d", 49.9)]
    with pytest.raises(ClockRefused) as refused:
        check_clocks(hosts, 50.0)
    text = str(refused.value)
    assert "'b' (root@b:22) is 120.0 ms ahead" in text
    assert "'c' (root@c:22) is 80.0 ms behind" in text
    assert "'a'" not in text
    assert "'d'" not in text
    # A host whose link is too slow to tell is a warning, not a refusal.
    slow = reading("e", 10.0, uncertainty=75.0)
    warnings = check_clocks([reading("a", 3.0), slow], 50.0)
    assert len(warnings) == 1
    assert "'e' (root@e:22) is only known to ±75.0 ms" in warnings[0]


def test_a_host_without_the_python_says_so(ssh_runner: Any) -> None:
    with pytest.raises(ClockError) as failed:
        measure_clock(ssh_runner, python="/nonexistent/python3")
    text = str(failed.value)
    assert "'loop' (root@127.0.0.1:" in text
    assert "did not tell its clock" in text
    assert "/nonexistent/python3" in text or "127" in text, text


def test_an_answer_that_is_not_a_clock_is_named(ssh_runner: Any) -> None:
    argv = ["sh", "-c", "while read line; do echo noon; done"]
    with pytest.raises(ClockError, match="answered 'noon' instead of its clock"):
        measure_clock(ssh_runner, argv=argv)


def test_a_host_that_never_answers_times_out(ssh_runner: Any) -> None:
    with pytest.raises(ClockError, match=r"did not tell its clock within 1 s"):
        measure_clock(ssh_runner, argv=["sh", "-c", "cat > /dev/null"], timeout=1.0)


def test_rounds_are_checked(ssh_runner: Any) -> None:
    with pytest.raises(ValueError, match="rounds must be from 1"):
        measure_clock(ssh_runner, rounds=0)
