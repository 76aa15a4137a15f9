"""``python -m bench_gui``: the same as the ``bench-gui`` command."""

import sys

from bench_gui.cli.main import main

sys.exit(main())
