"""tasklog: log time spent on tasks."""
__version__ = "0.2.0"
