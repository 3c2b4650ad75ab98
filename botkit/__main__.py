"""``python -m botkit`` runs the headless runner (see :mod:`botkit.runner`)."""

import sys

from botkit.runner import main

sys.exit(main())
