"""The memory limit: this host's cgroups found, a real group made, limited, entered, measured
and removed; groups a dead agent left behind cleaned up; clear errors where it cannot work."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bench_gui.workloads.random_read.agent.cgroup import (
    PREFIX,
    CgroupError,
    Hierarchy,
    MemoryCgroup,
    Mount,
    find_hierarchy,
    inherited_limit,
    machine_ram,
    parse_mountinfo,
    parse_proc_cgroup,
    remove_stale,
)
from tests.workloads.random_read.agent.helpers import memory_cgroups_usable, need_root

HYBRID_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V2_MOUNTINFO = "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def test_hierarchies_are_read_from_mountinfo_and_proc_cgroup() -> None:
    mounts = parse_mountinfo(HYBRID_MOUNTINFO)
    assert [(m.point, m.version) for m in mounts] == [
        ("/sys/fs/cgroup/memory", 1),
        ("/sys/fs/cgroup/blkio", 1),
        ("/sys/fs/cgroup/unified", 2),
    ]
    assert "memory" in mounts[0].controllers
    own = parse_proc_cgroup("4:memory:/process_api/abc\n7:blkio:/\n0::/user.slice/x.scope\n")
    assert own == {"memory": "/process_api/abc", "blkio": "/", "": "/user.slice/x.scope"}
    # A hybrid host keeps memory on v1: the group goes under the agent's own v1 group.
    found = find_hierarchy(HYBRID_MOUNTINFO, "4:memory:/process_api/abc\n0::/\n")
    assert found.version == 1
    assert found.own == "/sys/fs/cgroup/memory/process_api/abc"
    assert found.controller_folder() == found.own


def test_on_v2_the_group_goes_beside_the_agent_s_own() -> None:
    hierarchy = Hierarchy(Mount("/sys/fs/cgroup", 2, "/", frozenset()), "/sys/fs/cgroup/a/b")
    assert hierarchy.controller_folder() == "/sys/fs/cgroup/a"
    root = Hierarchy(Mount("/sys/fs/cgroup", 2, "/", frozenset()), "/sys/fs/cgroup")
    assert root.controller_folder() == "/sys/fs/cgroup"


def test_no_memory_controller_is_a_clear_error() -> None:
    with pytest.raises(CgroupError, match="no cgroup hierarchy with the memory controller"):
        find_hierarchy("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n", "0::/\n")
    mounts = parse_mountinfo(V2_MOUNTINFO)
    assert mounts[0].version == 2


def test_a_group_cannot_be_made_where_there_is_no_hierarchy(tmp_path: Path) -> None:
    fake = Hierarchy(Mount(str(tmp_path), 1, "/", frozenset({"memory"})), str(tmp_path / "none"))
    with pytest.raises(CgroupError, match="cannot create a cgroup in .*none"):
        MemoryCgroup(256 * 1024 * 1024, fake)


def test_the_machine_s_ram_and_the_agent_s_own_limit() -> None:
    ram = machine_ram()
    assert ram > 256 * 1024 * 1024
    try:
        hierarchy = find_hierarchy()
    except CgroupError as exc:
        pytest.skip(str(exc))
    limit = inherited_limit(hierarchy)
    assert limit is None or limit > 0


def test_a_real_group_limits_what_a_process_in_it_may_cache(tmp_path: Path) -> None:
    need_root()
    memory_cgroups_usable()
    data = tmp_path / "data"
    data.write_bytes(os.urandom(1024 * 1024) * 160)  # 160 MiB
    subprocess.run(["sh", "-c", "sync; echo 1 > /proc/sys/vm/drop_caches"], check=True)
    limit = 96 * 1024 * 1024
    group = MemoryCgroup(limit)
    folder = group.folder
    try:
        assert os.path.basename(folder).startswith(f"{PREFIX}{os.getpid()}-")
        where = subprocess.run(
            group.wrap(["cat", "/proc/self/cgroup"]), capture_output=True, text=True, check=True
        ).stdout
        assert os.path.basename(folder) in where
        # Reading 160 MiB through the group caches at most its limit.
        subprocess.run(group.wrap(["cat", str(data)]), check=True, stdout=subprocess.DEVNULL)
        peak = group.peak_bytes()
        used = group.usage_bytes()
        assert peak is not None
        assert used is not None
        assert 0 < used <= limit
        assert peak <= limit + 4096
        assert peak > 32 * 1024 * 1024  # it did cache, up to the limit
    finally:
        group.remove()
    assert not os.path.exists(folder)


def test_groups_of_dead_agents_are_removed() -> None:
    need_root()
    memory_cgroups_usable()
    group = MemoryCgroup(128 * 1024 * 1024)
    parent = os.path.dirname(group.folder)
    group.remove()
    # A pid that no longer runs: a child that has exited and been reaped.
    proc = subprocess.Popen(["true"])
    proc.wait()
    stale = os.path.join(parent, f"{PREFIX}{proc.pid}-1")
    os.mkdir(stale)
    mine = os.path.join(parent, f"{PREFIX}{os.getpid()}-999")
    os.mkdir(mine)
    try:
        removed = remove_stale(parent)
        assert stale in removed
        assert not os.path.exists(stale)
        assert os.path.exists(mine)  # this agent is alive: its groups stay
    finally:
        for folder in (stale, mine):
            if os.path.exists(folder):
                os.rmdir(folder)
