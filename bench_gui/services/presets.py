"""The PostgreSQL tuning presets as `bench-gui presets` lists them: the built-in ones (the
seed briefs') and the user's own files. A façade over ``store.user_presets`` for the command
line, apart from :mod:`bench_gui.services.tuning_view` because the presets are the PostgreSQL
kit's, which the other kits' Database tabs must not reach (the import contract "Engine kits are
independent of each other")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bench_gui.services.facade import lazy_names

if TYPE_CHECKING:
    from bench_gui.store.user_presets import all_presets, load_user_presets

# Each name and the module that defines it.
WHERE: Final = {
    "all_presets": "bench_gui.store.user_presets",
    "load_user_presets": "bench_gui.store.user_presets",
}

__all__ = ["all_presets", "load_user_presets"]

__getattr__ = lazy_names(__name__, WHERE)
