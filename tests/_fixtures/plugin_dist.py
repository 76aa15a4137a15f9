"""A real third-party engine plugin for the deployment tests: the projects in
``tests/_fixtures/thirdparty/`` (``bench-gui-acme-engine``, whose agent engine ``acme`` is
PostgreSQL's under another name, and its requirement ``acme-helpers``) built into wheels by
``pip wheel`` and installed by ``pip install --target`` into a folder of the test's own, which
the test puts on ``sys.path``. Never installed into the project's venv: other tests would ship
it with every agent.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

PROJECTS = Path(__file__).parent / "thirdparty"
PLUGIN = "bench-gui-acme-engine"
ENGINE = "acme"


def _pip(*args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"pip {args[0]} failed: {proc.stderr[-2000:]}"


def build_wheels(folder: Path) -> list[Path]:
    """The plugin's and its requirement's wheels, built offline from copies of the projects
    (a build writes into its source folder)."""
    wheels = folder / "wheels"
    for name in ("acme_helpers", "acme_engine"):
        source = folder / "src" / name
        shutil.copytree(
            PROJECTS / name,
            source,
            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"),
        )
        _pip(
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(wheels),
            str(source),
        )
    built = sorted(wheels.glob("*.whl"))
    assert len(built) == 2, built
    return built


def install(wheels: list[Path], target: Path) -> Path:
    """The wheels installed into ``target`` as pip does into site-packages."""
    _pip("install", "--no-deps", "--no-index", "--target", str(target), *map(str, wheels))
    return target


def dist_info(target: Path, project: str = "bench_gui_acme_engine") -> Path:
    """The installed ``.dist-info`` folder of ``project`` in ``target``."""
    found = sorted(target.glob(f"{project}-*.dist-info"))
    assert len(found) == 1, found
    return found[0]
