"""pyodbc among the agent's wheels (the desktop bundle's way of shipping it): chosen when a
wheel fits the host's Python, left out with a note otherwise, never required; and what the
bundle holds for a host by what its Python has of its own."""

from __future__ import annotations

import dataclasses
import zipfile
from pathlib import Path

from bench_gui.remote.agent_wheels import OPTIONAL, Wheel, choose
from bench_gui.remote.deploy import bundle_for, local_python
from bench_gui.remote.python_info import PythonInfo

CORE = [
    "psycopg-3.3.9-py3-none-any.whl",
    "typing_extensions-4.16.0-py3-none-any.whl",
    "psycopg_binary-3.3.9-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "hdrhistogram-0.10.8-cp311-cp311-manylinux1_x86_64.manylinux_2_28_x86_64"
    ".manylinux_2_5_x86_64.whl",
]
# As pip downloads it for scripts/bundle.sh (pyodbc 5.5 is built for glibc 2.24 and newer).
PYODBC = "pyodbc-5.5.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl"


def host(libc: str = "2.36", has_deps: bool = False, has_pyodbc: bool = False) -> PythonInfo:
    return PythonInfo(
        executable="/usr/bin/python3",
        version=(3, 11, 2),
        impl="cpython",
        cache_tag="cpython-311",
        platform="linux-x86_64",
        machine="x86_64",
        libc=("glibc", libc),
        has_deps=has_deps,
        has_pyodbc=has_pyodbc,
    )


def parsed(names: list[str]) -> list[Wheel]:
    wheels = [Wheel.parse(Path(n)) for n in names]
    return [w for w in wheels if w is not None]


def test_pyodbc_is_chosen_when_a_wheel_fits_and_never_required() -> None:
    assert OPTIONAL == ("pyodbc",)
    assert choose(parsed([*CORE, PYODBC]), host())["pyodbc"].path.name == PYODBC
    # glibc 2.17 runs the agent's wheels but not pyodbc's: the run goes on without it.
    chosen = choose(parsed([*CORE, PYODBC]), host(libc="2.17"))
    assert "pyodbc" not in chosen
    assert set(chosen) == {"psycopg", "psycopg_binary", "hdrhistogram", "typing_extensions"}
    assert "pyodbc" not in choose(parsed(CORE), host())


def make_wheels(folder: Path, names: list[str]) -> Path:
    folder.mkdir()
    for name in names:
        dist = name.split("-")[0]
        with zipfile.ZipFile(folder / name, "w") as archive:
            archive.writestr(f"{dist}/__init__.py", name)
            archive.writestr(f"{dist}-1.dist-info/METADATA", f"Name: {dist}\n")
    return folder


def test_a_host_gets_from_the_wheels_only_what_its_python_lacks(tmp_path: Path) -> None:
    wheels = make_wheels(tmp_path / "agent-wheels", [*CORE, PYODBC])

    def shipped(info: PythonInfo) -> set[str]:
        bundle = bundle_for(info, wheels)
        return {n.split("/")[1] for n in bundle.files if n.startswith("deps/")}

    everything = {"psycopg", "psycopg_binary", "hdrhistogram", "typing_extensions", "pyodbc"}
    assert shipped(host()) >= everything
    assert shipped(host(has_pyodbc=True)) & everything == everything - {"pyodbc"}
    assert shipped(host(has_deps=True)) & everything == {"pyodbc"}
    assert shipped(host(has_deps=True, has_pyodbc=True)) & everything == set()


def test_a_host_no_pyodbc_fits_is_told_so_and_still_gets_the_agent(tmp_path: Path) -> None:
    wheels = make_wheels(tmp_path / "agent-wheels", [*CORE, PYODBC])
    bundle = bundle_for(host(libc="2.17"), wheels, "old-host")
    assert any(n.startswith("deps/psycopg_binary/") for n in bundle.files)
    assert not any(n.startswith("deps/pyodbc") for n in bundle.files)
    (note,) = bundle.notes
    assert note.startswith("pyodbc was not shipped to old-host: no copy of it here fits")
    assert "MariaDB, MySQL and SQL Server engines need it there" in note
    assert "/usr/bin/python3 -m pip install pyodbc" in note


def test_this_desktops_pyodbc_is_copied_to_a_host_with_the_same_python() -> None:
    same = dataclasses.replace(local_python(), has_deps=True, has_pyodbc=False)
    bundle = bundle_for(same, None)
    assert bundle.notes == []
    assert any(n.startswith("deps/pyodbc") and n.endswith(".so") for n in bundle.files)
    assert any(n.startswith("deps/pyodbc-") and n.endswith("/METADATA") for n in bundle.files)
    assert not any(n.startswith("deps/psycopg") for n in bundle.files)
    other = dataclasses.replace(same, version=(3, 99, 0), cache_tag="cpython-399")
    bundle = bundle_for(other, None, "newer-host")
    assert not any(n.startswith("deps/pyodbc") for n in bundle.files)
    (note,) = bundle.notes
    assert note.startswith("pyodbc was not shipped to newer-host")
