"""The event protocol: round trips, and malformed lines are reported, never fatal."""

from __future__ import annotations

import io
import json

import pytest

from bench_gui.wire.protocol import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    TX_KEYS,
    TX_WEIGHT_TOTAL,
    EventWriter,
    ProtocolError,
    decode_line,
    encode_event,
)


def test_round_trip() -> None:
    line = encode_event("sample", 7, 1.5, step=0, counts={"new_order": 3})
    event = decode_line(line)
    assert (event.kind, event.seq, event.t) == ("sample", 7, 1.5)
    assert event.get("counts") == {"new_order": 3}
    assert decode_line(event.to_line()) == event


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "empty"),
        ("not json", "not JSON"),
        ("[1,2]", "not a JSON object"),
        ('{"v": 99, "kind": "log", "seq": 1, "t": 0}', "protocol version"),
        (f'{{"v": {PROTOCOL_VERSION}, "kind": "weird", "seq": 1, "t": 0}}', "unknown event"),
        (f'{{"v": {PROTOCOL_VERSION}, "kind": "log", "seq": -1, "t": 0}}', "sequence"),
        (f'{{"v": {PROTOCOL_VERSION}, "kind": "log", "seq": 1, "t": "x"}}', "timestamp"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_malformed_lines(line: str | bytes, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        decode_line(line)


def test_writer_numbers_and_survives_a_closed_sink() -> None:
    good = io.StringIO()
    closed = io.StringIO()
    closed.close()
    writer = EventWriter(closed, good)
    assert writer.emit("log", level="info", message="a") == 1
    assert writer.emit("done", status="ok") == 2
    seqs = [decode_line(x).seq for x in good.getvalue().splitlines()]
    assert seqs == [1, 2]


def test_mix_is_hammerdb_draw() -> None:
    assert TX_WEIGHT_TOTAL == 23
    assert TX_KEYS[0] == "new_order"


def _line(**fields: object) -> str:
    body = {"v": PROTOCOL_VERSION, "kind": "log", "seq": 1, "t": 0, **fields}
    return json.dumps(body)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('{"v": 1, "kind": "log", "seq": 1, "t": 0, "n": ' + "7" * 5000 + "}", "digits"),
        ('{"v": 1, "kind": "log", "seq": ' + "9" * 4000 + ', "t": 0}', "about 4000 digits"),
        (_line(seq=2**63), "bad sequence number 9223372036854775808"),
        (_line(seq=True), "bad sequence number True"),
        (_line(seq=[[[1]]]), "bad sequence number a list"),
        (_line(kind=["log"]), "unknown event kind a list"),
        (_line(kind={"a": 1}), "unknown event kind an object"),
        (_line(v=True), "protocol version True"),
        ('{"v": 1, "kind": "log", "seq": 1, "t": NaN}', "bad timestamp nan"),
        ('{"v": 1, "kind": "log", "seq": 1, "t": 1e999}', "bad timestamp inf"),
        (_line(t=10**20), "bad timestamp 100000000000000000000"),
        (_line(t=-1), "bad timestamp -1"),
        ('{"v": 1, "kind": "log", "seq": 1, "t": 0, "message": "cut sh', "not JSON"),
        ("x" * (MAX_LINE_BYTES + 1), "longer than"),
    ],
)
def test_decoding_is_total(line: str, reason: str) -> None:
    """Whatever a line holds, decoding it raises ProtocolError and nothing else."""
    with pytest.raises(ProtocolError, match=reason):
        decode_line(line)
