"""`python -m bot` runs the `gnav-bot` command line."""

import sys

from bot.cli import main

sys.exit(main())
