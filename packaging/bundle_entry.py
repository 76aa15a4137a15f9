"""The desktop bundle's one program (PyInstaller freezes this script; see bench-gui.spec).

Installed as ``bench-gui`` (the command line; with no command it opens the window) and as
``bench-gui-desktop`` (a symlink: the window, for the desktop entry). A frozen program has no
``python``, so it also answers the two ways the app starts Python again:

- ``bench-gui -m bench_gui.agent ...``: the local agent (``sys.executable -m bench_gui.agent``
  in :mod:`bench_gui.remote.local_transport`);
- multiprocessing's spawned workers and resource tracker (the agent's virtual users), which
  :func:`multiprocessing.freeze_support` takes over before anything else runs.
"""

from __future__ import annotations

import multiprocessing
import os
import runpy
import sys

# Modules the bundle runs as ``-m``: only its own (the agent), never whatever a caller names.
RUNNABLE_PREFIX = "bench_gui."


def _child_environment() -> None:
    """Give programs this process starts (pg_ctl, fio, ssh, sudo) the library path the user had,
    not the bundle's: the bootloader points LD_LIBRARY_PATH at the bundle's libraries and keeps
    the original in LD_LIBRARY_PATH_ORIG. This process's own libraries are loaded already."""
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        os.environ["LD_LIBRARY_PATH"] = original
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)


def main() -> int:
    multiprocessing.freeze_support()
    _child_environment()
    args = sys.argv[1:]
    if args[:1] == ["-m"]:
        if len(args) < 2 or not args[1].startswith(RUNNABLE_PREFIX):
            sys.stderr.write(f"bench-gui: -m runs only bench_gui modules, not {args[1:2]}\n")
            return 2
        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    if os.path.basename(sys.argv[0]) == "bench-gui-desktop":
        from bench_gui.gui.app import main as desktop_main

        return desktop_main()
    from bench_gui.cli.main import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
