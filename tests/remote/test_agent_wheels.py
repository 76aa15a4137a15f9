"""Choosing the agent's wheels for a driver host's Python, as pip would (tags, glibc, arch), and
unpacking them into the agent's deps folder. The real wheels and a real deployment over SSH
are in tests/test_bundle.py; these are the rules, with wheel files made here."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from bench_gui.remote.agent_wheels import WHEELS_ENV, Wheel, choose, wheel_deps, wheel_dir
from bench_gui.remote.errors import DeployError
from bench_gui.remote.python_info import PythonInfo

NAMES = [
    "psycopg-3.3.9-py3-none-any.whl",
    "typing_extensions-4.16.0-py3-none-any.whl",
    "psycopg_binary-3.3.9-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "psycopg_binary-3.3.9-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "hdrhistogram-0.10.8-cp311-cp311-manylinux1_x86_64.manylinux_2_28_x86_64"
    ".manylinux_2_5_x86_64.whl",
    "hdrhistogram-0.10.8-cp312-cp312-manylinux1_x86_64.manylinux_2_28_x86_64"
    ".manylinux_2_5_x86_64.whl",
]


def host(
    version: tuple[int, ...] = (3, 11, 2),
    libc: tuple[str, str] = ("glibc", "2.36"),
    machine: str = "x86_64",
    impl: str = "cpython",
) -> PythonInfo:
    return PythonInfo(
        executable="/usr/bin/python3",
        version=version,
        impl=impl,
        cache_tag=f"{impl}-{version[0]}{version[1]}",
        platform=f"linux-{machine}",
        machine=machine,
        libc=libc,
    )


def wheels() -> list[Wheel]:
    parsed = [Wheel.parse(Path(n)) for n in NAMES]
    assert all(parsed)
    return [w for w in parsed if w is not None]


def test_a_debian_12_host_gets_the_wheels_of_its_python() -> None:
    chosen = choose(wheels(), host())
    assert {name: w.path.name.split("-")[2] for name, w in chosen.items()} == {
        "psycopg": "py3",
        "typing_extensions": "py3",
        "psycopg_binary": "cp311",
        "hdrhistogram": "cp311",
    }
    assert choose(wheels(), host(version=(3, 12, 1)))["psycopg_binary"].path.name.startswith(
        "psycopg_binary-3.3.9-cp312"
    )


@pytest.mark.parametrize(
    ("info", "missing"),
    [
        (host(version=(3, 10, 12)), "psycopg_binary, hdrhistogram"),
        (host(libc=("glibc", "2.12")), "psycopg_binary"),
        (host(machine="aarch64"), "psycopg_binary, hdrhistogram"),
        (host(libc=("", "")), "psycopg, psycopg_binary, hdrhistogram, typing_extensions"),
        (host(impl="pypy"), "psycopg, psycopg_binary, hdrhistogram, typing_extensions"),
    ],
)
def test_a_host_no_wheel_fits_is_told_what_to_install(info: PythonInfo, missing: str) -> None:
    with pytest.raises(DeployError) as caught:
        choose(wheels(), info)
    message = str(caught.value)
    assert f"have no {missing} for the driver host's Python" in message
    assert "pip install 'psycopg[binary]' hdrhistogram" in message


def test_names_that_are_not_wheels_are_ignored() -> None:
    assert Wheel.parse(Path("notes.txt")) is None
    assert Wheel.parse(Path("psycopg.whl")) is None


def make_wheel(folder: Path, name: str, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(folder / name, "w") as archive:
        for member, data in members.items():
            archive.writestr(member, data)


def test_the_chosen_wheels_are_unpacked_into_the_deps_folder(tmp_path: Path) -> None:
    for name in NAMES:
        dist = name.split("-")[0]
        make_wheel(
            tmp_path,
            name,
            {
                f"{dist}/__init__.py": name.encode(),
                f"{dist}-1.dist-info/METADATA": b"Name: x\n",
                f"{dist}-1.dist-info/RECORD": b"",
                f"{dist}-1.data/scripts/tool": b"#!/bin/sh\n",
                f"../escape-{dist}": b"no",
            },
        )
    files = wheel_deps(tmp_path, host(), "deps")
    assert (
        files["deps/psycopg_binary/__init__.py"].decode().startswith("psycopg_binary-3.3.9-cp311-")
    )
    assert files["deps/hdrhistogram/__init__.py"].decode().startswith("hdrhistogram-0.10.8-cp311")
    assert "deps/psycopg-1.dist-info/METADATA" in files
    assert not [n for n in files if n.endswith("RECORD") or ".data/" in n or ".." in n]
    assert len(files) == 8  # 4 distributions: a module and METADATA each


def test_a_missing_folder_of_wheels_is_an_error_that_says_so(tmp_path: Path) -> None:
    with pytest.raises(DeployError, match="agent-wheels is missing"):
        wheel_deps(tmp_path / "agent-wheels", host(), "deps")


def test_the_folder_is_named_by_the_environment_or_none_outside_the_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(WHEELS_ENV, raising=False)
    assert wheel_dir() is None  # a checkout or a wheel copies its own site-packages
    monkeypatch.setenv(WHEELS_ENV, str(tmp_path))
    assert wheel_dir() == tmp_path
