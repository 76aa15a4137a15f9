"""The process scan's text, read: who holds which device, and whether every process was seen.

The captured output is what the scan in ``remote.storage`` prints (checked for real on loop
devices in ``tests/remote/test_storage_guards.py``).
"""

from __future__ import annotations

from bench_gui.core.open_handles import failed_scan, parse_handle_scan

ROOT_SCAN = """\
@@uid
0
@@fds
/proc/4242/fd/3 61b0 7 3
/proc/4242/fd/4 61b0 7 3
/proc/4242/fd/5 21b6 1 3
/proc/77/fd/9 61b0 7 4
find: '/proc/5000/fd': No such file or directory
stat: cannot statx '/proc/5001/fd/3': No such file or directory
@@maps
/proc/88/maps:7f1c2a000000-7f1c2a001000 r--s 00000000 00:05 1042 /dev/loop3
/proc/89/maps:7f1c2a000000-7f1c2a001000 r--s 00000000 00:05 1043 /dev/loop30 (deleted)
@@comm
4242 sleep
77 dd
88 python3
89 mapper\x1b[31m
@@dmopen
253:0 2
253:1 0
@@end
"""


def test_descriptors_and_maps_name_the_process_that_holds_a_device() -> None:
    scan = parse_handle_scan(ROOT_SCAN)
    assert scan.complete
    assert scan.problem() == ""
    holds = scan.holds("7:3", {"/dev/loop3"})
    assert [(h.pid, h.command, h.fds, h.mapped) for h in holds] == [
        (88, "python3", (), True),
        (4242, "sleep", (3, 4), False),
    ]
    assert holds[1].describe() == "process 4242 (sleep) as fds 3, 4"
    assert holds[0].describe() == "process 88 (python3) mapped in its memory"
    assert holds[0].source == "/proc/88/maps"
    # A character device (mode 21b6: /dev/null) is no block device; loop30 is not loop3.
    assert scan.holds("1:3", {"/dev/null"}) == []
    assert [h.pid for h in scan.holds("7:30", {"/dev/loop30"})] == [89]
    assert scan.commands[89] == "mapper\\x1b[31m"  # escaped, never sent to a terminal raw
    assert scan.holds("7:4", set())[0].describe() == "process 77 (dd) as fd 9"
    assert scan.open_counts == {"253:0": 2, "253:1": 0}


def test_processes_that_cannot_be_read_make_the_scan_incomplete() -> None:
    text = ROOT_SCAN.replace(
        "@@maps\n",
        "find: '/proc/1/fd/0': Permission denied\nfind: '/proc/1/fd/1': Permission denied\n"
        "@@maps\ngrep: /proc/1/maps: Permission denied\n",
    ).replace("@@comm\n", "@@comm\n1 process_api\n")
    scan = parse_handle_scan(text)
    assert not scan.complete
    assert [(u.pid, u.command, u.reason) for u in scan.unreadable] == [
        (1, "process_api", "Permission denied")
    ]
    assert scan.problem() == (
        "1 process could not be read (process 1 (process_api): Permission denied)"
    )


def test_a_scan_that_is_not_root_says_so() -> None:
    text = "@@uid\n1001\n@@fds\n" + "".join(
        f"find: '/proc/{pid}/fd': Permission denied\n" for pid in range(100, 112)
    )
    scan = parse_handle_scan(text + "@@maps\n@@comm\n@@dmopen\n@@end\n")
    assert not scan.complete
    problem = scan.problem()
    assert problem.startswith("the process scan ran as uid 1001, not root")
    assert "12 processes could not be read" in problem
    assert "and 4 more" in problem


def test_a_failed_or_cut_scan_is_incomplete_with_its_reason() -> None:
    cut = parse_handle_scan("@@uid\n0\n@@fds\n/proc/3/fd/1 61b0 7 0\n")
    assert not cut.complete
    assert "stopped before its end" in cut.problem()
    odd = parse_handle_scan("@@uid\n0\n@@fds\nfind: unknown predicate `-lname'\n@@end\n")
    assert not odd.complete
    assert "unknown predicate" in odd.problem()
    failed = failed_scan("the process scan did not finish in 60 s")
    assert not failed.complete
    assert failed.problem() == "the process scan did not finish in 60 s"
