"""The bottom line, one item per configuration.

The builder writes the bottom line as its sections find things ("S650DC RAID 10: 29X the NOPM
of ..." in the throughput section, "S650DC RAID 10: 97% lower average response time ..." in
the response-time section), so at 12 sessions it listed 24 items, a configuration's findings
apart. A reader looks for one configuration: its findings are joined into one item, in the
order the configurations were first named. With one configuration compared, its findings
stay apart, as the seeds list them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def by_configuration(lines: Sequence[str], names: Iterable[str]) -> list[str]:
    """``lines`` that start with a configuration's name and a colon joined into one line per
    configuration ("NAME: one; two"); other lines stay as they are, in their place."""
    known = sorted({name for name in names if name}, key=len, reverse=True)
    named = {next((n for n in known if line.startswith(n + ": ")), "") for line in lines}
    if len(named - {""}) < 2:
        return list(lines)
    out: list[str] = []
    at: dict[str, int] = {}
    for line in lines:
        name = next((n for n in known if line.startswith(n + ": ")), None)
        if name is None:
            out.append(line)
        elif name in at:
            out[at[name]] += "; " + line[len(name) + 2 :]
        else:
            at[name] = len(out)
            out.append(line)
    return out
