"""NumPy rules (being written)."""
