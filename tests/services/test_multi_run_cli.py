"""``bench-gui run`` of a plan on two driver hosts: a link cut on one host is said on stderr as
it happens, naming that host (the CLI sets the run controller's notice callback)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli import main as cli
from bench_gui.wire.protocol import Event
from tests._fixtures.ssh import Sshd
from tests.services.plans import two_host_plan

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("multi_database")]


def test_the_cli_says_a_host_link_cut(
    sshd2: Sshd,
    pg_server: Any,
    two_hosts: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = tmp_path / "two.toml"
    two_host_plan(pg_server, two_hosts, virtual_users=[2], duration_s=3).save(plan)
    shown = cli.ProgressPrinter.__call__
    cut: list[int] = []

    def printer(self: cli.ProgressPrinter, event: Event) -> None:
        """The CLI's own printer; at the first measured second beta's links are cut."""
        shown(self, event)
        if not cut and event.kind == "sample" and event.get("phase") == "measure":
            for port in sshd2.established_client_ports():
                cut.extend(sshd2.cut(port))

    monkeypatch.setattr(cli.ProgressPrinter, "__call__", printer)
    code = cli.main(["--db", str(tmp_path / "s.sqlite3"), "run", str(plan), "--quiet"])
    err = capsys.readouterr().err
    assert cut
    assert code == 0, err
    lines = err.splitlines()
    lost = [line for line in lines if line.startswith("link lost: driver host 'beta'")]
    restored = [line for line in lines if line.startswith("link restored: driver host 'beta'")]
    assert lost, err
    assert restored, err
    assert lines.index(lost[0]) < lines.index(restored[0])
    assert not [line for line in lines if "'alpha'" in line and line.startswith("link")]
