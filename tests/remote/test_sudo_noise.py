"""A failed command's reason is its telling line: sudo's "unable to resolve host" warning (a
host whose name is not in its /etc/hosts, common on fresh machines) came first and hid "is not
in the sudoers file" in the target check."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from bench_gui.remote.errors import first_error_line
from bench_gui.remote.host_access import RunResult


def test_the_reason_is_the_line_after_sudo_s_host_warning() -> None:
    stderr = (
        "sudo: unable to resolve host vm: Name or service not known\n"
        "bgnosudo is not in the sudoers file.  This incident will be reported.\n"
    )
    assert first_error_line(stderr, "", 1).startswith("bgnosudo is not in the sudoers file")
    # Alone, the warning is still said; nothing at all gives the exit status.
    alone = "sudo: unable to resolve host vm: Name or service not known\n"
    assert first_error_line(alone, "", 1) == alone.strip()
    assert first_error_line("", "  \n", 3) == "exit status 3"


def test_real_sudo_on_a_host_whose_name_does_not_resolve() -> None:
    if os.geteuid() != 0 or not shutil.which("sudo") or not shutil.which("unshare"):
        pytest.skip("needs root, sudo and unshare (a hostname of its own, nobody's sudo)")
    argv = ["unshare", "--uts", "sh", "-c",
            "hostname bench-gui-nowhere.invalid && runuser -u nobody -- sudo -n true"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if "unable to resolve host" not in done.stderr:
        pytest.skip(f"sudo said no host warning here: {done.stderr.strip()!r}")
    result = RunResult(argv, done.returncode, done.stdout, done.stderr)
    assert result.first_error_line() == "sudo: a password is required"
