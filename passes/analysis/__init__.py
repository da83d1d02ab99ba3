"""Analyses the passes share."""
