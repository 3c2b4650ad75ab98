"""Filled in by later changes."""
