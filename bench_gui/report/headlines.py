"""Saturation said as it was measured: reached, not reached within the range, or at once.

"13X NOPM at saturation" once compared an SSD array that never saturated (its NOPM still rose
at the last step) with an HDD array at its saturation point. A load where a sweep simply ended
is no saturation point, and a ratio between one configuration's limit and another's last step
compares unlike things. Every sentence, table cell and fact about saturation is written here,
so the report says which case it is:

- reached: "saturates at 48 users";
- reached at the first load tested: the range started too high to show where the limit is;
- not reached: "not reached by 32 users" (NOPM still rising at the last step);
- none: a latency limit was exceeded from the first load, or one load only was measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench_gui.core.compare import Ratio
from bench_gui.core.saturation import Saturation, users


def state(sat: Saturation) -> str:
    """``reached``, ``first_step``, ``not_reached`` or ``none``."""
    if sat.vus is None:
        return "none"
    if not sat.reached:
        return "not_reached"
    return "first_step" if sat.first_step else "reached"


def users_cell(sat: Saturation) -> str:
    """The "users at saturation" cell: ``48``, ``4 (first step)``, ``not reached by 32``."""
    kind = state(sat)
    if kind == "none":
        return "none"
    if kind == "not_reached":
        if sat.first_vus == sat.last_vus:
            return f"one load only ({sat.vus})"
        return f"not reached by {sat.vus}"
    if kind == "first_step":
        return f"{sat.vus} (first step)"
    return str(sat.vus)


def sentence(name: str, sat: Saturation) -> str:
    """One sentence on where a configuration saturated, for a reader."""
    kind = state(sat)
    if kind == "reached":
        return f"{name} saturates at {users(sat.vus)}."
    if kind == "first_step":
        return (
            f"{name} saturates at the first load tested ({users(sat.vus)}): the range started"
            " too high to show where its limit is."
        )
    if kind == "not_reached":
        if sat.first_vus == sat.last_vus:
            return f"{name} was measured at one load only ({users(sat.vus)}): no saturation point."
        gain = f" (NOPM still {sat.gains[-1].pct:+.1f}% at the last step)" if sat.gains else ""
        return (
            f"{name} did not saturate within the range tested: not reached by"
            f" {users(sat.vus)}{gain}."
        )
    first = sat.first_vus if sat.first_vus is not None else sat.trigger_vus
    return (
        f"{name} exceeds the latency limit from the first load tested ({users(first)}): no"
        " saturation point in the range tested."
    )


@dataclass(frozen=True)
class SaturationClaim:
    """What the report may say about one configuration against the baseline at saturation."""

    headline: str
    caveat: str  # "" when both saturated within the range: a like-for-like comparison
    fact_value: str
    fact_text: str
    fact_detail: str
    like_for_like: bool


def _phrase(ratio: Ratio, baseline: str) -> str:
    if ratio.text.endswith("X"):
        return f"{ratio.text} the NOPM of {baseline}"
    if ratio.value >= 1:
        return f"{ratio.text.lstrip('+')} more NOPM than {baseline}"
    return f"{ratio.text.lstrip('-')} less NOPM than {baseline}"


def _one_load(sat: Saturation) -> bool:
    return sat.first_vus is not None and sat.first_vus == sat.last_vus


def _unsaturated(name: str, sat: Saturation) -> str:
    """``X did not saturate by 32 users``; one load measured is not a load it outlasted:
    ``X was measured at one load only (4 users)``."""
    if _one_load(sat):
        return f"{name} was measured at one load only ({users(sat.vus)})"
    return f"{name} did not saturate by {users(sat.vus)}"


def _why(sat: Saturation) -> str:
    return "one load measured" if _one_load(sat) else "not saturated"


def _limit_unknown(name: str, sat: Saturation) -> str:
    if _one_load(sat):
        return f"{name}'s limit is not known (one load measured)"
    return f"{name}'s limit lies beyond the range tested"


def _loads(ov: int | None, bv: int | None) -> str:
    """The start of a caveat: "This compares different loads, and" only when they differ."""
    return "This compares different loads, and" if ov != bv else f"Both are at {ov} users, but"


def claim(
    other: str, osat: Saturation, baseline: str, bsat: Saturation, ratio: Ratio
) -> SaturationClaim:
    """The headline, caveat and fast fact of ``other`` against ``baseline`` at saturation.

    A sweep of one load did not "saturate by" it, and a ratio at equal loads compares no
    "different loads": a HammerDB import of one 4-user job against a sweep saturated at its
    first step (4 users) read both."""
    ok, bk = state(osat), state(bsat)
    ov, bv = osat.vus, bsat.vus
    value = ratio.text if ratio.text.endswith("X") else f"{ratio.text} NOPM"
    caveats: list[str] = []
    if ok == "not_reached" and bk == "not_reached":
        if _one_load(osat) or _one_load(bsat):
            neither = f"Neither {other} nor {baseline} has a saturation point in the loads tested"
        else:
            neither = f"Neither {other} nor {baseline} saturated within the range tested"
        headline = (
            f"{neither}: at their highest loads ({ov} and {bv} users) {other} delivers"
            f" {_phrase(ratio, baseline)}"
        )
        if _one_load(osat) or _one_load(bsat):
            caveats.append(
                f"{_limit_unknown(other, osat)}; {_limit_unknown(baseline, bsat)}: this is no"
                " comparison at saturation."
            )
        else:
            caveats.append(
                "Both limits lie beyond the loads tested, so this is no comparison at saturation."
            )
        text, detail = "NOPM at the highest loads tested", f"neither saturated ({ov}, {bv} users)"
    elif ok == "not_reached":
        headline = (
            f"{_unsaturated(other, osat)}: there it delivers"
            f" {_phrase(ratio, baseline)} at its saturation point ({bv} users)"
        )
        caveats.append(
            f"{_loads(ov, bv)} {_limit_unknown(other, osat)}: its figure at saturation is not"
            " known from this data."
        )
        text = f"NOPM, {other} {_why(osat).replace('measured', 'only')}"
        detail = f"{other} at {ov} users ({_why(osat)}); {baseline} at {bv}"
    elif bk == "not_reached":
        headline = (
            f"{_unsaturated(baseline, bsat)}: {other} at its saturation point"
            f" ({ov} users) delivers {_phrase(ratio, baseline)} at {bv} users"
        )
        caveats.append(
            f"{_loads(ov, bv)} {_limit_unknown(baseline, bsat)}: its figure at saturation is"
            " not known from this data."
        )
        text = f"NOPM, {baseline} {_why(bsat).replace('measured', 'only')}"
        detail = f"{other} at {ov} users; {baseline} at {bv} ({_why(bsat)})"
    else:
        headline = f"{other}: {_phrase(ratio, baseline)} at saturation ({ov} against {bv} users)"
        text = "NOPM at saturation" if ratio.text.endswith("X") else "at saturation"
        detail = f"{other}: {ov} users; {baseline}: {bv} users"
    for name, sat in ((other, osat), (baseline, bsat)):
        if state(sat) == "first_step":
            caveats.append(
                f"{name} saturated at the first load tested ({users(sat.vus)}): the range started"
                " too high to show where its limit is."
            )
    like = ok in ("reached", "first_step") and bk in ("reached", "first_step")
    return SaturationClaim(headline, " ".join(caveats), value, text, detail, like)
