"""fetchbot: poll HTTP endpoints."""
__version__ = "0.5.2"
