"""The Live page's strip of driver hosts (issue 18): one small card per host of a run on several
driver hosts, so that an overloaded driver host is seen while the run goes.

Each card shows the host's name and role, its users and its driver's NOPM and TPM (the last
second's), its CPU in use (in the warning colour, and said in words, past 80%), the last
measured step's transactions and CPU over the window, and its link when a notice named it
(lost, restored, or lost for good). The figures are the :class:`~bench_gui.services.live_hosts.
LiveHosts` model's; the strip only paints them. A run on one host has no card and the strip
stays hidden; it is a single row of short cards, so the charts below keep their height.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from bench_gui.gui.widgets.page_parts import set_prop
from bench_gui.services.live_hosts import HostCard, LiveHosts

# The card's look: the tiles' colours (theme.qss), the warning tone the theme's warning yellow.
CARD_STYLE = """
QFrame#hostCard { background-color: #1a1f29; border: 1px solid #2a3140; border-radius: 10px; }
QFrame#hostCard[tone="warning"] { border: 1px solid #f1c21b; background-color: #262112; }
QFrame#hostCard QLabel { background-color: transparent; }
QLabel#hostName { color: #e8ecf3; font-size: 15px; font-weight: 700; }
QLabel#hostRole { color: #93a0b8; font-size: 13px; }
QLabel#hostCpu { color: #e8ecf3; font-size: 15px; font-weight: 700; }
QLabel#hostCpu[tone="warning"] { color: #f1c21b; }
QLabel#hostFigures { color: #c5cbd6; font-size: 13px; }
QLabel#hostNote { color: #7f8aa1; font-size: 12px; }
QLabel#hostNote[tone="warning"] { color: #f1c21b; font-weight: 600; }
QLabel#hostNote[tone="ok"] { color: #42be65; }
"""


def _label(name: str, clip: bool = True) -> QLabel:
    label = QLabel("")
    label.setObjectName(name)
    if clip:
        # Clipped rather than widening the strip past the window.
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


class HostCardView(QFrame):
    """One host's card, two short lines: name, role, figures and CPU; then a note (the
    warning, the link, or the last step's figures)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName("hostCard")
        self.setProperty("tone", "")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        body = QVBoxLayout(self)
        body.setContentsMargins(12, 4, 12, 4)
        body.setSpacing(1)
        top = QHBoxLayout()
        top.setSpacing(8)
        self.name_label = _label("hostName", clip=False)
        self.name_label.setText(name)
        top.addWidget(self.name_label)
        self.role_label = _label("hostRole", clip=False)
        top.addWidget(self.role_label)
        self.figures_label = _label("hostFigures")
        top.addWidget(self.figures_label, 1)
        self.cpu_label = _label("hostCpu", clip=False)
        self.cpu_label.setProperty("tone", "")
        top.addWidget(self.cpu_label)
        body.addLayout(top)
        self.note_label = _label("hostNote")
        self.note_label.setProperty("tone", "")
        body.addWidget(self.note_label)

    def show_card(self, card: HostCard) -> None:
        """Paint the card's figures."""
        self.role_label.setText(card.role)
        self.role_label.setToolTip(card.role_text())
        self.cpu_label.setText(card.cpu_text())
        set_prop(self.cpu_label, "tone", "warning" if card.cpu_warning else "")
        self.figures_label.setText(card.figures_text())
        self.figures_label.setToolTip(card.figures_text())
        warning = card.warning_text()
        note = warning or card.link_text() or card.step_text()
        tone = "warning" if warning else ("ok" if card.link == "restored" else "")
        self.note_label.setText(note)
        self.note_label.setToolTip(card.link_detail if card.link else card.step_text())
        set_prop(self.note_label, "tone", tone)
        set_prop(self, "tone", "warning" if card.warning else "")


class HostsStrip(QWidget):
    """The row of host cards; hidden while the model has no host (a run on one host)."""

    def __init__(self, model: LiveHosts) -> None:
        super().__init__()
        self.model = model
        self.setStyleSheet(CARD_STYLE)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(10)
        self.cards: dict[str, HostCardView] = {}
        self._drawn = -1
        self.hide()

    def reset(self) -> None:
        """A new run: no card."""
        for view in self.cards.values():
            # Gone at once (a deferred delete waits for the event loop: until then the old
            # card would still paint over the new ones).
            self.row.removeWidget(view)
            view.hide()
            view.setParent(None)
            view.deleteLater()
        self.cards.clear()
        self._drawn = -1
        self.hide()

    def draw(self) -> bool:
        """Paint the model if it changed since the last paint; True when painted."""
        if self.model.version == self._drawn:
            return False
        self._drawn = self.model.version
        for name, card in self.model.cards.items():
            view = self.cards.get(name)
            if view is None:
                view = HostCardView(name)
                self.cards[name] = view
                self.row.addWidget(view, 1)
            view.show_card(card)
        self.setVisible(self.model.shown)
        return True
