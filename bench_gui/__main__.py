"""``python -m bench_gui``: the same as the ``bench-gui`` command."""

import sys

from bench_gui.cli import main

sys.exit(main())
