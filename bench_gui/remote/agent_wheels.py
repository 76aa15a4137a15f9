"""The agent's dependencies as wheels, for a desktop that cannot copy its own installed ones.

A desktop running from a checkout or a wheel copies its own site-packages to a driver host that
lacks psycopg and hdrhistogram (:mod:`bench_gui.remote.deploy`). The desktop bundle cannot: its
packages are frozen into an archive, for one Python. It ships instead, in ``agent-wheels/``,
the wheels of the versions it was built with for several CPython versions
(``scripts/bundle.sh``), and the deployment unpacks the ones that fit the host's Python: the
agent's own (:data:`NEEDED`) when the host lacks them, pyodbc (:data:`OPTIONAL`) when it lacks
that.
``$BENCH_GUI_AGENT_WHEELS`` names such a folder for any desktop.
"""

from __future__ import annotations

import os
import re
import sys
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bench_gui.remote.errors import DeployError
from bench_gui.remote.python_info import PythonInfo

WHEELS_ENV: Final = "BENCH_GUI_AGENT_WHEELS"
WHEELS_FOLDER: Final = "agent-wheels"  # in the bundle's _internal folder
# What the agent imports besides the stdlib, as wheel names (psycopg's C part: the binary one).
NEEDED: Final = ("psycopg", "psycopg_binary", "hdrhistogram", "typing_extensions")
# Shipped when a wheel fits the host, else left out: the ODBC engines' pyodbc (it also needs
# unixODBC and the engine's ODBC driver, system packages; the agent says so when they lack).
OPTIONAL: Final = ("pyodbc",)
_SKIP_META: Final = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
_MANYLINUX: Final = re.compile(r"manylinux_(\d+)_(\d+)_(\w+)$")
_LEGACY: Final = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


def wheel_dir() -> Path | None:
    """The folder of agent wheels: ``$BENCH_GUI_AGENT_WHEELS``, else the bundle's own (a frozen
    desktop has no other way to ship the agent's dependencies); None for a plain install."""
    named = os.environ.get(WHEELS_ENV)
    if named:
        return Path(named)
    if getattr(sys, "frozen", False):
        base = getattr(sys, "_MEIPASS", None) or os.path.dirname(sys.executable)
        return Path(base) / WHEELS_FOLDER
    return None


@dataclass(frozen=True)
class Wheel:
    path: Path
    name: str  # normalised: lower case, runs of -_. as _
    tags: tuple[tuple[str, str, str], ...]  # (python, abi, platform), every combination

    @classmethod
    def parse(cls, path: Path) -> Wheel | None:
        parts = path.name[: -len(".whl")].split("-")
        if not path.name.endswith(".whl") or len(parts) not in (5, 6):
            return None
        pys, abis, plats = parts[-3].split("."), parts[-2].split("."), parts[-1].split(".")
        tags = tuple((p, a, f) for p in pys for a in abis for f in plats)
        return cls(path, re.sub(r"[-_.]+", "_", parts[0]).lower(), tags)


def _glibc_fits(platform_tag: str, machine: str, glibc: tuple[int, ...]) -> bool:
    m = _MANYLINUX.match(platform_tag)
    if m:
        need, arch = (int(m.group(1)), int(m.group(2))), m.group(3)
    else:
        legacy, _, arch = platform_tag.partition("_")
        if legacy not in _LEGACY:
            return False
        need = _LEGACY[legacy]
    return arch == machine and need <= glibc


def fits(wheel: Wheel, host: PythonInfo) -> bool:
    """Whether pip would install ``wheel`` for the host's interpreter (CPython on glibc)."""
    if host.impl != "cpython" or host.libc[0] != "glibc":
        return False
    try:
        glibc = tuple(int(x) for x in host.libc[1].split(".")[:2])
    except ValueError:
        return False
    major, minor = host.version[0], host.version[1]
    cp = f"cp{major}{minor}"
    for python, abi, platform_tag in wheel.tags:
        if python not in {cp, f"py{major}", f"py{major}{minor}"}:
            continue
        if abi not in {"none", "abi3", cp}:
            continue
        if abi == "abi3" and not python.startswith("cp"):
            continue
        if platform_tag == "any" or _glibc_fits(platform_tag, host.machine, glibc[:2]):
            return True
    return False


def choose(
    wheels: Iterable[Wheel],
    host: PythonInfo,
    needed: tuple[str, ...] = NEEDED,
    optional: tuple[str, ...] = OPTIONAL,
) -> dict[str, Wheel]:
    """For each needed distribution, the wheel that fits the host; DeployError naming what
    has none. Optional ones are chosen when a wheel fits, left out otherwise."""
    found: dict[str, Wheel] = {}
    wanted = (*needed, *optional)
    for wheel in wheels:
        if wheel.name in wanted and wheel.name not in found and fits(wheel, host):
            found[wheel.name] = wheel
    missing = [name for name in needed if name not in found]
    if missing:
        raise DeployError(
            f"this desktop's agent wheels have no {', '.join(missing)} for the driver host's"
            f" Python ({host.describe()}): install psycopg[binary] and hdrhistogram there"
            f" ({host.executable or 'python3'} -m pip install 'psycopg[binary]' hdrhistogram)"
        )
    return found


def wheel_deps(
    directory: Path,
    host: PythonInfo,
    prefix: str,
    needed: tuple[str, ...] = NEEDED,
    optional: tuple[str, ...] = OPTIONAL,
) -> dict[str, bytes]:
    """The files of the wheels that fit the host (``needed`` ones, and ``optional`` ones when
    there are), unpacked under ``prefix/`` (archive name -> content), as
    :func:`bench_gui.remote.deploy.build_bundle` ships a desktop's own."""
    if not directory.is_dir():
        raise DeployError(
            f"{directory} is missing: this desktop cannot ship the agent's dependencies;"
            " install psycopg[binary] and hdrhistogram on the driver host"
        )
    wheels = sorted(
        (w for w in map(Wheel.parse, directory.glob("*.whl")) if w is not None),
        key=lambda w: w.path.name,
        reverse=True,  # the newest of several versions first
    )
    files: dict[str, bytes] = {}
    for wheel in choose(wheels, host, needed, optional).values():
        with zipfile.ZipFile(wheel.path) as archive:
            for info in archive.infolist():
                name = info.filename
                if info.is_dir() or name.startswith("/") or ".." in name.split("/"):
                    continue
                top = name.split("/", 1)[0]
                if top.endswith(".dist-info") and name.rsplit("/", 1)[-1] in _SKIP_META:
                    continue
                if top.endswith(".data"):
                    continue  # scripts and headers: the agent needs none
                files[f"{prefix}/{name}"] = archive.read(info)
    return files
