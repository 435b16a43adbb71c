"""``import arignote.tensor as pt`` offers NumPy's names for reductions, creation, shapes,
indexing and products (the linalg names are listed in tests/tensor/linalg/test_basic.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

REDUCTIONS = [
    "sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any", "ptp",
    "cumsum", "cumprod", "max_and_argmax", "logsumexp",
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
INDEXING = [
    "take", "take_along_axis", "nonzero", "sort", "argsort", "searchsorted", "unique",
    "bincount", "diff", "where", "choose", "set_subtensor", "inc_subtensor",
]  # fmt: skip
PRODUCTS = ["dot", "matmul", "tensordot", "outer", "vdot", "einsum"]
OPS = [
    "Sum", "Prod", "Max", "Min", "All", "Any", "Argmax", "Argmin", "CumOp", "Alloc",
    "AllocEmpty", "Eye", "ARange", "Linspace", "Join", "Split", "Flip", "Repeat", "SegmentSum",
    "ExtractDiag", "AllocDiag", "Reshape", "Shape", "Shape_i", "SpecifyShape",
]  # fmt: skip


@pytest.mark.parametrize("name", REDUCTIONS + CREATION + SHAPES + INDEXING + PRODUCTS + OPS)
def test_name_exists(name):
    assert callable(getattr(pt, name))


@pytest.mark.parametrize(
    "method",
    ["prod", "var", "std", "argmin", "all", "any", "ptp", "cumsum", "cumprod", "squeeze",
     "swapaxes", "repeat", "diagonal", "trace", "take", "nonzero", "sort", "argsort",
     "searchsorted", "dot", "flatten", "ravel", "reshape", "transpose", "clip", "max", "min",
     "sum", "mean", "argmax", "astype", "round", "conj", "dimshuffle"],
)  # fmt: skip
def test_tensor_variable_method_exists(method):
    assert callable(getattr(pt.matrix(), method))


def test_transpose_properties(rng):
    x = pt.tensor3("x")
    value = rng.normal(size=(2, 3, 4))
    got = arignote.function([x], [x.T, x.mT])(value)
    np.testing.assert_array_equal(got[0], value.T)
    np.testing.assert_array_equal(got[1], np.swapaxes(value, -1, -2))
