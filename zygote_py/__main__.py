"""``python -m zygote_py`` is ``zpy``.

May import: :mod:`.cli`.
"""
import sys

from .cli import main

sys.exit(main())
