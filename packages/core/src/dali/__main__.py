"""``python -m dali``: the installed distributions, active fast paths, GPUs and settings."""

import sys

from dali.tools.about import main

sys.exit(main())
