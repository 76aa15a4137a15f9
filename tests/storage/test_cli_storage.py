"""``bench-gui storage …`` end to end: a dry run, refusals, and a real cycle over SSH."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from storage_helpers import LoopDevices, signature

from bench_gui.cli import main
from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.store.paths import data_dir


def write_layout(path: Path, devices: list[str], point: Path, target: str = "local") -> Path:
    items = ", ".join(f'{{ path = "{d}", erase = "discard" }}' for d in devices)
    path.write_text(
        f'name = "cli test"\ntarget = "{target}"\ndevices = [{items}]\n'
        f'[filesystem]\ntype = "ext4"\n[mount]\npoint = "{point}"\nowner = ""\n',
        encoding="utf-8",
    )
    return path


def test_plan_is_a_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout = write_layout(tmp_path / "l.toml", ["/dev/sdx"], tmp_path / "m")
    assert main(["storage", "plan", str(layout), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["confirm"] == ["/dev/sdx"]
    assert [s["argv"][0] for s in data["steps"]] == ["blkdiscard", "mkfs.ext4", "mkdir", "mount"]
    assert main(["storage", "plan", str(layout), "--teardown"]) == 0
    text = capsys.readouterr().out
    assert "umount -- " in text
    assert "wipefs --all -- /dev/sdx" in text


def test_a_bad_layout_names_its_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('devices = ["/dev/sdb; reboot"]\n[array]\nlevel = "5"\n', encoding="utf-8")
    assert main(["storage", "plan", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "devices[0].path" in err
    assert "array.level" in err


def test_devices_of_this_machine(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["storage", "devices", "local", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["devices"]
    assert all("evidence" in d and "erase_methods" in d for d in data["devices"])


def test_apply_and_teardown_over_ssh(
    loops: LoopDevices, sshd: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sshd.trust()
    add_target(sshd.target("bench-db"), data_dir() / TARGETS_FILE)
    dev = loops.make(256)
    point = tmp_path / "mnt"
    layout = write_layout(tmp_path / "l.toml", [dev], point, target="bench-db")

    assert main(["storage", "apply", str(layout), "--confirm", "/dev/sdq"]) == 4
    assert "not typed" in capsys.readouterr().err
    assert signature(dev) == ""

    assert main(["storage", "plan", str(layout), "--check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["refused"] == []

    assert main(["storage", "apply", str(layout), "--confirm", dev, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"]
    assert result["description"]["filesystem"]["type"] == "ext4"
    assert "TYPE=ext4" in signature(dev)

    assert main(["storage", "recorded", "bench-db", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["volume"] == dev

    # In use now: applying again is refused with the evidence, exit status 4.
    assert main(["storage", "apply", str(layout), "--confirm", dev]) == 4
    assert f"is mounted on {point}" in capsys.readouterr().err

    assert main(["storage", "teardown", str(layout), "--confirm", Path(dev).name]) == 0
    assert "taken down" in capsys.readouterr().out
    assert signature(dev) == ""
    assert main(["storage", "recorded", "bench-db", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
