"""Rewrites for tensor ops, registered in the library-wide rewrite database on import."""

from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.rewriting.folding import constant_folding
from arignote.tensor.rewriting import gradient_ops, shape

register_rewrite("canonicalize", "constant_folding", "fast_compile")(constant_folding)
