"""Inventory parsers on captured output (old and new tool versions), and a real inventory."""

from __future__ import annotations

import json
from typing import Any

from bench_gui.remote.deploy import build_bundle, copy_problem, local_python
from bench_gui.remote.inventory import (
    collect_inventory,
    parse_cpuinfo,
    parse_findmnt_json,
    parse_lsblk_json,
    parse_lscpu_json,
    parse_meminfo,
    parse_os_release,
    parse_proc_mounts,
)
from bench_gui.remote.python_info import PythonInfo
from bench_gui.remote.ssh_transport import connect

LSCPU_NESTED = json.dumps(
    {
        "lscpu": [
            {
                "field": "Architecture:",
                "data": "x86_64",
                "children": [{"field": "CPU op-mode(s):", "data": "32-bit, 64-bit"}],
            },
            {"field": "CPU(s):", "data": "64"},
            {
                "field": "Vendor ID:",
                "data": "GenuineIntel",
                "children": [
                    {
                        "field": "Model name:",
                        "data": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
                        "children": [
                            {"field": "Thread(s) per core:", "data": "2"},
                            {"field": "Core(s) per socket:", "data": "16"},
                            {"field": "Socket(s):", "data": "2"},
                            {"field": "CPU max MHz:", "data": "3200,0000"},
                        ],
                    }
                ],
            },
            {
                "field": "Caches (sum of all):",
                "data": None,
                "children": [{"field": "L3 cache:", "data": "96 MiB (2 instances)"}],
            },
            {"field": "NUMA node(s):", "data": "2"},
        ]
    }
)

CPUINFO = "".join(
    f"processor\t: {i}\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7302\n"
    f"physical id\t: {i // 4}\ncore id\t\t: {(i % 4) // 2}\n\n"
    for i in range(8)
)

LSBLK_OLD = json.dumps(
    {
        "blockdevices": [
            {
                "name": "sda",
                "type": "disk",
                "size": "4000787030016",
                "model": "ST4000NM0035",
                "serial": "ZC1ABC",
                "rota": "1",
                "tran": "sata",
                "rev": "TN04",
                "fstype": None,
                "mountpoint": None,
                "children": [
                    {
                        "name": "sda1",
                        "type": "part",
                        "size": "4000785964544",
                        "model": None,
                        "serial": None,
                        "rota": "1",
                        "tran": None,
                        "rev": None,
                        "fstype": "xfs",
                        "mountpoint": "/data",
                    }
                ],
            },
            {
                "name": "nvme0n1",
                "type": "disk",
                "size": "1600321314816",
                "model": "INTEL SSDPE2KE016T8",
                "serial": "PHLN0001",
                "rota": "0",
                "tran": "nvme",
                "rev": "VDV10131",
                "fstype": None,
                "mountpoint": None,
            },
        ]
    }
)


def test_lscpu_nested_and_cpuinfo() -> None:
    cpu = parse_lscpu_json(LSCPU_NESTED)
    assert cpu["model"] == "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"
    assert (cpu["sockets"], cpu["cores"], cpu["threads"]) == (2, 32, 64)
    assert cpu["max_mhz"] == 3200.0
    assert cpu["numa_nodes"] == 2
    assert cpu["caches"] == {"L3 cache": "96 MiB (2 instances)"}
    info = parse_cpuinfo(CPUINFO)
    assert (info["model"], info["sockets"], info["cores"], info["threads"]) == (
        "AMD EPYC 7302",
        2,
        4,
        8,
    )


def test_meminfo_os_release_mounts() -> None:
    mem = parse_meminfo(
        "MemTotal:       16318440 kB\nMemAvailable:   9000000 kB\nHugePages_Total:"
        "       0\nHugepagesize:       2048 kB\n"
    )
    assert mem["total_bytes"] == 16318440 * 1024
    assert mem["hugepages_total"] == 0
    osr = parse_os_release(
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n# comment\n'
    )
    assert osr == {
        "pretty_name": "Debian GNU/Linux 12 (bookworm)",
        "id": "debian",
        "version_id": "12",
        "version_codename": None,
    }
    mounts = parse_proc_mounts(
        "/dev/sda1 /data\\040disk xfs rw,noatime 0 0\nproc /proc proc rw 0 0\n"
    )
    assert mounts == [
        {
            "target": "/data disk",
            "source": "/dev/sda1",
            "fstype": "xfs",
            "options": "rw,noatime",
            "size_bytes": None,
            "avail_bytes": None,
            "used_bytes": None,
        }
    ]


def test_lsblk_old_format_is_normalised() -> None:
    disks = parse_lsblk_json(LSBLK_OLD)
    sda, nvme = disks
    assert sda["size_bytes"] == 4000787030016
    assert sda["rotational"] is True
    assert sda["path"] == "/dev/sda"
    assert sda["firmware"] == "TN04"
    assert sda["children"][0]["mountpoints"] == ["/data"]
    assert nvme["rotational"] is False
    assert nvme["transport"] == "nvme"
    assert nvme["model"] == "INTEL SSDPE2KE016T8"


def test_findmnt_tree_is_flattened_without_pseudo_filesystems() -> None:
    tree = {
        "filesystems": [
            {
                "target": "/",
                "source": "/dev/vda",
                "fstype": "ext4",
                "options": "rw",
                "size": 100,
                "avail": 40,
                "used": 60,
                "children": [
                    {"target": "/proc", "source": "proc", "fstype": "proc", "options": "rw"},
                    {
                        "target": "/data",
                        "source": "/dev/vdb",
                        "fstype": "xfs",
                        "options": "rw",
                        "size": "7",
                    },
                ],
            }
        ]
    }
    mounts = parse_findmnt_json(json.dumps(tree))
    assert [(m["target"], m["size_bytes"]) for m in mounts] == [("/", 100), ("/data", 7)]


def test_inventory_of_a_real_host(sshd: Any) -> None:
    sshd.trust()
    with connect(sshd.target()) as session:
        inventory = collect_inventory(session)
        commands = [e.command for e in session.command_log]
    assert inventory["cpu"]["threads"] >= 1
    assert inventory["cpu"]["model"]
    assert inventory["memory"]["total_bytes"] > 1 << 20
    assert inventory["kernel"]["release"]
    assert inventory["os"]["id"]
    assert isinstance(inventory["block_devices"], list)
    assert any(m["target"] == "/" for m in inventory["filesystems"])
    assert isinstance(inventory["notes"], list)
    assert any(c.startswith("lsblk -J -b -o NAME,PATH") for c in commands)
    json.dumps(inventory)  # storable as is


def test_missing_tool_is_a_note_not_a_crash(sshd: Any) -> None:
    sshd.trust()
    with connect(sshd.target()) as session:
        real_run = session.run

        def run(argv: list[str], **kwargs: Any) -> Any:
            if argv[0] in ("lscpu", "lsblk", "findmnt"):
                argv = ["sh", "-c", f"echo '{argv[0]}: command not found' >&2; exit 127"]
            return real_run(argv, **kwargs)

        session.run = run  # type: ignore[method-assign,assignment]
        inventory = collect_inventory(session)
    assert inventory["cpu"]["threads"] >= 1  # from /proc/cpuinfo
    assert inventory["block_devices"] == []
    assert any(m["target"] == "/" for m in inventory["filesystems"])  # from /proc/mounts
    notes = " ".join(inventory["notes"])
    assert "lscpu" in notes
    assert "lsblk" in notes
    assert "findmnt" in notes


def test_copy_problem_says_what_the_host_runs() -> None:
    local = local_python()
    bundle = build_bundle(True)
    assert copy_problem(local, local, bundle) is None
    other_minor = 9 if local.version[1] != 9 else 10
    older = PythonInfo(
        executable="/usr/bin/python3",
        version=(3, other_minor, 1),
        impl="cpython",
        cache_tag=f"cpython-3{other_minor}",
        platform=local.platform,
        machine=local.machine,
        libc=local.libc,
    )
    wanted = f"{local.impl} {local.version[0]}.{local.version[1]} like this desktop's"
    assert wanted in (copy_problem(older, local, bundle) or "")
    arm = PythonInfo(
        executable="python3",
        version=local.version,
        impl=local.impl,
        cache_tag=local.cache_tag,
        platform="linux-aarch64",
        machine="aarch64",
        libc=local.libc,
    )
    assert "platform" in (copy_problem(arm, local, bundle) or "")
    old_glibc = PythonInfo(
        executable="python3",
        version=local.version,
        impl=local.impl,
        cache_tag=local.cache_tag,
        platform=local.platform,
        machine=local.machine,
        libc=("glibc", "2.12"),
    )
    assert "glibc 2.17 or newer" in (copy_problem(old_glibc, local, bundle) or "")
    # The bundle carries hdrh's C extension and psycopg's binary part, never pbr/setuptools.
    names = set(bundle.files)
    assert any(n.startswith("deps/pyhdrh") for n in names)
    assert any(n.startswith("deps/psycopg_binary/") for n in names)
    assert not any(n.startswith(("deps/pbr", "deps/setuptools")) for n in names)
    # The agent's contract package goes with it: the agent imports it on the host.
    assert "bench_gui/agent/__main__.py" in names
    assert "bench_gui/wire/protocol.py" in names
