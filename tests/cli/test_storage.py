"""``bench-gui storage …`` end to end: a dry run, refusals, and a real cycle over SSH.

Runs that are not about the process scan pass ``--accept-unreadable-processes``: in a container
or sandbox some processes (its init) cannot be read even by root.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.main import main
from bench_gui.remote.targets import TARGETS_FILE, add_target
from bench_gui.store.paths import data_dir
from tests._fixtures.loop import LoopDevices, command_of, held_open, signature

ACCEPT = "--accept-unreadable-processes"


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

    assert main(["storage", "apply", str(layout), "--confirm", "/dev/sdq", ACCEPT]) == 4
    assert "not typed" in capsys.readouterr().err
    assert signature(dev) == ""

    assert main(["storage", "plan", str(layout), "--check", "--json", ACCEPT]) == 0
    assert json.loads(capsys.readouterr().out)["refused"] == []

    assert main(["storage", "apply", str(layout), "--confirm", dev, "--json", ACCEPT]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"]
    assert result["description"]["filesystem"]["type"] == "ext4"
    assert "TYPE=ext4" in signature(dev)

    assert main(["storage", "recorded", "bench-db", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["volume"] == dev

    # In use now: applying again is refused with the evidence, exit status 4.
    assert main(["storage", "apply", str(layout), "--confirm", dev, ACCEPT]) == 4
    assert f"is mounted on {point}" in capsys.readouterr().err

    assert main(["storage", "teardown", str(layout), "--confirm", Path(dev).name, ACCEPT]) == 0
    assert "taken down" in capsys.readouterr().out
    assert signature(dev) == ""
    assert main(["storage", "recorded", "bench-db", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_apply_names_the_process_that_holds_a_device_open(
    loops: LoopDevices, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = loops.make(64)
    layout = write_layout(tmp_path / "l.toml", [dev], tmp_path / "mnt")
    with held_open(dev) as holder:
        status = main(["storage", "apply", str(layout), "--confirm", dev, ACCEPT])
        command = command_of(holder.pid)
    assert status == 4
    err = capsys.readouterr().err
    assert f"is held open by process {holder.pid} ({command}) as fd 3" in err
    assert signature(dev) == ""


def test_teardown_of_a_layout_bench_gui_did_not_build(
    loops: LoopDevices, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = loops.make(256)
    subprocess.run(["mkfs.ext4", "-q", dev], check=True)
    point = tmp_path / "mnt"
    point.mkdir()
    subprocess.run(["mount", dev, str(point)], check=True)
    layout = write_layout(tmp_path / "l.toml", [dev], point)

    assert main(["storage", "teardown", str(layout), "--confirm", dev, ACCEPT]) == 4
    err = capsys.readouterr().err
    assert "no record of building" in err
    assert "--not-built-by-bench-gui" in err
    assert "TYPE=ext4" in signature(dev)
    assert main(["storage", "plan", str(layout), "--teardown", "--check", "--json", ACCEPT]) == 4
    refused = json.loads(capsys.readouterr().out)["refused"]
    assert [r["field"] for r in refused] == ["recorded"]

    argv = ["storage", "teardown", str(layout), "--confirm", dev, ACCEPT]
    assert main([*argv, "--not-built-by-bench-gui", "/dev/sdq"]) == 4
    assert "type every device of it again" in capsys.readouterr().err
    assert main([*argv, "--not-built-by-bench-gui", Path(dev).name]) == 0
    assert "taken down" in capsys.readouterr().out
    assert signature(dev) == ""


def test_a_process_scan_without_root_is_refused_unless_accepted(
    loops: LoopDevices, sshd: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if sshd.nosudo_user is None:
        pytest.skip("a user without sudo needs root to create")
    from bench_gui.remote import secrets

    sshd.trust()
    target = sshd.target("plain", user=sshd.nosudo_user, auth="password", key_path=None)
    add_target(target, data_dir() / TARGETS_FILE)
    secrets.set_secret("plain", "password", sshd.password)
    dev = loops.make(64)
    layout = write_layout(tmp_path / "l.toml", [dev], tmp_path / "mnt", target="plain")
    assert main(["storage", "apply", str(layout), "--confirm", dev]) == 4
    err = capsys.readouterr().err
    assert "processes: the open files of every process" in err
    assert "not root" in err
    assert "--accept-unreadable-processes" in err
    assert signature(dev) == ""


def test_a_bare_lvm_pv_after_an_empty_device_is_refused_over_ssh_unless_named_again(
    loops: LoopDevices, sshd: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The data loss case: one blkid over both devices stopped at the empty first one, and the
    physical volume after it was wiped with no warning."""
    if subprocess.run(["which", "pvcreate"], capture_output=True).returncode != 0:
        pytest.skip("pvcreate is not installed (lvm2: scripts/install-system-deps.sh --test)")
    sshd.trust()
    add_target(sshd.target("bench-db"), data_dir() / TARGETS_FILE)
    empty, pv = loops.make_many(2, 128)
    subprocess.run(["pvcreate", "-qq", "-y", pv], check=True, capture_output=True)
    loops.extra_cleanup.append(
        lambda: subprocess.run(["pvremove", "-qq", "-ff", "-y", pv], capture_output=True)
    )
    layout = tmp_path / "l.toml"
    layout.write_text(
        f'name = "pv"\ntarget = "bench-db"\n'
        f'devices = [{{ path = "{empty}", erase = "format-only" }},'
        f' {{ path = "{pv}", erase = "format-only" }}]\n'
        '[array]\nlevel = "0"\nbackend = "btrfs"\n[filesystem]\ntype = "btrfs"\n'
        f'[mount]\npoint = "{tmp_path / "mnt"}"\nowner = ""\n',
        encoding="utf-8",
    )
    confirm = f"{empty},{pv}"
    assert main(["storage", "apply", str(layout), "--confirm", confirm, ACCEPT]) == 4
    err = capsys.readouterr().err
    assert f"{pv} carries a signature" in err
    assert "is an LVM physical volume (signature LVM2_member)" in err
    assert "--wipe-signed" in err
    assert "TYPE=LVM2_member" in signature(pv)
    assert main(["storage", "apply", str(layout), "--confirm", confirm, ACCEPT,
                 "--wipe-signed", Path(pv).name]) == 0  # fmt: skip
    assert "TYPE=btrfs" in signature(pv)
    assert main(["storage", "teardown", str(layout), "--confirm", confirm, ACCEPT]) == 0
