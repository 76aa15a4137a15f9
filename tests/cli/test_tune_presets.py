"""``bench-gui tune presets`` asks every engine kit for its presets (its ``presets`` face): each
kit's are listed under its name, each listed one is shown by name, and a kit built on another
kit's faces (Acme, PostgreSQL inside) lists them too without `tune` growing a command twice."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.engines import registry
from bench_gui.engines.base import EngineKit
from bench_gui.engines.postgresql.pgtune import PgVersion
from bench_gui.engines.postgresql.presets import Preset
from bench_gui.engines.registry import kits
from bench_gui.store.user_presets import presets_dir, save_preset

ACME = Path(__file__).parents[1] / "_fixtures" / "thirdparty" / "acme_engine" / "src"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data directory of the test's own with one user preset and one file that is none."""
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(tmp_path))
    save_preset(Preset("my-box", "My box", {"shared_buffers": "4GB"}, PgVersion(16)))
    (presets_dir() / "broken.toml").write_text("settings = 3\n")
    return tmp_path


def listed(capsys: pytest.CaptureFixture[str]) -> dict[str, list[dict[str, object]]]:
    assert main(["tune", "presets", "--json"]) == 0
    data: dict[str, list[dict[str, object]]] = json.loads(capsys.readouterr().out)
    return data


def test_every_kit_s_presets_are_listed_and_each_is_shown(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = listed(capsys)
    assert list(data) == [*(kit.name for kit in kits()), "os", "problems"]
    for kit in kits():
        names = [str(row["name"]) for row in data[kit.name]]
        assert names, f"{kit.label} lists no preset"
        for name in names:
            assert main(["tune", "presets", name]) == 0, name
            assert capsys.readouterr().out.startswith("# "), name
            assert main(["tune", "presets", name, "--json"]) == 0, name
            assert json.loads(capsys.readouterr().out)["title"], name
    user = next(row for row in data["postgresql"] if row["name"] == "my-box")
    assert (user["builtin"], user["version"], user["settings"]) == (
        False,
        "16",
        {"shared_buffers": "4GB"},
    )
    assert [line for line in data["problems"] if "broken.toml" in str(line)]
    assert data["mariadb"][0]["name"] == "innodb"

    assert main(["tune", "presets"]) == 0
    out, err = capsys.readouterr()
    for kit in kits():
        for row in data[kit.name]:
            line = next(line for line in out.splitlines() if line.startswith(f"{row['name']} "))
            assert line.endswith(f" ({kit.label})"), line
    assert "my-box                   user     My box (PostgreSQL)" in out
    assert "broken.toml" in err
    assert main(["tune", "presets", "my-box", "--version", "9.6"]) == 0
    assert "shared_buffers = 4GB" in capsys.readouterr().out


@pytest.fixture
def acme_kit(monkeypatch: pytest.MonkeyPatch) -> Iterator[EngineKit]:
    """Acme's kit entry, from its source (the package is not installed: only its entry is
    registered, as its entry point would, and forgotten afterwards)."""
    monkeypatch.syspath_prepend(str(ACME))
    kit = importlib.import_module("acme_engine.kit").KIT
    yield kit
    for name in [m for m in sys.modules if m.split(".")[0] == "acme_engine"]:
        del sys.modules[name]


def test_a_kit_on_another_kit_s_faces_lists_them_under_its_own_name(
    data_dir: Path,
    acme_kit: EngineKit,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:

    assert isinstance(acme_kit, EngineKit)
    monkeypatch.setattr(registry, "_KITS", {**{k.name: k for k in kits()}, "acme": acme_kit})
    data = listed(capsys)
    assert data["acme"] == data["postgresql"]
    [problem] = data["problems"]  # the same files read for both kits, said once
    assert "broken.toml" in str(problem)
    # Its calculator command is PostgreSQL's: added once, working as before.
    assert main(["tune", "postgresql", "--ram", "8GiB", "--version", "16"]) == 0
    assert "shared_buffers = 2GB" in capsys.readouterr().out
