"""What each tool recorded (issue 28): a HammerDB import is said to be one, for each session,
with what HammerDB did not record (response times, a reset, row counts, a cross-check) and the
failed timing gather of its job; one session alone has no baseline; the HTML keeps its
sentences apart."""

from __future__ import annotations

from pathlib import Path

from bench_gui.report import build_report, write_report
from bench_gui.store import SessionStore
from bench_gui.store.hammerdb import import_hammerdb
from tests._fixtures.hammerdb import HAMMER_DB as FIXTURE
from tests.report.fleet import fleet


def test_a_hammerdb_import_says_what_hammerdb_recorded(store: SessionStore) -> None:
    import_hammerdb(store, FIXTURE, utc_offset_h=0)
    runs = [r.id for r in store.list_runs() if r.status == "complete" and r.steps]
    report = build_report(store, runs, runs[0])
    assert report.recorded_with == "recorded with HammerDB and imported into bench-gui"
    assert report.short[runs[0]] == "4 VU, 16:35"
    notes = " ".join(report.reader_notes)
    assert "recorded with HammerDB and imported" in notes
    assert "HammerDB recorded no response times for" in notes
    assert "response times are unknown, shown as —" in notes
    # The one job whose timings were not gathered is named, with what went wrong.
    assert "HammerDB job 6B046B41660F03E223938393: time profile on, but its timings" in notes
    # Each session compared says which tool ran it (bench-gui only read HammerDB's job store).
    listed = next(h for h in report.how_we_tested if h.heading == "Sessions compared")
    assert all("recorded with HammerDB, imported by bench-gui" in text for _, text in listed.rows)
    sequence = " ".join(report.how_we_tested[0].paragraphs)
    assert "cross-checked against the driver's own count" not in sequence
    assert "not cross-checked" in sequence
    assert "with no reset" not in sequence
    # No empty chart or table of "—": the sections say nothing was recorded.
    assert "latency_avg" not in report.charts
    assert "latency_p999" not in report.tables
    said = [b.content for s in report.sections if s.key == "latency_avg" for b in s.blocks]
    assert said == [
        "No session compared recorded its average response time: there is nothing to chart or"
        " tabulate (see the notes on the figures)."
    ]
    schema = report.tables["config_schema"]
    assert any("not counted" in n for n in schema.notes)
    html = write_report(report, Path(store.path).parent / "hdb.html").read_text()
    assert "TPROC-C sessions recorded with HammerDB and imported into bench-gui" in html
    assert "recorded with bench-gui" not in html


def test_one_session_has_no_baseline_and_the_html_keeps_its_spaces(
    store: SessionStore, tmp_path: Path
) -> None:
    hdd, ssd = fleet(store, 2)
    report = build_report(store, [hdd], hdd)
    assert not any(s.baseline for c in report.charts.values() for s in c.series)
    # One configuration is no "each configuration".
    said = [b.content for s in report.sections for b in s.blocks if b.kind == "text"]
    assert not [t for t in said if "each configuration" in t], said
    assert any(f"response time of {report.short[hdd]} by user count" in t for t in said)
    assert not [t for t in said if "hosts are identical" in t], said  # one host, none to match
    how = [t for h in report.how_we_tested for t in h.paragraphs]
    assert not [t for t in how if "each configuration" in t], how
    titles = [t.title for t in report.tables.values()] + [s.heading for s in report.sections]
    assert not [t for t in titles if "each configuration" in t.lower()], titles
    html = write_report(report, tmp_path / "one.html").read_text()
    assert "(baseline)" not in html
    assert ").Your results" not in html
    assert " Your results may vary" in html
    two = build_report(store, [hdd, ssd], hdd)
    assert ".Your results" not in write_report(two, tmp_path / "two.html").read_text()
