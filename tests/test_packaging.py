"""The wheel holds every package of the tree (a page package missing from it breaks an install
that is not editable, which the editable test install would never show)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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


def test_every_folder_of_modules_is_a_package() -> None:
    missing = sorted(
        name
        for name in tree_packages()
        if not (REPO / ("plugins" if name.startswith("bench_gui_plugins") else ""))
        .joinpath(*name.split("."), "__init__.py")
        .exists()
    )
    assert missing == [], f"folders of modules without __init__.py: {missing}"


def test_the_wheel_holds_every_package_and_the_templates(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", "build"),
    )
    out = tmp_path / "dist"
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
    (wheel,) = out.glob("bench_gui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    packaged = {n.rsplit("/", 1)[0].replace("/", ".") for n in names if n.endswith("__init__.py")}
    assert packaged == tree_packages()
    assert {n for n in names if n.endswith(".j2")} == {
        f"bench_gui/report/templates/{p.name}"
        for p in (REPO / "bench_gui/report/templates").glob("*.j2")
    }
