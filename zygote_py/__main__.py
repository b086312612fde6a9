"""``python -m zygote_py`` is ``zpy``."""
import sys

from .cli import main

sys.exit(main())
