"""``import arignote.tensor as pt`` offers NumPy's names for reductions, creation and shapes."""

from __future__ import annotations

import pytest

import arignote.tensor as pt

REDUCTIONS = [
    "sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any", "ptp",
    "cumsum", "cumprod", "max_and_argmax",
]  # fmt: skip
CREATION = [
    "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
    "eye", "identity_like", "tri", "arange", "linspace", "alloc", "fill",
]  # fmt: skip
SHAPES = [
    "reshape", "flatten", "ravel", "transpose", "permute_dims", "moveaxis", "swapaxes",
    "expand_dims", "squeeze", "broadcast_to", "broadcast_arrays", "broadcast_shape", "stack",
    "concatenate", "join", "split", "hstack", "vstack", "tile", "repeat", "roll", "flip",
    "fliplr", "flipud", "diag", "diagonal", "trace", "tril", "triu", "shape", "specify_shape",
    "shape_padleft", "shape_padright", "shape_padaxis", "atleast_1d", "atleast_2d",
    "atleast_3d", "pad",
]  # fmt: skip
OPS = [
    "Sum", "Prod", "Max", "Min", "All", "Any", "Argmax", "Argmin", "CumOp", "Alloc",
    "AllocEmpty", "Eye", "ARange", "Linspace", "Join", "Split", "Flip", "Repeat", "SegmentSum",
    "ExtractDiag", "AllocDiag", "Reshape", "Shape", "Shape_i", "SpecifyShape",
]  # fmt: skip


@pytest.mark.parametrize("name", REDUCTIONS + CREATION + SHAPES + OPS)
def test_name_exists(name):
    assert callable(getattr(pt, name))


@pytest.mark.parametrize(
    "method",
    ["prod", "var", "std", "argmin", "all", "any", "ptp", "cumsum", "cumprod", "squeeze",
     "swapaxes", "repeat", "diagonal", "trace"],
)  # fmt: skip
def test_tensor_variable_method_exists(method):
    assert callable(getattr(pt.matrix(), method))
