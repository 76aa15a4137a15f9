"""The seeds' study templates: each one loads and validates, and is written where asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_gui.core.study import load_study, study_from_toml
from bench_gui.services.study_templates import SEEDS, TemplateError, template_text, write_template


@pytest.mark.parametrize("seed", SEEDS)
def test_each_template_loads_and_validates(seed: str) -> None:
    study = study_from_toml(template_text(seed), seed)
    assert len(study.systems) == 2
    assert study.baseline in {s.key for s in study.systems}
    assert study.report.output == f"{seed}-brief"


def test_seed_000_reproduces_the_briefs_sweep_presets_and_prices() -> None:
    study = study_from_toml(template_text("seed-000"))
    plan = study.system("ssd").plan
    assert plan.workload.virtual_users == [8, 16, 24, 32, 40, 48, 56, 64]
    assert (plan.workload.rampup_s, plan.workload.duration_s) == (900, 900)
    assert study.system("ssd").tuning.profile == "micron-s650dc-ssd"
    assert study.system("hdd").tuning.profile == "micron-15k-hdd"
    assert {(p.device, p.unit_price) for p in study.prices.devices} == {
        ("Micron S650DC 800GB", 1262),
        ("SAS 15K RPM HDD 300GB", 199),
    }
    assert study.system("hdd").storage.count == 16


def test_seed_003_has_its_power_meter_and_os_preset_and_seed_004_reads() -> None:
    study = study_from_toml(template_text("seed-003"))
    assert study.system("four").plan.power.meter == "ipmi"
    assert study.system("four").plan.os.preset == "micron-9300-linux"
    assert study_from_toml(template_text("seed-004")).workload_kind == "random_read"


def test_a_template_is_written_and_never_over_a_file(tmp_path: Path) -> None:
    path = write_template("seed-001", tmp_path / "study.toml")
    assert load_study(path).baseline == "legacy"
    with pytest.raises(TemplateError, match="exists"):
        write_template("seed-001", path)
    with pytest.raises(TemplateError, match="seed-000"):
        template_text("seed-009")
