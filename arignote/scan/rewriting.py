"""Rewrites of Scan nodes."""
