"""Pooling over the last 2 (or 3) axes: Theano's ``tensor.signal.pool``.

``Pool`` computes the pooled values; ``MaxPoolGrad`` and ``AveragePoolGrad`` are its
gradients, ``DownsampleFactorMaxGradGrad`` the gradient of ``MaxPoolGrad`` with respect to its
output gradient. Max pooling is piecewise linear in its input (it selects), and the three
max ops form a closed family: each one's derivative is another one at the same selection.
Window parameters are static (``ws``, ``stride``, ``pad``), as the programs use them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import maximum, zeros_like
from arignote.tensor.signal import pool_kernels as kernels
from arignote.tensor.type import tensor_type

POOL_MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def _tuple(value: Any, nd: int, name: str, minimum: int) -> tuple[int, ...]:
    values = (value,) * nd if np.ndim(value) == 0 else tuple(value)
    if len(values) != nd or any(int(v) < minimum for v in values):
        raise ValueError(f"pooling: {name} must be {nd} integers >= {minimum}, got {value!r}")
    return tuple(int(v) for v in values)


class PoolBase(Op):
    """The window parameters shared by the pooling ops."""

    __props__ = ("ndim", "ws", "stride", "pad", "ignore_border", "mode")

    def __init__(
        self,
        ws: Any,
        ignore_border: bool = True,
        stride: Any = None,
        pad: Any = 0,
        mode: str = "max",
        ndim: int = 2,
    ) -> None:
        if mode not in POOL_MODES:
            raise ValueError(f"pooling mode must be one of {POOL_MODES}, got {mode!r}")
        self.ndim = int(ndim)
        self.ws = _tuple(ws, ndim, "ws", 1)
        self.stride = self.ws if stride is None else _tuple(stride, ndim, "stride", 1)
        self.pad = _tuple(pad, ndim, "pad", 0)
        if any(self.pad) and not ignore_border:
            raise ValueError("pooling: padding requires ignore_border=True (as in Theano)")
        if any(p >= w for p, w in zip(self.pad, self.ws)):
            raise ValueError(f"pooling: pad {self.pad} must be smaller than ws {self.ws}")
        self.ignore_border = bool(ignore_border)
        self.mode = mode

    def _params(self) -> dict:
        return {name: getattr(self, name) for name in self.__props__}

    def _window(self) -> tuple:
        return self.ws, self.stride, self.pad, self.ignore_border

    def _input(self, x: Any) -> Variable:
        x = as_tensor_variable(x)
        if x.type.ndim < self.ndim:
            raise TypeError(f"{type(self).__name__} pools the last {self.ndim} axes of {x.type}")
        return x

    def _out_lengths(self, sizes, maximum_fn=max) -> list:
        return [
            None if n is None else kernels.output_length(n, w, s, p, self.ignore_border, maximum_fn)
            for n, w, s, p in zip(sizes, self.ws, self.stride, self.pad)
        ]

    def _pooled_type(self, x: Variable, dtype: str):
        lead = x.type.shape[: x.type.ndim - self.ndim]
        return tensor_type(dtype, (*lead, *self._out_lengths(x.type.shape[-self.ndim :])))


class Pool(PoolBase):
    """Max, sum or average of each window over the last ``ndim`` axes."""

    def make_node(self, x: Any) -> Apply:
        x = self._input(x)
        dtype = x.type.dtype
        if self.mode.startswith("average") and x.type.dtype not in (
            "float32",
            "float64",
            "float16",
        ):
            dtype = "float64"
        return Apply(self, [x], [self._pooled_type(x, dtype)()])

    def perform(self, node, inputs, output_storage):
        out = kernels.pool(inputs[0], *self._window(), self.mode)
        output_storage[0][0] = out.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        lead = shape[: len(shape) - self.ndim]
        return [(*lead, *self._out_lengths(shape[-self.ndim :], maximum))]

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if self.mode == "max":
            # d max / dx: the output gradient routed to the window's maximum
            return [MaxPoolGrad(**self._params())(x, self(x), gz)]
        return [AveragePoolGrad(**self._params())(x, gz)]  # linear: its adjoint

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        if self.mode == "max":
            # the tangent at each window's maximum (the selection is locally constant)
            return [DownsampleFactorMaxGradGrad(**self._params())(x, self(x), ev)]
        return [self(ev)]  # linear


class MaxPoolGrad(PoolBase):
    """``MaxPoolGrad(x, maxout, gz)``: the gradient of max pooling, ``gz`` sent to the
    positions of each window's maximum."""

    def make_node(self, x: Any, maxout: Any, gz: Any) -> Apply:
        x, maxout, gz = self._input(x), self._input(maxout), self._input(gz)
        return Apply(self, [x, maxout, gz], [tensor_type(gz.type.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        gx = kernels.max_pool_grad(*inputs, *self._window())
        output_storage[0][0] = gx.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def grad(self, inputs, output_grads):
        x, maxout, _ = inputs
        (ggx,) = output_grads
        # linear in gz, and locally constant in x and maxout (they only choose positions)
        ggz = DownsampleFactorMaxGradGrad(**self._params())(x, maxout, ggx)
        return [zeros_like(x), zeros_like(maxout), ggz]

    def R_op(self, inputs, eval_points):
        x, maxout, _ = inputs
        ev = eval_points[2]
        return [None if ev is None else self(x, maxout, ev)]


class DownsampleFactorMaxGradGrad(PoolBase):
    """``DownsampleFactorMaxGradGrad(x, maxout, ggx)``: each window's sum of ``ggx`` over the
    positions of its maximum (the adjoint of :class:`MaxPoolGrad` in its gradient input)."""

    def make_node(self, x: Any, maxout: Any, ggx: Any) -> Apply:
        x, maxout, ggx = self._input(x), self._input(maxout), self._input(ggx)
        return Apply(self, [x, maxout, ggx], [tensor_type(ggx.type.dtype, maxout.type.shape)()])

    def perform(self, node, inputs, output_storage):
        ggz = kernels.max_pool_grad_grad(*inputs, *self._window())
        output_storage[0][0] = ggz.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[1]]

    def grad(self, inputs, output_grads):
        x, maxout, _ = inputs
        (gz,) = output_grads
        ggx = MaxPoolGrad(**self._params())(x, maxout, gz)  # linear in ggx: its adjoint
        return [zeros_like(x), zeros_like(maxout), ggx]

    def R_op(self, inputs, eval_points):
        x, maxout, _ = inputs
        ev = eval_points[2]
        return [None if ev is None else self(x, maxout, ev)]


class AveragePoolGrad(PoolBase):
    """``AveragePoolGrad(x, gz)``: the gradient of sum or average pooling (``x`` gives the
    shape), each window's gradient spread over its positions."""

    def make_node(self, x: Any, gz: Any) -> Apply:
        x, gz = self._input(x), self._input(gz)
        return Apply(self, [x, gz], [tensor_type(gz.type.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, gz = inputs
        gx = kernels.average_pool_grad(x.shape, gz, *self._window(), self.mode)
        output_storage[0][0] = gx.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def grad(self, inputs, output_grads):
        x, _ = inputs
        (ggx,) = output_grads
        # linear in gz (its adjoint is the pooling itself); x only gives the shape
        return [zeros_like(x), Pool(**self._params())(ggx)]

    def R_op(self, inputs, eval_points):
        ev = eval_points[1]
        return [None if ev is None else self(inputs[0], ev)]


def pool_2d(
    input: Any,
    ws: Any = None,
    ignore_border: bool | None = True,
    stride: Any = None,
    pad: Any = (0, 0),
    mode: str = "max",
    ds: Any = None,
    st: Any = None,
    padding: Any = None,
) -> Variable:
    """Pool the last two axes of ``input`` over ``ws`` windows.

    Parameters
    ----------
    input : tensor with at least 2 dimensions
    ws : tuple of 2 ints
        Window shape (``ds`` is its old name).
    ignore_border : bool, optional
        True drops the partial windows at the end of each axis; False pools them too.
        None means False, as in Theano.
    stride : tuple of 2 ints, optional
        Step between windows (``st`` is its old name); default ``ws``.
    pad : tuple of 2 ints, optional
        Zeros added on both sides (``padding`` is its old name); needs ``ignore_border``.
    mode : {"max", "sum", "average_inc_pad", "average_exc_pad"}
        Averages count the padding ("inc") or not ("exc").

    Returns
    -------
    TensorVariable
        ``input`` with its last two lengths pooled.
    """
    return _pool(input, 2, ws, ignore_border, stride, pad, mode, ds, st, padding)


def pool_3d(
    input: Any,
    ws: Any = None,
    ignore_border: bool | None = True,
    stride: Any = None,
    pad: Any = (0, 0, 0),
    mode: str = "max",
    ds: Any = None,
    st: Any = None,
    padding: Any = None,
) -> Variable:
    """Pool the last three axes of ``input``; the parameters are those of :func:`pool_2d`
    with three entries each."""
    return _pool(input, 3, ws, ignore_border, stride, pad, mode, ds, st, padding)


def _pool(input, nd, ws, ignore_border, stride, pad, mode, ds, st, padding):
    ws = ds if ws is None else ws
    if ws is None:
        raise TypeError(f"pool_{nd}d needs the window shape ws")
    stride = st if stride is None else stride
    pad = padding if padding is not None else pad
    op = Pool(ws, bool(ignore_border), stride, pad, mode, ndim=nd)
    return op(input)


def max_pool_2d_same_size(input: Any, patch_size: Any) -> Variable:
    """``input`` where an element is the maximum of its ``patch_size`` patch, zeros elsewhere."""
    op = Pool(patch_size, True, None, 0, "max", ndim=2)
    pooled = op(input)
    return MaxPoolGrad(**op._params())(input, pooled, pooled)


__all__ = [
    "AveragePoolGrad",
    "DownsampleFactorMaxGradGrad",
    "MaxPoolGrad",
    "Pool",
    "max_pool_2d_same_size",
    "pool_2d",
    "pool_3d",
]
