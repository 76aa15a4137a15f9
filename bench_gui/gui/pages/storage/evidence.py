"""How the Storage page shows a device's use: a word per kind of evidence, and the evidence
or a refusal as rich text (the colours of the page's theme)."""

from __future__ import annotations

from html import escape

from bench_gui.services.storage import BlockDevice, Refusal

OK_COLOR = "#42be65"
BAD_COLOR = "#ff6b74"
MUTED_COLOR = "#93a0b8"

_SHORT = {
    "mounted": "mounted",
    "root": "root",
    "boot": "boot",
    "swap": "swap",
    "member": "member",
    "btrfs": "btrfs member",
    "holders": "held",
    "busy": "busy",
    "open": "held open",
    "readonly": "read-only",
    "empty": "empty",
    "not-disk": "not a disk",
    "pgdata": "database",
}


def short_reasons(device: BlockDevice) -> list[str]:
    """The kinds of evidence against a device, in a word each (the table's Use column)."""
    return list(dict.fromkeys(_SHORT.get(e.kind, e.kind) for e in device.blocking))


def _esc(text: str) -> str:
    return escape(text, quote=False)


def evidence_html(device: BlockDevice) -> str:
    """The evidence found on one device, blocking evidence in red."""
    head = f"<b>{_esc(device.path)}</b>"
    if not device.evidence:
        return f"{head} — <span style='color:{OK_COLOR}'>no evidence of use</span>"
    rows = []
    for e in device.evidence:
        color = BAD_COLOR if e.blocking else MUTED_COLOR
        rows.append(
            f"<li><span style='color:{color}'>{_esc(e.text)}</span>"
            f" <span style='color:{MUTED_COLOR}'>— {_esc(e.source)}</span></li>"
        )
    return f"{head}<ul style='margin-top:2px'>{''.join(rows)}</ul>"


def refusals_html(refusals: list[Refusal], host: str) -> str:
    """Why nothing will run: each refused device or setting with its evidence."""
    rows = []
    for r in refusals:
        evidence = "".join(
            f"<br>&nbsp;&nbsp;• {_esc(e.text)} <span style='color:{MUTED_COLOR}'>"
            f"({_esc(e.source)})</span>"
            for e in r.evidence
        )
        rows.append(f"<li><b>{_esc(r.field_name)}</b>: {_esc(r.reason)}{evidence}</li>")
    where = f" on {_esc(host)}" if host else ""
    return (
        f"<span style='color:{BAD_COLOR}'><b>Refused{where}</b> — nothing will run:</span>"
        f"<ul style='margin-top:2px'>{''.join(rows)}</ul>"
    )


def muted_html(text: str) -> str:
    return f"<span style='color:{MUTED_COLOR}'>{text}</span>"


def ok_html(text: str) -> str:
    return f"<span style='color:{OK_COLOR}'>{text}</span>"
