"""zygote_py's version, which emitted modules and the disk cache record.

May import: nothing.
"""
__version__ = "0.1.0"
