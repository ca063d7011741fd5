"""RQ entry points and bot policies."""
