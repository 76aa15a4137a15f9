"""A study's brief gives its sections in the order of the seed it reproduces (the template's
``report.order``), with tables and figures numbered in that order; a study without one keeps
the report's own order. Sessions built from the seeds' published figures, in a real store."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench_gui.core.study import study_from_toml
from bench_gui.core.study_model import Study
from bench_gui.report.study_brief import write_brief
from bench_gui.services.study_templates import template_text
from bench_gui.store import SessionStore
from tests._fixtures.random_read_sessions import seed004
from tests._fixtures.seed_sessions import build_seed000, build_seed003


def study_of(seed: str) -> Study:
    study = study_from_toml(template_text(seed))
    study.report.formats = ["html"]
    study.report.short_names = {}  # the sessions here are not the template's systems
    return study


def sections(path: Path) -> list[str]:
    html = path.read_text()
    body = html.split('<section id="bottom-line">')[0]
    return re.findall(r'<section id="([a-z_0-9]+)">', body)


def brief(study: Study, store: SessionStore, ids: tuple[int, int], folder: Path) -> Path:
    keys = [s.key for s in study.systems]
    sessions = dict(zip(keys, ids, strict=True))
    (written,), _notes = write_brief(study, store, sessions, folder)
    return written


@pytest.mark.parametrize(
    ("seed", "first"),
    [
        ("seed-000", ["throughput", "latency_avg", "latency_p999", "economics"]),
        ("seed-001", ["throughput", "latency_avg", "latency_p999"]),
        ("seed-002", ["throughput", "latency_avg", "latency_p999", "economics"]),
    ],
)
def test_seed_000_to_002_briefs_follow_their_seed(
    seed: str, first: list[str], tmp_path: Path
) -> None:
    with SessionStore(tmp_path / "s.sqlite3") as store:
        hdd, ssd = build_seed000(store)
        study = study_of(seed)
        assert study.report.order == first
        found = sections(brief(study, store, (hdd, ssd), tmp_path))
    assert found[: len(first)] == first


def test_seed_003_brief_gives_power_and_the_stop_condition_before_latency(
    tmp_path: Path,
) -> None:
    with SessionStore(tmp_path / "s.sqlite3") as store:
        ids = build_seed003(store)
        study = study_of("seed-003")
        path = brief(study, store, ids, tmp_path)
        found = sections(path)
        assert found[:3] == ["throughput", "power", "saturation"]
        assert found.index("saturation") < found.index("latency_avg")
        # Figures numbered as the seed numbers them: power per NOPM is Figure 2.
        power = path.read_text().split('<section id="power">')[1].split("</section>")[0]
        assert "Figure 2" in power
        # Without the seed's order, the report's own: response times before power.
        study.report.order = []
        study.report.output = "default"
        default = sections(brief(study, store, ids, tmp_path))
        assert default.index("latency_avg") < default.index("power")


def test_seed_004_brief_gives_the_ram_before_the_latencies(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.sqlite3") as store:
        ids = seed004(store)
        study = study_of("seed-004")
        found = sections(brief(study, store, ids, tmp_path))
        assert found == ["throughput", "multiplier", "economics", "latency"]
        study.report.order = []
        study.report.output = "default"
        assert sections(brief(study, store, ids, tmp_path)) == [
            "throughput", "multiplier", "latency", "economics"
        ]  # fmt: skip
