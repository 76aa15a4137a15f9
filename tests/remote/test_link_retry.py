"""The setup retry of :mod:`bench_gui.remote.link_retry` against a real sshd: a host that stays
away is given up after a bounded number of reconnects, with the follower's notices."""

from __future__ import annotations

import dataclasses
import socket
from typing import Any

import pytest

from bench_gui.remote.errors import ConnectError
from bench_gui.remote.link_retry import over_cuts
from bench_gui.remote.ssh_transport import SSHTransport


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_host_that_stays_away_is_given_up_after_the_bounded_retries(sshd: Any) -> None:
    sshd.trust()
    states: list[str] = []
    target = dataclasses.replace(sshd.target(), port=closed_port())
    transport = SSHTransport(target, on_link_state=lambda state, _detail: states.append(state))
    delays: list[float] = []
    try:
        with pytest.raises(ConnectError):
            over_cuts(transport, transport.list_runs, attempts=3, sleep=delays.append)
    finally:
        transport.close()
    assert states == ["lost", "reconnecting", "reconnecting", "failed"]
    assert delays == [0.5, 1.0, 2.0]


def test_work_that_succeeds_gives_no_notice(sshd: Any) -> None:
    sshd.trust()
    states: list[str] = []
    transport = SSHTransport(sshd.target(), on_link_state=lambda state, _d: states.append(state))
    try:
        assert over_cuts(transport, transport.list_runs) == []
    finally:
        transport.close()
    assert states == []
