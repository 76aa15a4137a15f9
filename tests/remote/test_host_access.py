"""A command run as another user on this machine gets that user's groups, not root's
(a root-owned 0701 folder must refuse it by the "other" bits, as sudo -u would)."""

from __future__ import annotations

import os
import pwd

import pytest

from bench_gui.remote.host_access import LocalHost

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="running as another user needs root")


def _id(flag: str) -> list[int]:
    result = LocalHost().run(["id", flag], as_user="nobody")
    assert result.ok, result.stderr
    return [int(v) for v in result.stdout.split()]


def test_as_user_runs_with_that_users_groups() -> None:
    nobody = pwd.getpwnam("nobody")
    assert _id("-u") == [nobody.pw_uid]
    assert _id("-g") == [nobody.pw_gid]
    groups = set(_id("-G"))
    assert 0 not in groups
    assert groups == set(os.getgrouplist("nobody", nobody.pw_gid))
