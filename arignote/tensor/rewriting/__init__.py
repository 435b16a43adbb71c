"""Rewrites for tensor ops, registered in the library-wide rewrite database on import.

One module per op family (mirroring ``arignote/tensor``); ``basic`` holds the hooks the generic
pattern matcher needs for tensors, and constant folding.
"""

from arignote.tensor.rewriting import (
    alloc,
    basic,
    blas,
    blockwise,
    elemwise,
    fusion,
    gradient_ops,
    inplace,
    logexp,
    math,
    muldiv,
    products,
    raise_op,
    ratios,
    reduction,
    reshape,
    shape,
    special,
    subtensor,
)
