"""``bench-gui tune postgresql`` and ``tune presets``: the calculator from the command line.

(Applying to a real server from the command line is tested with the server in
``tests/engines/postgresql/test_tuner.py``; OS knobs in ``tests/remote/test_osknobs.py``.)
"""

from __future__ import annotations

import json

import pytest

from bench_gui.cli.main import main


def test_the_issues_example(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tune", "postgresql", "--ram", "128GiB", "--cpus", "24", "--connections", "100",
            "--storage", "ssd", "--type", "oltp", "--version", "16"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "# DB Version: 16" in out
    lines = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert lines["shared_buffers"].startswith("shared_buffers = 32GB")
    assert "# RAM/4 = 128GB/4 = 32GB" in lines["shared_buffers"]
    assert lines["work_mem"].startswith("work_mem = 270600kB")
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    values = {s["name"]: s["value"] for s in data["settings"]}
    assert values["effective_cache_size"] == "96GB"
    assert data["inputs"]["connections"] == 100
    assert main([*argv, "--alter-system"]) == 0
    assert "ALTER SYSTEM SET max_wal_size = '8GB';" in capsys.readouterr().out


def test_old_versions_and_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "postgresql", "--ram", "64GB", "--version", "9.4",
                 "--edition", "classic"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "checkpoint_segments = 64" in out  # oltp
    assert "max_wal_size = " not in out
    assert main(["tune", "postgresql", "--ram", "64 bananas"]) == 2
    assert "unknown unit" in capsys.readouterr().err
    assert main(["tune", "postgresql", "--ram", "64GB", "--cpus", "0"]) == 2
    assert "--cpus: must be between 1 and 9999" in capsys.readouterr().err
    assert main(["tune", "postgresql", "--ram", "8GB", "--storage", "nvme",
                 "--edition", "classic"]) == 0  # fmt: skip


def test_presets_are_listed_and_mapped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "presets"]) == 0
    out = capsys.readouterr().out
    assert "micron-s650dc-ssd" in out
    assert "micron-9300-linux" in out
    assert main(["tune", "presets", "micron-s650dc-ssd", "--version", "16", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    values = {s["name"]: s["value"] for s in data["settings"]}
    assert values["max_wal_size"] == "192GB"
    assert "checkpoint_segments" not in values
    assert main(["tune", "presets", "nope"]) == 1
