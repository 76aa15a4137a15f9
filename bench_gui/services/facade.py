"""How a façade module of the services hands the GUI and the command line what lives in the
layers under them: each name is imported from its own module on first use (PEP 562), so a page
that imports a façade at start-up does not load SSH, the store or the storage code until it
uses them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(facade: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``facade`` that imports each of ``where``'s names (name ->
    its module) when first asked for and keeps it in the façade's globals."""

    def getattr_(name: str) -> Any:
        try:
            module = where[name]
        except KeyError:
            raise AttributeError(f"module {facade!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), name)
        setattr(importlib.import_module(facade), name, value)
        return value

    return getattr_
