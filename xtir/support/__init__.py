"""The bottom layer of xtir: errors, diagnostics and source locations.

It imports nothing of xtir (xDSL only), so every other layer may use it; see
docs/architecture.md for the layers above it and tests/test_layering.py for the rule.
"""
