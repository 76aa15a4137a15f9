"""Where a chart's text label goes: the first of its candidate anchors at which it is drawn
whole inside the plot, over no label already placed and over no data point. Judged in scene
pixels as drawn, after the view's range is set (a label keeps its pixel size whatever the
range). The Compare chart's saturation marks and the random-read dataset chart place theirs
this way."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF

POINT_CLEARANCE_PX = 6.0  # a data point's marker: this far around its centre stays free


def place_label(
    label: pg.TextItem,
    anchors: Sequence[tuple[float, float]],
    view: QRectF,
    taken: list[QRectF],
    points: Sequence[QPointF] = (),
) -> bool:
    """Set ``label`` at the first free one of ``anchors`` and add its rectangle to ``taken``;
    False, with the label at the last anchor tried, when none is free."""
    for anchor in anchors:
        label.setAnchor(anchor)
        label.updateTransform(force=True)
        rect = label.sceneBoundingRect()
        around = rect.adjusted(
            -POINT_CLEARANCE_PX, -POINT_CLEARANCE_PX, POINT_CLEARANCE_PX, POINT_CLEARANCE_PX
        )
        if (
            view.contains(rect)
            and not any(rect.intersects(r) for r in taken)
            and not any(around.contains(p) for p in points)
        ):
            taken.append(rect)
            return True
    return False
