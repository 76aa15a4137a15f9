"""The ODBC drivers unixODBC knows on this host, and whether each one's library is there.

``pyodbc.drivers()`` lists the sections of ``odbcinst.ini`` by name, whether or not the file
its ``Driver =`` line names exists: a driver removed with its package but left registered, or
an ``odbcinst.ini`` written by hand, still shows. A connection through it then fails with the
driver manager's "Can't open lib", which reads like the server's fault. Here each driver's
library is looked up in the same files unixODBC reads (``$ODBCSYSINI``/``$ODBCINSTINI`` or
``/etc/odbcinst.ini``, then the user's ``~/.odbcinst.ini``) and loaded the way the driver
manager loads it (``dlopen``), so a driver is called usable only when it is.
"""

from __future__ import annotations

import configparser
import ctypes
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# The driver manager's SQLSTATEs for a driver not registered or whose library cannot load.
DRIVER_MISSING_STATES: Final = ("IM002", "IM003", "IM004")


@dataclass(frozen=True)
class OdbcDriver:
    """A registered ODBC driver: its name, its library as ``odbcinst.ini`` says, and why it
    cannot be used ('' when it can)."""

    name: str
    library: str
    problem: str

    @property
    def usable(self) -> bool:
        return not self.problem

    def describe(self) -> str:
        """``name (library)`` or ``name (not usable: why)``."""
        if self.problem:
            return f"{self.name} (not usable: {self.problem})"
        return f"{self.name} ({self.library})"


def odbcinst_files() -> list[Path]:
    """The ``odbcinst.ini`` files unixODBC reads here, the one that wins last."""
    folder = Path(os.environ.get("ODBCSYSINI") or "/etc")
    name = os.environ.get("ODBCINSTINI") or "odbcinst.ini"
    system = Path(name) if os.path.isabs(name) else folder / name
    return [system, Path.home() / ".odbcinst.ini"]


def _sections() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for path in odbcinst_files():
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        for section in parser.sections():
            found.setdefault(section, {}).update(
                {key.lower(): value.strip() for key, value in parser.items(section)}
            )
    return found


def _driver_manager_dirs() -> list[str]:
    """Where unixODBC looks for a driver named without a folder: its own library folder's
    ``odbc/`` and the folder itself (Debian: /usr/lib/x86_64-linux-gnu/odbc)."""
    folders: list[str] = []
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            for line in fh:
                path = line.split()[-1]
                if "/libodbc.so" in path:
                    folders.append(os.path.dirname(path))
    except OSError:
        pass
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                   "/usr/lib", "/usr/local/lib"):  # fmt: skip
        if os.path.exists(os.path.join(folder, "libodbc.so.2")):
            folders.append(folder)
    out: list[str] = []
    for folder in dict.fromkeys(folders):
        out += [os.path.join(folder, "odbc"), folder]
    return out


def library_problem(library: str) -> str:
    """Why the driver manager could not load ``library`` ('' when it can)."""
    if not library:
        return "odbcinst.ini names no library for it (no Driver = line)"
    if "/" in library:
        if not os.path.isfile(library):
            return f"its library {library} does not exist"
        candidates = [library]
    else:
        candidates = [library] + [os.path.join(d, library) for d in _driver_manager_dirs()]
    reason = ""
    for candidate in candidates:
        if "/" in candidate and not os.path.isfile(candidate):
            continue
        try:
            ctypes.CDLL(candidate)
        except OSError as exc:
            reason = reason or str(exc)
            continue
        return ""
    return f"its library {library} cannot be loaded ({reason or 'not found'})"


def drivers(names: list[str]) -> list[OdbcDriver]:
    """The drivers ``names`` (``pyodbc.drivers()``), each with its library and problem."""
    sections = _sections()
    out: list[OdbcDriver] = []
    for name in names:
        keys = sections.get(name, {})
        library = keys.get("driver64") or keys.get("driver") or ""
        out.append(OdbcDriver(name, library, library_problem(library)))
    return out


def describe(found: list[OdbcDriver]) -> str:
    """The installed drivers in one line (``none`` when there are none)."""
    return ", ".join(d.describe() for d in found) or "none"


def is_driver_missing(state: str, text: str) -> bool:
    """Whether a connection error is the driver manager's (the driver cannot be loaded or is
    not registered), not the server's."""
    lowered = text.lower()
    if state in DRIVER_MISSING_STATES:
        return True
    return "can't open lib" in lowered or (
        "driver manager" in lowered and "file not found" in lowered
    )
