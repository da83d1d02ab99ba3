"""Schedule primitives and other passes, one per file."""
