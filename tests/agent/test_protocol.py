"""The event protocol: round trips, and malformed lines are reported, never fatal."""

from __future__ import annotations

import io

import pytest

from bench_gui.agent.protocol import (
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
