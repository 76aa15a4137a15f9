"""The app's run-time files, kept in one place: the theme (``theme/``), the icons
(``icons/``) and the report templates (``report/``).

They ship as package data (``pyproject.toml``), so a checkout, an installed wheel and the
PyInstaller bundle find them the same way, through :mod:`importlib.resources`. The modules
that load them (``gui/resources.py``, ``report/html.py``) ask :func:`folder` and know nothing
of where the package lives. No code here beyond that: no Qt, no imports of the app.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def folder(name: str) -> Traversable:
    """One folder of resources (``theme``, ``icons`` or ``report``); it may be missing in a
    broken install, which the caller reports."""
    return resources.files(__name__).joinpath(name)
