"""Views made by native kernels whose layout numba can see.

numba compiles a kernel for the layouts of its arguments: C or F ("contiguous") arrays get
unit-stride loops that LLVM vectorises and go to BLAS as they are, while an array of layout A
("any") is indexed through its strides in every loop and copied before ``np.dot``.
``as_strided`` always gives layout A, so the views here keep C where the data allows it.
"""

from __future__ import annotations

import numpy as np

from numba.extending import overload


def unit_dims_view(x, shape, strides):
    """``x`` with length-1 dimensions inserted or dropped (its other dimensions in order):
    ``shape`` and ``strides`` are the view's.

    In native code a C-contiguous ``x`` is reshaped (a C-contiguous view, the same memory);
    another layout gets the ``as_strided`` view.
    """
    return np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


@overload(unit_dims_view)
def _unit_dims_view(x, shape, strides):
    if x.layout == "C":
        return lambda x, shape, strides: x.reshape(shape)
    return lambda x, shape, strides: np.lib.stride_tricks.as_strided(
        x, shape=shape, strides=strides
    )
