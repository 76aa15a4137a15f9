"""Files and commands on a host, this one or an SSH target, as root or as another user.

Tuning needs the same few operations wherever the server runs: read and write a file (a
sysctl under ``/proc/sys``, ``postgresql.auto.conf``), run a command as root or as the data
directory's owner (``pg_ctl`` refuses root), list a directory of ``/sys``. :class:`LocalHost`
does them here; :class:`SSHHost` does them through an
:class:`~bench_gui.remote.connection.SSHConnection` (argument lists, sudo as the target allows,
every command in the connection's command log).

Failures are ``OSError`` subclasses with the errno the operation met (``FileNotFoundError`` for
a knob the kernel lacks, ``PermissionError`` for a missing privilege, ``EINVAL`` for a value
the kernel refuses), so callers handle both kinds of host the same way.
"""

from __future__ import annotations

import base64
import errno
import os
import pwd
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bench_gui.remote.errors import first_error_line

if TYPE_CHECKING:
    from bench_gui.remote.connection import SSHConnection


@dataclass
class RunResult:
    """What a command did."""

    argv: list[str]
    exit_status: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_status == 0

    def first_error_line(self) -> str:
        return first_error_line(self.stderr, self.stdout, self.exit_status)


class HostIO(Protocol):
    """The operations tuning needs on a host."""

    label: str
    is_local: bool

    def run(
        self,
        argv: list[str],
        *,
        root: bool = False,
        as_user: str | None = None,
        timeout: float = 60.0,
        input: str | None = None,
    ) -> RunResult: ...

    def read_text(self, path: str, *, root: bool = False) -> str: ...

    def read_many(self, paths: list[str]) -> dict[str, str | OSError]: ...

    def read_from(self, path: str, offset: int) -> str: ...

    def write_text(self, path: str, text: str, *, root: bool = True) -> None: ...

    def listdir(self, path: str) -> list[str]: ...

    def realpath(self, path: str) -> str: ...

    def exists(self, path: str) -> bool: ...

    def size(self, path: str) -> int: ...

    def owner(self, path: str) -> str: ...

    def device_of(self, path: str) -> tuple[int, int] | None: ...


_STRERRORS = {os.strerror(code): code for code in errno.errorcode}


def os_error(text: str, path: str) -> OSError:
    """The OSError a command's error text describes (``cat: x: No such file or directory``)."""
    for message, code in sorted(_STRERRORS.items(), key=lambda kv: -len(kv[0])):
        if message and message in text:
            if code == errno.ENOENT:
                return FileNotFoundError(code, message, path)
            if code in (errno.EACCES, errno.EPERM):
                return PermissionError(code, message, path)
            return OSError(code, message, path)
    return OSError(errno.EIO, text.strip() or "failed", path)


def _groups(user: str | None, primary: int | None) -> list[int]:
    """The supplementary groups of ``user`` (as ``initgroups`` would set them)."""
    if user is None or primary is None:
        return []
    return [g for g in os.getgrouplist(user, primary) if g != primary]


class LocalHost:
    """This machine."""

    label = "this machine"
    is_local = True

    def run(
        self,
        argv: list[str],
        *,
        root: bool = False,
        as_user: str | None = None,
        timeout: float = 60.0,
        input: str | None = None,
    ) -> RunResult:
        me = os.geteuid()
        user: int | None = None
        group: int | None = None
        if as_user is not None:
            entry = pwd.getpwnam(as_user)
            if entry.pw_uid != me:
                if me != 0:
                    raise PermissionError(
                        errno.EPERM, f"running a command as {as_user} needs root", argv[0]
                    )
                # The user's own groups too, as sudo -u gives them: with root's group kept, a
                # root-owned 0750/0701 folder would grant or refuse by the wrong bits.
                user, group = entry.pw_uid, entry.pw_gid
        elif root and me != 0:
            raise PermissionError(errno.EPERM, "this needs root", argv[0])
        # Output through temporary files, not pipes: a server started by the command keeps
        # its inherited descriptors, and a pipe would never see end-of-file.
        import tempfile

        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.run(
                    argv,
                    stdin=subprocess.DEVNULL if input is None else None,
                    input=None if input is None else input.encode(),
                    stdout=out,
                    stderr=err,
                    timeout=timeout,
                    user=user,
                    group=group,
                    extra_groups=None if user is None else _groups(as_user, group),
                    check=False,
                    cwd="/",
                )
            except FileNotFoundError as exc:
                return RunResult(list(argv), 127, "", f"{argv[0]}: {exc.strerror}")
            out.seek(0)
            err.seek(0)
            return RunResult(
                list(argv),
                proc.returncode,
                out.read().decode("utf-8", errors="replace"),
                err.read().decode("utf-8", errors="replace"),
            )

    def read_text(self, path: str, *, root: bool = False) -> str:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()

    def read_many(self, paths: list[str]) -> dict[str, str | OSError]:
        out: dict[str, str | OSError] = {}
        for path in paths:
            try:
                out[path] = self.read_text(path)
            except OSError as exc:
                out[path] = exc
        return out

    def read_from(self, path: str, offset: int) -> str:
        """The end of a file from a byte offset (a log since a mark)."""
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read().decode("utf-8", errors="replace")

    def write_text(self, path: str, text: str, *, root: bool = True) -> None:
        # Unbuffered single write: sysfs and procfs take a value per write() call.
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def size(self, path: str) -> int:
        return os.stat(path).st_size

    def owner(self, path: str) -> str:
        uid = os.stat(path).st_uid
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return str(uid)

    def device_of(self, path: str) -> tuple[int, int] | None:
        dev = os.stat(path).st_dev
        return os.major(dev), os.minor(dev)


# Reads many small files in one round trip: a status, the path and the content in base64.
_READ_MANY = r"""
for f do
  if [ -e "$f" ]; then
    if v=$(cat -- "$f" 2>&1); then s=ok; else s=err; fi
  else
    s=missing; v=
  fi
  printf '%s\t%s\t' "$s" "$f"
  printf '%s' "$v" | base64 | tr -d '\n'
  printf '\n'
done
"""


class SSHHost:
    """A target reached through an SSH session (root through the target's sudo setting)."""

    is_local = False

    def __init__(self, session: SSHConnection) -> None:
        self.session = session
        self.label = session.label

    def run(
        self,
        argv: list[str],
        *,
        root: bool = False,
        as_user: str | None = None,
        timeout: float = 60.0,
        input: str | None = None,
    ) -> RunResult:
        full = list(argv)
        sudo = root
        if as_user is not None and as_user != self.session.user:
            full = ["runuser", "-u", as_user, "--", *full]
            sudo = True
        result = self.session.run(full, sudo=sudo, timeout=timeout, input=input)
        return RunResult(list(argv), result.exit_status, result.stdout, result.stderr)

    def _checked(self, argv: list[str], path: str, root: bool = False) -> RunResult:
        result = self.run(argv, root=root)
        if not result.ok:
            raise os_error(result.stderr or result.stdout, path)
        return result

    def read_text(self, path: str, *, root: bool = False) -> str:
        return self._checked(["cat", "--", path], path, root).stdout

    def read_many(self, paths: list[str]) -> dict[str, str | OSError]:
        out: dict[str, str | OSError] = {}
        if not paths:
            return out
        result = self.run(["sh", "-c", _READ_MANY, "sh", *paths])
        for line in result.stdout.splitlines():
            status, _, rest = line.partition("\t")
            path, _, data = rest.partition("\t")
            text = base64.b64decode(data).decode("utf-8", errors="replace") if data else ""
            if status == "ok":
                out[path] = text
            elif status == "missing":
                out[path] = FileNotFoundError(errno.ENOENT, "No such file or directory", path)
            else:
                out[path] = os_error(text, path)
        for path in paths:
            out.setdefault(path, OSError(errno.EIO, result.first_error_line(), path))
        return out

    def read_from(self, path: str, offset: int) -> str:
        return self._checked(["tail", "-c", f"+{offset + 1}", "--", path], path, True).stdout

    def write_text(self, path: str, text: str, *, root: bool = True) -> None:
        # tee writes what it reads in one write() for small inputs: fine for sysfs/procfs.
        result = self.run(["tee", "--", path], root=root, input=text)
        if not result.ok:
            raise os_error(result.stderr, path)

    def listdir(self, path: str) -> list[str]:
        return sorted(self._checked(["ls", "-1A", "--", path], path).stdout.split())

    def realpath(self, path: str) -> str:
        return self._checked(["readlink", "-f", "--", path], path).stdout.strip()

    def exists(self, path: str) -> bool:
        return self.run(["test", "-e", path]).ok

    def size(self, path: str) -> int:
        return int(self._checked(["stat", "-c", "%s", "--", path], path, True).stdout.strip())

    def owner(self, path: str) -> str:
        return self._checked(["stat", "-c", "%U", "--", path], path, True).stdout.strip()

    def device_of(self, path: str) -> tuple[int, int] | None:
        text = self._checked(["stat", "-c", "%d", "--", path], path, True).stdout.strip()
        dev = int(text)
        return os.major(dev), os.minor(dev)
