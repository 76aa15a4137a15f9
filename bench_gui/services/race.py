"""A race: the run on screen against a stored session of the other storage, step by step.

A booth shows the new storage beating the old one as it happens. The old one is a stored
session (the HDD array, the competitor's drive): its *rival*. Each step of the live run is
raced against one stored step (:meth:`Rival.align`): the stored step with the same number of
virtual users, else the stored step with the same index (the UI says which). Every second the
booth asks :meth:`Race.frame` for

- the ghost curve: the stored step's per-second NOPM placed at the live step's start, up to
  the live run's latest sample (a step stored without samples shows its result as a flat line
  over the live step's measured window);
- the live figure, "4.2X vs HDD RAID 10": the live step's NOPM (the big tile's value) over the
  stored step's NOPM. During ramp-up it says so instead of a ratio that would mislead; between
  steps and after the run it gives the finished step's result against the stored one.

No Qt here: the live side is a :class:`~bench_gui.services.live_model.LiveModel`, the stored
side is read from the session store once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench_gui.core.compare import format_ratio
from bench_gui.services.live_model import LiveModel, StepPoint
from bench_gui.store.sessions import SessionNotFound, SessionStore

# States of a race frame.
WAITING, RAMPUP, MEASURE, RESULT, UNMATCHED = "waiting", "rampup", "measure", "result", "none"
# The tone of a headline: its colour on screen.
AHEAD, BEHIND, LEVEL, NEUTRAL = "ahead", "behind", "level", "neutral"
CURRENT_PHASES = frozenset({"rampup", "measure"})
AFTER_STEP_PHASES = frozenset({"between", "ok", "stopped", "failed"})


class RaceError(ValueError):
    """A session cannot be raced against (not found, ambiguous, nothing measured)."""


@dataclass(frozen=True)
class StoredStep:
    """One step of the rival session: its result and its per-second NOPM."""

    step: int
    vus: int
    nopm: float | None
    complete: bool
    # (seconds since the step began, NOPM) of each stored sample, in time order.
    curve: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class Alignment:
    """Which stored step a live step races against, and how it was matched."""

    live_step: int
    live_vus: int
    stored: StoredStep
    by_users: bool  # True: same user count; False: same step index (the counts differ)

    @property
    def note(self) -> str:
        """How the steps were matched, in words for the screen."""
        if self.by_users:
            return f"at {self.live_vus} {users(self.live_vus)}"
        return (
            f"step {self.stored.step + 1} ({self.stored.vus} {users(self.stored.vus)} vs"
            f" {self.live_vus}:"
            " matched by step order)"
        )


@dataclass(frozen=True)
class Rival:
    """A stored session to race against."""

    session_id: int
    name: str
    label: str  # the short name shown: "HDD RAID 10"
    steps: tuple[StoredStep, ...]

    def align(self, step: int, vus: int) -> Alignment | None:
        """The stored step that live step ``step`` (with ``vus`` users) races against.

        The same user count first (several: the one at the same index, else the first
        complete one); else the same index; None when the stored sweep has neither.
        """
        same = [s for s in self.steps if s.vus == vus]
        if same:
            chosen = next((s for s in same if s.step == step), None)
            chosen = chosen or next((s for s in same if s.complete), same[0])
            return Alignment(step, vus, chosen, by_users=True)
        by_index = next((s for s in self.steps if s.step == step), None)
        if by_index is None:
            return None
        return Alignment(step, vus, by_index, by_users=False)


@dataclass(frozen=True)
class Headline:
    """The race's line on screen: the same news in longer and shorter words, and its tone.

    ``forms`` go from the longest to the shortest; each is whole (a screen shows the longest
    that fits its width and never cuts one mid-word). ``tone`` is AHEAD (green), BEHIND
    (amber), LEVEL (within a percent) or NEUTRAL (no figure yet).
    """

    forms: tuple[str, ...]
    tone: str = NEUTRAL

    @property
    def text(self) -> str:
        return self.forms[0]


def headline_of(text: str | None) -> Headline | None:
    """A one-form neutral headline for ``text`` (None for no text)."""
    return Headline((text,)) if text else None


def tone_of(ratio: float) -> str:
    """AHEAD, BEHIND or LEVEL for live/stored ``ratio`` (LEVEL when it shows as ±0%)."""
    shown = format_ratio(ratio)
    if shown == "±0%" or not math.isfinite(ratio):
        return LEVEL
    return AHEAD if ratio > 1 else BEHIND


def _unique(forms: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f for f in forms if f))


@dataclass(frozen=True)
class RaceFrame:
    """What the race shows at one moment."""

    state: str  # WAITING, RAMPUP, MEASURE, RESULT or UNMATCHED
    ratio_text: str | None  # "4.2X vs HDD RAID 10", or what is going on instead; None: nothing
    ratio: float | None  # live NOPM / stored NOPM, when there is one
    live_nopm: float | None
    stored_nopm: float | None
    alignment: Alignment | None
    ghost_label: str
    ghost: list[tuple[float, float]]  # (live run time, stored NOPM)
    headline: Headline | None = None  # ratio_text in longer and shorter words, with a tone

    def __post_init__(self) -> None:
        if self.headline is None and self.ratio_text:
            object.__setattr__(self, "headline", Headline((self.ratio_text,)))


def users(n: int) -> str:
    """ "user" for one, else "users"."""
    return "user" if n == 1 else "users"


def find_session(store: SessionStore, ref: str) -> int:
    """The id of the session ``ref`` names: an id (``12`` or ``#12``) or a name.

    A name matches whole (any case) first, else as a part of exactly one session's name; a
    name that matches several sessions is refused with their ids, so the id can be given.
    """
    text = ref.strip()
    if not text:
        raise RaceError("no session given: name a stored session by its id or its name")
    digits = text[1:] if text.startswith("#") else text
    if digits.isdigit():
        session_id = int(digits)
        try:
            store.get_run(session_id)
        except SessionNotFound:
            raise RaceError(f"no stored session with id {session_id}") from None
        return session_id
    runs = store.list_runs("run")
    whole = [r for r in runs if r.name.strip().lower() == text.lower()]
    found = whole or [r for r in runs if text.lower() in r.name.lower()]
    if len(found) == 1:
        return found[0].id
    if not found:
        raise RaceError(f"no stored session is named {text!r} (see: bench-gui sessions list)")
    ids = ", ".join(f"{r.id} ({r.name})" for r in sorted(found, key=lambda r: r.id)[:8])
    raise RaceError(f"{len(found)} stored sessions match {text!r}: give the id of one: {ids}")


def session_label(name: str) -> str:
    """The short name a race shows: "HDD RAID 10 (16 x 15K SAS)" -> "HDD RAID 10" (a name
    that is all parenthesis stays whole)."""
    text = name.strip()
    if text.endswith(")") and " (" in text:
        return text[: text.rindex(" (")].strip() or text
    return text


def load_rival(store: SessionStore, session_id: int, label: str | None = None) -> Rival:
    """Read a stored session's step results and per-second NOPM for racing against it."""
    try:
        detail = store.get_run(session_id)
    except SessionNotFound:
        raise RaceError(f"no stored session with id {session_id}") from None
    results = store.steps(session_id)
    if not results:
        raise RaceError(
            f"session {session_id} ({detail.name}) has no measured step to race against"
        )
    curves: dict[int, list[tuple[float, float]]] = {}
    for sample in store.samples(session_id):
        nopm = sample.nopm_db if sample.nopm_db is not None else sample.nopm_driver
        if nopm is not None and math.isfinite(nopm) and math.isfinite(sample.elapsed):
            curves.setdefault(sample.step, []).append((sample.elapsed, nopm))
    steps = tuple(
        StoredStep(
            step=r.step,
            vus=r.vus,
            nopm=r.nopm,
            complete=r.complete,
            curve=tuple(sorted(curves.get(r.step, []))),
        )
        for r in results
    )
    text = (label or "").strip() or session_label(detail.name)
    return Rival(session_id, detail.name, text, steps)


def _latest_point(model: LiveModel) -> StepPoint | None:
    return max(model.points, key=lambda p: p.step) if model.points else None


def _now(model: LiveModel) -> float | None:
    """The live run's latest sample time (run seconds), or the latest step start."""
    times = model.samples.last("t")
    if len(times) and math.isfinite(float(times[-1])):
        return float(times[-1])
    return model.markers[-1][0] if model.markers else None


class Race:
    """Races the runs a :class:`LiveModel` receives against one :class:`Rival`."""

    def __init__(self, rival: Rival) -> None:
        self.rival = rival

    def ghost(self, model: LiveModel) -> list[tuple[float, float]]:
        """The rival's NOPM on the live run's time axis, step by step, up to its latest sample."""
        now = _now(model)
        if now is None:
            return []
        points: list[tuple[float, float]] = []
        markers = model.markers
        for i, (start, step, vus) in enumerate(markers):
            end = markers[i + 1][0] if i + 1 < len(markers) else now
            aligned = self.rival.align(step, vus)
            if aligned is None:
                continue
            stored = aligned.stored
            if stored.curve:
                for elapsed, nopm in stored.curve:
                    if start + elapsed > end:
                        break
                    points.append((start + elapsed, nopm))
            elif stored.nopm is not None:
                # Only the step's result was stored: a flat line over the measured window.
                begin = start + (model.rampup_s or 0.0)
                if begin < end:
                    points += [(begin, stored.nopm), (end, stored.nopm)]
        return points

    def ghost_label(self, aligned: Alignment | None) -> str:
        if aligned is None:
            return self.rival.label
        return f"{self.rival.label} {aligned.note}"

    def frame(self, model: LiveModel) -> RaceFrame:
        """What the race shows now (call it about once a second)."""
        label = self.rival.label
        ghost = self.ghost(model)
        if model.phase in CURRENT_PHASES and model.step is not None and model.vus is not None:
            return self._current(model, model.step, model.vus, ghost)
        point = _latest_point(model)
        if model.phase in AFTER_STEP_PHASES and point is not None:
            return self._result(point, ghost)
        return RaceFrame(WAITING, None, None, None, None, None, label, ghost)

    def _unmatched(
        self, aligned: Alignment | None, step: int, vus: int, ghost: list[tuple[float, float]]
    ) -> RaceFrame | None:
        label = self.rival.label
        if aligned is None:
            text = f"{label} has no step {step + 1} and no step at {vus} users to race"
            return RaceFrame(UNMATCHED, text, None, None, None, None, label, ghost)
        if aligned.stored.nopm is None or aligned.stored.nopm <= 0:
            text = f"{label} has no NOPM stored {aligned.note}"
            return RaceFrame(
                UNMATCHED, text, None, None, None, aligned, self.ghost_label(aligned), ghost
            )
        return None

    def _vs(self, aligned: Alignment) -> str:
        """ "vs HDD RAID 10", with the stored step when the user counts differ."""
        text = f"vs {self.rival.label}"
        if not aligned.by_users:
            stored = aligned.stored
            text += f" step {stored.step + 1} ({stored.vus} {users(stored.vus)})"
        return text

    def _against(self, aligned: Alignment) -> str:
        """ "vs HDD RAID 10 at 16 users", or its stored step when the user counts differ."""
        if aligned.by_users:
            return f"vs {self.rival.label} at {aligned.live_vus} {users(aligned.live_vus)}"
        return self._vs(aligned)

    def _figure_headline(self, ratio: float, aligned: Alignment) -> Headline:
        """ "4.2X vs HDD RAID 10 at 16 users" and its shorter forms, green or amber."""
        figure = format_ratio(ratio)
        vus = aligned.live_vus
        forms = [
            f"{figure} {self._against(aligned)}",
            f"{figure} vs {self.rival.label}",
            f"{figure} at {vus} {users(vus)}",
            figure,
        ]
        return Headline(_unique(forms), tone_of(ratio))

    def _waiting_headline(self, what: str, until: str, aligned: Alignment) -> Headline:
        """ "Ramp-up: vs HDD RAID 10 at 16 users once measuring starts" and shorter forms."""
        vus = aligned.live_vus
        forms = [
            f"{what}: {self._against(aligned)} {until}",
            f"{what}: {self._against(aligned)}",
            f"{what}: vs {self.rival.label}",
            f"{what} at {vus} {users(vus)}",
            what,
        ]
        return Headline(_unique(forms))

    def _current(
        self, model: LiveModel, step: int, vus: int, ghost: list[tuple[float, float]]
    ) -> RaceFrame:
        aligned = self.rival.align(step, vus)
        missing = self._unmatched(aligned, step, vus, ghost)
        if missing is not None:
            return missing
        assert aligned is not None
        stored = aligned.stored.nopm
        assert stored is not None
        glabel = self.ghost_label(aligned)
        if model.phase == "rampup":
            head = self._waiting_headline("Ramp-up", "once measuring starts", aligned)
            return RaceFrame(RAMPUP, head.text, None, None, stored, aligned, glabel, ghost, head)
        live = model.tiles().nopm
        if live is None:
            head = self._waiting_headline("Measuring", "from the first second", aligned)
            return RaceFrame(MEASURE, head.text, None, None, stored, aligned, glabel, ghost, head)
        ratio = live / stored
        head = self._figure_headline(ratio, aligned)
        return RaceFrame(MEASURE, head.text, ratio, live, stored, aligned, glabel, ghost, head)

    def _result(self, point: StepPoint, ghost: list[tuple[float, float]]) -> RaceFrame:
        aligned = self.rival.align(point.step, point.vus)
        missing = self._unmatched(aligned, point.step, point.vus, ghost)
        if missing is not None:
            return missing
        assert aligned is not None
        stored = aligned.stored.nopm
        assert stored is not None
        glabel = self.ghost_label(aligned)
        if point.nopm is None:
            text = f"Step {point.step + 1} measured no NOPM to set against {self.rival.label}"
            return RaceFrame(RESULT, text, None, None, stored, aligned, glabel, ghost)
        ratio = point.nopm / stored
        head = self._figure_headline(ratio, aligned)
        return RaceFrame(RESULT, head.text, ratio, point.nopm, stored, aligned, glabel, ghost, head)


__all__ = [
    "AHEAD",
    "BEHIND",
    "LEVEL",
    "NEUTRAL",
    "Alignment",
    "Headline",
    "Race",
    "RaceError",
    "RaceFrame",
    "Rival",
    "StoredStep",
    "find_session",
    "headline_of",
    "load_rival",
    "session_label",
    "tone_of",
    "users",
]
