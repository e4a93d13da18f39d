"""Small helpers for text."""
