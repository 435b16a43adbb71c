"""``images2neibs`` / ``neibs2images``: patches of images as rows of a matrix, and back.

Extracting patches is a convolution with one-hot kernels (one per patch position), so both are
built from the convolution ops, whose gradients they inherit: ``images2neibs`` is an
``AbstractConv`` correlation, ``neibs2images`` its adjoint ``AbstractConv_gradInputs`` (which
sums overlapping patches, the gradient of ``images2neibs`` as in Theano).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arignote.graph.basic import Variable
from arignote.tensor.basic import as_tensor_variable, constant
from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    conv_output_length,
)
from arignote.tensor.reshape import reshape
from arignote.tensor.shape import shape_i

NEIB_MODES = ("valid", "ignore_borders", "half", "full")


def _pair(value: Any, name: str) -> tuple[int, int]:
    values = tuple(int(v) for v in value)
    if len(values) != 2 or min(values) < 1:
        raise ValueError(f"{name} must be two positive integers, got {value!r}")
    return values


def _border(mode: str) -> str:
    if mode == "wrap_centered":
        raise ValueError(
            "images2neibs mode 'wrap_centered' (patches wrapping around the image edges) is not "
            "supported: pad the images with arignote.tensor.pad(..., mode='wrap') first"
        )
    if mode not in NEIB_MODES:
        raise ValueError(f"images2neibs mode must be one of {NEIB_MODES}, got {mode!r}")
    return "valid" if mode in ("valid", "ignore_borders") else mode


def _one_hot_kernels(neib_shape: tuple[int, int], dtype: str) -> Variable:
    """``(K, 1, rows, cols)`` kernels, kernel ``t`` picking tap ``t`` of the patch."""
    size = math.prod(neib_shape)
    return constant(np.eye(size, dtype=dtype).reshape(size, 1, *neib_shape))


def images2neibs(
    ten4: Any, neib_shape: Any, neib_step: Any = None, mode: str = "valid"
) -> Variable:
    """The ``neib_shape`` patches of each image of ``ten4`` (batch, channels, rows, columns),
    taken every ``neib_step`` (default: ``neib_shape``), one flattened patch per row; rows are
    ordered by image, channel, then patch position in row-major order.

    ``mode`` "valid" and "ignore_borders" drop the patches that would cross the border, "half"
    and "full" zero-pad as the convolution border modes of those names do.
    """
    ten4 = as_tensor_variable(ten4)
    neib_shape = _pair(neib_shape, "neib_shape")
    step = neib_shape if neib_step is None else _pair(neib_step, "neib_step")
    # explicit lengths, no -1: a -1 is ambiguous when another length is 0
    count = shape_i(ten4, 0) * shape_i(ten4, 1)
    images = reshape(ten4, (count, 1, shape_i(ten4, 2), shape_i(ten4, 3)), ndim=4)
    op = AbstractConv(2, _border(mode), step, filter_flip=False)
    patches = op(images, _one_hot_kernels(neib_shape, ten4.type.dtype))  # (B, K, r, c)
    rows = count * shape_i(patches, 2) * shape_i(patches, 3)
    return reshape(patches.dimshuffle(0, 2, 3, 1), (rows, math.prod(neib_shape)), ndim=2)


def neibs2images(neibs: Any, neib_shape: Any, original_shape: Any, mode: str = "valid") -> Variable:
    """The images of shape ``original_shape`` whose non-overlapping ``neib_shape`` patches
    are the rows of ``neibs``: the inverse of :func:`images2neibs` with its default step
    (and its adjoint in general: overlapping contributions add up)."""
    neibs = as_tensor_variable(neibs)
    neib_shape = _pair(neib_shape, "neib_shape")
    shape = [original_shape[i] for i in range(4)]
    rows, cols = shape[2], shape[3]
    border = _border(mode)
    per_row = conv_output_length(cols, neib_shape[1], border, 1, neib_shape[1], 1)
    per_column = conv_output_length(rows, neib_shape[0], border, 1, neib_shape[0], 1)
    images = reshape(
        neibs, (shape[0] * shape[1], per_column, per_row, math.prod(neib_shape)), ndim=4
    )
    op = AbstractConv_gradInputs(2, border, neib_shape, filter_flip=False)
    kernels = _one_hot_kernels(neib_shape, neibs.type.dtype)
    result = op(kernels, images.dimshuffle(0, 3, 1, 2), rows, cols)
    return reshape(result, shape, ndim=4)


__all__ = ["images2neibs", "neibs2images"]
