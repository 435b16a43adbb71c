"""Loops over graphs. ``IndexMap``/``index_map``: one graph evaluated for every index of a range."""

from arignote.scan.index_map import IndexMap, index_map

__all__ = ["IndexMap", "index_map"]
