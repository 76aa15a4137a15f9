"""Names from users and files are printed escaped: no control or bidirectional character
reaches the terminal from ``sessions``, ``compare`` or ``target list``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.cli.terminal import safe
from bench_gui.remote.targets import TARGETS_FILE, SSHTarget, add_target
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000

pytestmark = pytest.mark.usefixtures("qapp")

# A right-to-left override that makes "evil‮txt.exe" read "evilexe.txt", an escape sequence
# that turns the terminal red, a bell and a zero-width space.
HOSTILE = "evil\u202etxt.exe \x1b[31mred\x07 zero\u200bwidth"
SHOWN = "evil\\u202etxt.exe \\x1b[31mred\\x07 zero\\u200bwidth"
CONTROLS = ("\u202e", "\x1b", "\x07", "\u200b")


def test_safe_escapes_what_a_terminal_would_act_on() -> None:
    assert safe(HOSTILE) == SHOWN
    assert safe("lone \ud800") == "lone \\ud800"  # printing it would raise
    assert safe("RAID 10 — SSD, 4×800 GB, été 日本") == "RAID 10 — SSD, 4×800 GB, été 日本"
    assert safe("line\nbreak\ttab\u2028sep\u2066isolate\u2069") == (
        "line\\x0abreak\\x09tab\\u2028sep\\u2066isolate\\u2069"
    )
    assert safe(None) == "None"


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, int]:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, _ssd = build_seed000(store)
        store.rename_run(hdd, HOSTILE)
        store.add_tags(hdd, ["tag\u202ex"])
        store.set_note(hdd, "note \x1b[2J")
    return path, hdd


def printed(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    text = captured.out + captured.err
    for char in CONTROLS:
        assert char not in text
    return text


@pytest.mark.parametrize(
    "args",
    [
        ["sessions", "list"],
        ["sessions", "show", "{id}"],
        ["sessions", "search", "evil"],
        ["compare", "{id}", "{other}"],
        ["sessions", "tag", "{id}", "more"],
    ],
)
def test_session_names_are_printed_escaped(
    db: tuple[Path, int], capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    path, run_id = db
    other = 3 - run_id
    filled = [a.format(id=run_id, other=other) for a in args]
    assert main(["--db", str(path), *filled]) == 0
    text = printed(capsys)
    if args[1] != "tag":
        assert SHOWN.split(" ")[0] in text
    if args[1] in ("list", "search"):
        assert "\\u202e" in text


def test_an_imported_name_is_printed_escaped(
    db: tuple[Path, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, run_id = db
    exported = tmp_path / "s.json.gz"
    assert main(["--db", str(path), "sessions", "export", str(run_id), str(exported)]) == 0
    assert main(["--db", str(path), "sessions", "import", str(exported)]) == 0
    assert f"imported as session 3: {SHOWN}" in printed(capsys)
    # --json is for programs: the name is there as it is, JSON-escaped.
    assert main(["--db", str(path), "sessions", "show", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["name"] == HOSTILE


def test_target_list_prints_hosts_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    from bench_gui.store.paths import data_dir

    target = SSHTarget(name="lab", host="db\u202e1.example", user="r\x1b[31moot")
    add_target(target, data_dir() / TARGETS_FILE)
    assert main(["target", "list"]) == 0
    assert "r\\x1b[31moot@db\\u202e1.example" in printed(capsys)
