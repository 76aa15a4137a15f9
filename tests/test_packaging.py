"""The wheel holds every package of the tree and everything the app loads at run time (a page
package or the theme missing from it breaks an install that is not editable, which the editable
test install would never show), and an installed wheel runs from where pip put it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RESOURCES = REPO / "bench_gui/resources"


def tree_packages() -> set[str]:
    """Every folder of Python modules under bench_gui/ and plugins/, as a dotted name."""
    found: set[str] = set()
    for root, prefix in ((REPO / "bench_gui", "bench_gui"), (REPO / "plugins", "")):
        for module in root.rglob("*.py"):
            folder = module.parent.relative_to(root.parent if prefix else root)
            if "__pycache__" in folder.parts:
                continue
            found.add(".".join(folder.parts))
    return found


def tree_data_files() -> set[str]:
    """Every file under bench_gui/ that is not Python: what the app reads at run time."""
    return {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "bench_gui").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".py", ".pyc"}
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The wheel built from a copy of the tree (what `pip wheel .` gives a user)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.egg-info", "build", "dist"
        ),
    )
    out = tmp / "dist"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (built,) = out.glob("bench_gui-*.whl")
    yield built
    shutil.rmtree(tmp, ignore_errors=True)


def test_every_folder_of_modules_is_a_package() -> None:
    missing = sorted(
        name
        for name in tree_packages()
        if not (REPO / ("plugins" if name.startswith("bench_gui_plugins") else ""))
        .joinpath(*name.split("."), "__init__.py")
        .exists()
    )
    assert missing == [], f"folders of modules without __init__.py: {missing}"


def test_the_run_time_files_have_one_home_inside_the_package() -> None:
    """Theme, icons and report templates live in bench_gui/resources only: no second copy at
    the top level, beside the GUI or beside the report code, that could drift."""
    assert not (REPO / "resources").exists(), "run-time files belong in bench_gui/resources"
    files = {p.relative_to(RESOURCES).as_posix() for p in RESOURCES.rglob("*") if p.is_file()}
    assert {"theme/theme.qss", "icons/icon.svg", "icons/icon-256.png"} <= files
    assert any(f.startswith("report/") and f.endswith(".j2") for f in files)
    strays = [
        p.relative_to(REPO).as_posix()
        for p in (REPO / "bench_gui").rglob("*")
        if p.suffix in {".qss", ".svg", ".png", ".j2"} and not p.is_relative_to(RESOURCES)
    ]
    assert strays == []


def test_the_wheel_holds_every_package_the_templates_and_the_resources(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    packaged = {n.rsplit("/", 1)[0].replace("/", ".") for n in names if n.endswith("__init__.py")}
    assert packaged == tree_packages()
    data = {n for n in names if n.startswith("bench_gui/") and not n.endswith((".py", ".pyc"))}
    assert data == tree_data_files()
    assert {n for n in names if n.endswith(".j2")} == {
        f"bench_gui/resources/report/{p.name}" for p in (RESOURCES / "report").glob("*.j2")
    }


# Run by the installed copy: it must find its theme, icons and templates where pip put them.
_CHECK_INSTALLED = r"""
import sys, bench_gui
from pathlib import Path
here = Path(bench_gui.__file__).resolve().parent
assert here.is_relative_to(Path(sys.argv[1]).resolve()), here
from bench_gui.gui.resources import load_theme, resource_path, ICON_PNG, ICON_SVG
assert "QMainWindow" in load_theme() or len(load_theme()) > 1000
for name in (ICON_PNG, ICON_SVG):
    assert resource_path(name).is_relative_to(here), resource_path(name)
from bench_gui.report.html import environment
environment().get_template("report.html.j2")
print("installed-ok", here)
"""

_MISSING_THEME = r"""
import logging, bench_gui
logging.basicConfig(level=logging.WARNING)
from bench_gui.gui.resources import load_theme
print("theme-length", len(load_theme()))
"""


def test_an_installed_wheel_finds_its_resources_and_degrades_without_one(
    wheel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (target / "bin/bench-gui").is_file()
    assert (target / "bin/bench-gui-desktop").is_file()
    # The installed copy comes first on the path (before the editable checkout); run from
    # elsewhere so the checkout is not the current directory either.
    env = dict(os.environ, PYTHONPATH=str(target), QT_QPA_PLATFORM="offscreen")

    def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=env,
            check=False,
        )

    found = run(_CHECK_INSTALLED, str(target))
    assert found.returncode == 0, found.stderr[-3000:]
    assert "installed-ok" in found.stdout
    cli = subprocess.run(
        [sys.executable, str(target / "bin/bench-gui"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr[-3000:]
    assert "demo" in cli.stdout

    (target / "bench_gui/resources/theme/theme.qss").unlink()
    degraded = run(_MISSING_THEME)
    assert degraded.returncode == 0, degraded.stderr[-3000:]
    assert "theme-length 0" in degraded.stdout
    assert "theme.qss is missing" in degraded.stderr
