"""Presentation mode: a run on a booth screen, read from 3 m.

The view and its parts: :mod:`.view` (the Present view), :mod:`.tiles` (the huge figures),
:mod:`.phase_line` (phase, step, users, countdown), :mod:`.chart` (the one throughput chart),
:mod:`.corner` (an error that fades in the corner), :mod:`.style` (sizes for the screen);
:mod:`.window` (a window of its own, and the main window's factory) and :mod:`.run` (one run
of a plan on the view, for ``bench-gui present``). The race, replay, loop and result card
(:mod:`.booth`, :mod:`.result_card`) drive the same view.
"""
