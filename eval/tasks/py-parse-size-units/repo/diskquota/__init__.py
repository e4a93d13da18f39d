"""diskquota: per-user disk quota checks."""
