"""Driver hosts in network namespaces: each an sshd of its own (``ssh.py``) inside a namespace
of its own, with its own hostname (a UTS namespace) and lock folder, reached from this machine
over a veth pair, so its link can be cut for good the way a host vanishes: its end of the pair
set down here, every packet to it goes nowhere and a new connection finds no route.

Everything else is this machine's (one filesystem: the agents reach the suite's PostgreSQL
through its Unix socket, and a test reads a host's spool directly). It needs root and a working
``ip netns``; :func:`namespaced_hosts` skips the test with the reason otherwise. Names and
addresses carry the test session's pid, so concurrent sessions on one machine do not meet,
and what a killed session left behind is removed by the next.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .ssh import Sshd, _require_sshd, running_sshd

PREFIX = "bgt"  # the namespaces' and links' names: bgt<pid><letter>[io]


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def _drop_stale() -> None:
    """Namespaces of test sessions that are gone (their pid no longer runs)."""
    listed = _ip("netns", "list", check=False).stdout
    for name in re.findall(rf"^({PREFIX}(\d+)[a-z])\b", listed, re.MULTILINE):
        if not Path(f"/proc/{name[1]}").exists():
            _ip("netns", "delete", name[0], check=False)


def netns_unavailable() -> str:
    """Why these hosts cannot be made here ("" when they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "no ip command (iproute2: scripts/install-system-deps.sh --test)"
    if shutil.which("unshare") is None:
        return "no unshare command (util-linux)"
    probe = f"{PREFIX}{os.getpid()}z"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    try:
        # Entering it needs a mount namespace of its own ("/" a mount point: a plain chroot
        # has none, and `ip -n` says "mount --make-rslave / failed").
        entered = _ip("-n", probe, "link", "set", "lo", "up", check=False)
        if entered.returncode != 0:
            return f"ip -n cannot enter a namespace here: {entered.stderr.strip()}"
    finally:
        _ip("netns", "delete", probe, check=False)
    return ""


@dataclass
class NamespacedHost:
    """A driver host in its own network namespace."""

    name: str  # its saved target's name and its hostname
    namespace: str
    outer: str  # its veth end on this machine
    sshd: Sshd

    @property
    def address(self) -> str:
        return self.sshd.address

    def cut(self) -> None:
        """The host vanishes: its link goes down (nothing reaches it, nor comes back)."""
        _ip("link", "set", self.outer, "down")

    def restore(self) -> None:
        _ip("link", "set", self.outer, "up")


@contextlib.contextmanager
def namespaced_host(folder: Path, name: str, index: int) -> Iterator[NamespacedHost]:
    """One host (``index``: its place among this session's, for its addresses) until the
    block ends; its namespace, links and sshd are gone after it."""
    pid = os.getpid()
    letter = "abcdefghijklmnopqrstuvwxy"[index]
    namespace = f"{PREFIX}{pid}{letter}"
    outer, inner = f"{namespace}o", f"{namespace}i"
    # A /30 of 10.231.0.0/16 per host and session: (pid, index) picks it.
    block = ((pid % 4096) * 16 + index) % 16384
    net = f"10.231.{block // 64}.{(block % 64) * 4}"
    base = net.rsplit(".", 1)[0]
    last = int(net.rsplit(".", 1)[1])
    here, there = f"{base}.{last + 1}", f"{base}.{last + 2}"
    _ip("netns", "add", namespace)
    try:
        _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        _ip("link", "set", inner, "netns", namespace)
        _ip("addr", "add", f"{here}/30", "dev", outer)
        _ip("link", "set", outer, "up")
        _ip("-n", namespace, "addr", "add", f"{there}/30", "dev", inner)
        _ip("-n", namespace, "link", "set", inner, "up")
        _ip("-n", namespace, "link", "set", "lo", "up")
        # Into the namespace, with a hostname of its own: sh sets it and becomes the sshd.
        prefix = ("ip", "netns", "exec", namespace, "unshare", "--uts", "sh", "-c")
        prefix += ('hostname "$1" && shift && exec "$@"', "sh", name)
        folder.mkdir(parents=True, exist_ok=True)
        with running_sshd(folder, str(folder / "locks"), there, prefix) as server:
            yield NamespacedHost(name, namespace, outer, server)
    finally:
        _ip("netns", "delete", namespace, check=False)  # its end of the pair goes with it
        _ip("link", "delete", outer, check=False)


@contextlib.contextmanager
def namespaced_hosts(folder: Path, names: list[str]) -> Iterator[list[NamespacedHost]]:
    """Hosts of those names, each in its own namespace; the test is skipped, with the reason,
    where they cannot be made."""
    _require_sshd()
    why = netns_unavailable()
    if why:
        pytest.skip(f"driver hosts in network namespaces: {why}")
    _drop_stale()
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(namespaced_host(folder / name, name, index))
            for index, name in enumerate(names)
        ]
