"""Entry point for ``python -m python_helpers``."""

import sys

from python_helpers.cli import main

sys.exit(main())
