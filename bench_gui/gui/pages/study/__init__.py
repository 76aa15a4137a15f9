"""The Study page: a study file's systems, what is measured, a run with its progress."""

from bench_gui.gui.pages.study.page import StudyPage

__all__ = ["StudyPage"]
