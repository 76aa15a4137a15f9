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
# Read by the bootloader of a bundle program this process starts (the local agent, its virtual
# users): "start as a program of your own", so it sets its own library path again.
RESET_ENV = "PYINSTALLER_RESET_ENVIRONMENT"


def _child_environment() -> None:
    """Give programs this process starts (pg_ctl, fio, ssh, sudo) the library path the user had,
    not the bundle's: the bootloader points LD_LIBRARY_PATH at the bundle's libraries and keeps
    the original in LD_LIBRARY_PATH_ORIG. This process's own libraries are loaded already.

    The bundle's own programs it starts (``bench-gui -m bench_gui.agent``, multiprocessing's
    workers) would otherwise inherit the bootloader's ``_PYI_*`` variables, take themselves for
    an already prepared process and never set the bundle's library path: on a desktop without
    the system's copies (libexpat, libssl) they could not start. ``PYINSTALLER_RESET_ENVIRONMENT``
    makes each prepare itself (a re-exec of the same process on Linux: its pid and its inherited
    pipes stay)."""
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        os.environ["LD_LIBRARY_PATH"] = original
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)
    os.environ[RESET_ENV] = "1"


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
