"""Convolution over ``k`` spatial dimensions as three ops that are each other's derivatives.

``AbstractConv(img, kern)`` is the forward convolution (a correlation when ``filter_flip`` is
False); ``AbstractConv_gradWeights(img, topgrad, *kernel_size)`` and
``AbstractConv_gradInputs(kern, topgrad, *image_size)`` are its adjoints with respect to the
kernel and the image. The three are bilinear and share one set of parameters, so each one's
gradient and R_op are built from the other two, to any order (as in Theano).

Layout: images ``(batch, channels, *spatial)``; kernels ``(out_channels,
in_channels / num_groups, *kernel)``. Output length along a spatial axis:
``(size + pad_before + pad_after - dilation (k - 1) - 1) // subsample + 1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import continuous_dtypes, upcast
from arignote.tensor.alloc import as_size, static_int
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.conv import kernels
from arignote.tensor.shape import shape_i, specify_shape
from arignote.tensor.type import tensor_type

BORDER_MODES = ("valid", "full", "half")


def _int_tuple(value: Any, k: int, name: str) -> tuple[int, ...]:
    values = (value,) * k if np.ndim(value) == 0 else tuple(value)
    if len(values) != k or any(int(v) < 1 for v in values):
        raise ValueError(f"{name} must be {k} positive integers, got {value!r}")
    return tuple(int(v) for v in values)


def normalize_border_mode(border_mode: Any, k: int) -> Any:
    """A border mode name, or explicit ``((before, after), ...)`` zero padding per spatial axis
    (from an int, one int per axis, or one pair per axis)."""
    if isinstance(border_mode, str):
        if border_mode not in BORDER_MODES:
            raise ValueError(
                f"border_mode must be one of {BORDER_MODES} or padding, got {border_mode!r}"
            )
        return border_mode
    entries = (border_mode,) * k if np.ndim(border_mode) == 0 else tuple(border_mode)
    pairs = tuple((e, e) if np.ndim(e) == 0 else tuple(e) for e in entries)
    if len(pairs) != k or any(len(p) != 2 or min(int(v) for v in p) < 0 for p in pairs):
        raise ValueError(f"border_mode {border_mode!r} is not {k} non-negative paddings")
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    return "valid" if pairs == ((0, 0),) * k else pairs


def _pad_total(mode: Any, axis: int, k: Any, dilation: int) -> Any:
    """Total padding along one axis (``k``, the kernel length, may be symbolic)."""
    if mode == "valid":
        return 0
    if mode == "full":
        return 2 * dilation * (k - 1)
    if mode == "half":
        return 2 * dilation * (k // 2)
    return sum(mode[axis])


def conv_output_length(size, k, mode, axis, subsample, dilation):
    """One spatial output length (ints or symbolic scalars; None when unknown)."""
    if size is None or k is None:
        return None
    span = size + _pad_total(mode, axis, k, dilation) - dilation * (k - 1) - 1
    return span // subsample + 1


def get_conv_output_shape(
    image_shape, kernel_shape, border_mode, subsample, filter_dilation=None
) -> tuple:
    """The output shape of a convolution (entries None where unknown), like Theano's helper."""
    k = len(image_shape) - 2
    dilation = filter_dilation or (1,) * k
    mode = normalize_border_mode(border_mode, k)
    spatial = tuple(
        conv_output_length(
            image_shape[2 + i], kernel_shape[2 + i], mode, i, subsample[i], dilation[i]
        )
        for i in range(k)
    )
    return (image_shape[0], kernel_shape[0], *spatial)


def _static(value: Any) -> int | None:
    return None if value is None else int(value)


def _size_inputs(x: Variable, k: int) -> list[Variable]:
    """The last ``k`` (spatial) lengths of ``x`` as 0-d integer variables (constants when
    static); kernels, shared or not, end with their ``k`` tap lengths."""
    return [shape_i(x, x.type.ndim - k + i) for i in range(k)]


class BaseAbstractConv(Op):
    """Parameters shared by the convolution op and its two gradients."""

    __props__ = (
        "convdim",
        "border_mode",
        "subsample",
        "filter_flip",
        "filter_dilation",
        "num_groups",
        "unshared",
    )

    def __init__(
        self,
        convdim: int = 2,
        border_mode: Any = "valid",
        subsample: Any = 1,
        filter_flip: bool = True,
        filter_dilation: Any = 1,
        num_groups: int = 1,
        unshared: bool = False,
    ) -> None:
        if convdim < 1:
            raise ValueError(f"{type(self).__name__}: convdim must be >= 1, got {convdim}")
        if int(num_groups) < 1:
            raise ValueError(f"{type(self).__name__}: num_groups must be >= 1, got {num_groups}")
        self.convdim = int(convdim)
        self.border_mode = normalize_border_mode(border_mode, convdim)
        self.subsample = _int_tuple(subsample, convdim, "subsample")
        self.filter_flip = bool(filter_flip)
        self.filter_dilation = _int_tuple(filter_dilation, convdim, "filter_dilation")
        self.num_groups = int(num_groups)
        self.unshared = bool(unshared)

    # Kernels are (F, C/groups, *taps), or (F, *out, C/groups, *taps) when unshared.
    def _kernel_ndim(self) -> int:
        return self.convdim * (2 if self.unshared else 1) + 2

    def _taps(self, kshape) -> tuple:
        return tuple(kshape[-self.convdim :])

    def _kernel_channels(self, kshape) -> Any:
        return kshape[1 + self.convdim] if self.unshared else kshape[1]

    def _kernel(self, value: Any) -> Variable:
        return self._tensor(value, "the kernel", self._kernel_ndim())

    def _params(self) -> dict:
        return {name: getattr(self, name) for name in self.__props__}

    def _tensor(self, value: Any, what: str, ndim: int | None = None) -> Variable:
        value = as_tensor_variable(value)
        ndim = self.convdim + 2 if ndim is None else ndim
        if value.type.ndim != ndim:
            raise TypeError(
                f"{type(self).__name__}: {what} must have {ndim} dimensions, got {value.type}"
            )
        if value.type.dtype not in continuous_dtypes:
            raise TypeError(
                f"{type(self).__name__}: {what} must be floating point, got {value.type}"
            )
        return value

    def _sizes(self, sizes: Any) -> list[Variable]:
        if len(sizes) != self.convdim:
            raise ValueError(
                f"{type(self).__name__} expects {self.convdim} spatial lengths, got {len(sizes)}"
            )
        return [as_size(s, type(self).__name__) for s in sizes]

    def _oriented(self, kern: np.ndarray) -> np.ndarray:
        """The kernel that the correlation kernels see: spatially flipped for a convolution."""
        if not self.filter_flip:
            return kern
        return kern[(Ellipsis, *[slice(None, None, -1)] * self.convdim)]

    def _pads(self, kshape) -> tuple:
        return kernels.border_pads(self.border_mode, kshape, self.filter_dilation)

    def _check_groups(self, channels: Any, kern_channels: Any, filters: Any) -> None:
        if channels is None or kern_channels is None:
            return
        if channels != kern_channels * self.num_groups or (filters or 0) % self.num_groups:
            raise ValueError(
                f"{type(self).__name__}: {channels} image channels, kernels over {kern_channels} "
                f"channels and {filters} filters do not fit num_groups={self.num_groups}"
            )

    def _output_lengths(self, image, kernel) -> list:
        mode, s, d = self.border_mode, self.subsample, self.filter_dilation
        return [
            conv_output_length(image[i], kernel[i], mode, i, s[i], d[i])
            for i in range(self.convdim)
        ]


def _sum_defined(*terms: Any) -> Any:
    present = [t for t in terms if t is not None]
    return None if not present else sum(present[1:], present[0])


class AbstractConv(BaseAbstractConv):
    """The convolution of a batch of images with a bank of kernels (a correlation when
    ``filter_flip`` is False)."""

    def make_node(self, img: Any, kern: Any) -> Apply:
        img, kern = self._tensor(img, "the image"), self._kernel(kern)
        ishape, kshape = img.type.shape, kern.type.shape
        self._check_groups(ishape[1], self._kernel_channels(kshape), kshape[0])
        spatial = self._output_lengths(ishape[2:], self._taps(kshape))
        dtype = upcast(img.type.dtype, kern.type.dtype)
        out = tensor_type(dtype, (ishape[0], kshape[0], *[_static(v) for v in spatial]))()
        return Apply(self, [img, kern], [out])

    def perform(self, node, inputs, output_storage):
        img, kern = inputs
        self._check_groups(img.shape[1], self._kernel_channels(kern.shape), kern.shape[0])
        args = (self._pads(self._taps(kern.shape)), self.subsample, self.filter_dilation)
        corr = kernels.corr_unshared if self.unshared else kernels.corr
        out = corr(img, self._oriented(kern), *args, self.num_groups)
        positions = kern.shape[1 : 1 + self.convdim]
        if self.unshared and positions != out.shape[2:]:
            raise ValueError(
                f"{type(self).__name__}: unshared kernels for positions {positions} "
                f"do not match the output positions {out.shape[2:]}"
            )
        output_storage[0][0] = out.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        ishape, kshape = input_shapes
        return [(ishape[0], kshape[0], *self._output_lengths(ishape[2:], self._taps(kshape)))]

    def grad(self, inputs, output_grads):
        img, kern = inputs
        (gz,) = output_grads
        # y = A(img, kern) is bilinear: its adjoints in each argument are the two gradient ops
        d_img = AbstractConv_gradInputs(**self._params())(
            kern, gz, *_size_inputs(img, self.convdim)
        )
        d_kern = AbstractConv_gradWeights(**self._params())(
            img, gz, *_size_inputs(kern, self.convdim)
        )
        return [d_img, d_kern]

    def R_op(self, inputs, eval_points):
        img, kern = inputs
        e_img, e_kern = eval_points
        # bilinear: dA = A(dimg, kern) + A(img, dkern)
        return [
            _sum_defined(
                None if e_img is None else self(e_img, kern),
                None if e_kern is None else self(img, e_kern),
            )
        ]


class _ConvAdjoint(BaseAbstractConv):
    """The two adjoints of the convolution: bilinear in their two tensor inputs, which are
    followed by the spatial sizes of the result (integers, not differentiable)."""

    def connection_pattern(self, node):
        return [[True], [True]] + [[False]] * self.convdim

    def R_op(self, inputs, eval_points):
        first, second, *sizes = inputs
        e_first, e_second = eval_points[:2]
        # bilinear: the directional derivative is the sum of the two partial applications
        return [
            _sum_defined(
                None if e_first is None else self(e_first, second, *sizes),
                None if e_second is None else self(first, e_second, *sizes),
            )
        ]


class AbstractConv_gradWeights(_ConvAdjoint):
    """The gradient of :class:`AbstractConv` with respect to its kernel:
    ``gradWeights(img, topgrad, *kernel_size)``, the kernel whose inner product with any ``w``
    equals that of ``topgrad`` with ``AbstractConv(img, w)``."""

    def make_node(self, img: Any, topgrad: Any, *kernel_size: Any) -> Apply:
        img, topgrad = self._tensor(img, "the image"), self._tensor(topgrad, "the output gradient")
        sizes = self._sizes(kernel_size)
        channels = img.type.shape[1]
        per_group = None if channels is None else channels // self.num_groups
        positions = topgrad.type.shape[2:] if self.unshared else ()
        shape = (topgrad.type.shape[1], *positions, per_group, *[static_int(s) for s in sizes])
        out = tensor_type(upcast(img.type.dtype, topgrad.type.dtype), shape)()
        return Apply(self, [img, topgrad, *sizes], [out])

    def perform(self, node, inputs, output_storage):
        img, topgrad, *sizes = inputs
        kshape = tuple(int(s) for s in sizes)
        args = (self._pads(kshape), self.subsample, self.filter_dilation, self.num_groups)
        grad = kernels.corr_unshared_grad_weights if self.unshared else kernels.corr_grad_weights
        dw = grad(img, topgrad, kshape, *args)
        output_storage[0][0] = self._oriented(dw).astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        ishape, gshape = input_shapes[:2]
        positions = gshape[2:] if self.unshared else ()
        return [(gshape[1], *positions, ishape[1] // self.num_groups, *node.inputs[2:])]

    def grad(self, inputs, output_grads):
        img, topgrad, *sizes = inputs
        (gw,) = output_grads
        # bilinear in (img, topgrad): <gw, dW(img, g)> = <g, A(img, gw)> = <dI(gw, g), img>
        d_img = AbstractConv_gradInputs(**self._params())(
            gw, topgrad, *_size_inputs(img, self.convdim)
        )
        d_top = AbstractConv(**self._params())(img, gw)
        return [d_img, d_top] + [disconnected() for _ in sizes]


class AbstractConv_gradInputs(_ConvAdjoint):
    """The gradient of :class:`AbstractConv` with respect to its image:
    ``gradInputs(kern, topgrad, *image_size)`` (also the transposed convolution)."""

    def make_node(self, kern: Any, topgrad: Any, *image_size: Any) -> Apply:
        kern, topgrad = self._kernel(kern), self._tensor(topgrad, "the output gradient")
        sizes = self._sizes(image_size)
        kc = self._kernel_channels(kern.type.shape)
        channels = None if kc is None else kc * self.num_groups
        shape = (topgrad.type.shape[0], channels, *[static_int(s) for s in sizes])
        out = tensor_type(upcast(kern.type.dtype, topgrad.type.dtype), shape)()
        return Apply(self, [kern, topgrad, *sizes], [out])

    def perform(self, node, inputs, output_storage):
        kern, topgrad, *sizes = inputs
        ishape = tuple(int(s) for s in sizes)
        args = (self._pads(self._taps(kern.shape)), self.subsample, self.filter_dilation)
        grad = kernels.corr_unshared_grad_inputs if self.unshared else kernels.corr_grad_inputs
        dx = grad(self._oriented(kern), topgrad, ishape, *args, self.num_groups)
        output_storage[0][0] = dx.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        kshape, gshape = input_shapes[:2]
        return [(gshape[0], self._kernel_channels(kshape) * self.num_groups, *node.inputs[2:])]

    def grad(self, inputs, output_grads):
        kern, topgrad, *sizes = inputs
        (gx,) = output_grads
        # bilinear in (kern, topgrad): <gx, dI(w, g)> = <g, A(gx, w)> = <dW(gx, g), w>
        d_kern = AbstractConv_gradWeights(**self._params())(
            gx, topgrad, *_size_inputs(kern, self.convdim)
        )
        d_top = AbstractConv(**self._params())(gx, kern)
        return [d_kern, d_top] + [disconnected() for _ in sizes]


def _hinted(x: Any, shape: Any) -> Variable:
    """``x`` with the static shape hint ``shape`` (Theano's ``input_shape``/``filter_shape``)
    declared, so that output shapes become static; checked at run time."""
    x = as_tensor_variable(x)
    if shape is None:
        return x
    return specify_shape(x, [None if s is None else int(s) for s in shape])


def conv2d(
    input: Any,
    filters: Any,
    input_shape: Any = None,
    filter_shape: Any = None,
    border_mode: Any = "valid",
    subsample: Any = (1, 1),
    filter_flip: bool = True,
    image_shape: Any = None,
    filter_dilation: Any = (1, 1),
    num_groups: int = 1,
    unshared: bool = False,
) -> Variable:
    """2-D convolution of a batch of images with a bank of filters (Theano's ``nnet.conv2d``).

    Parameters
    ----------
    input : tensor4
        Images ``(batch, channels, rows, columns)``.
    filters : tensor4
        Filters ``(out_channels, channels / num_groups, rows, columns)``.
    input_shape, filter_shape : tuple of int or None, optional
        Shape hints (``image_shape`` is the old name of ``input_shape``); they make the
        output shape static and are checked when the function runs.
    border_mode : {"valid", "full", "half"}, int or tuple, optional
        Zero padding: none, ``k - 1`` or ``k // 2`` per side, or explicit lengths.
    subsample : tuple of int, optional
        Strides.
    filter_flip : bool, optional
        True for a convolution (filters flipped), False for a cross-correlation.
    filter_dilation : tuple of int, optional
        Spacing between filter taps.
    num_groups : int, optional
        Channels split into groups convolved separately.
    unshared : bool, optional
        True for a separate filter per output position: ``filters`` is then
        ``(out_channels, out_rows, out_columns, channels / num_groups, rows, columns)``.

    Returns
    -------
    TensorVariable
        ``(batch, out_channels, out_rows, out_columns)``.
    """
    input = _hinted(input, input_shape if input_shape is not None else image_shape)
    filters = _hinted(filters, filter_shape)
    op = AbstractConv(2, border_mode, subsample, filter_flip, filter_dilation, num_groups, unshared)
    return op(input, filters)


def conv3d(
    input: Any,
    filters: Any,
    input_shape: Any = None,
    filter_shape: Any = None,
    border_mode: Any = "valid",
    subsample: Any = (1, 1, 1),
    filter_flip: bool = True,
    filter_dilation: Any = (1, 1, 1),
    num_groups: int = 1,
) -> Variable:
    """3-D convolution of ``(batch, channels, depth, rows, columns)`` volumes with filters
    ``(out_channels, channels / num_groups, depth, rows, columns)``; the parameters are those
    of :func:`conv2d` with three entries per tuple."""
    input = _hinted(input, input_shape)
    filters = _hinted(filters, filter_shape)
    op = AbstractConv(3, border_mode, subsample, filter_flip, filter_dilation, num_groups)
    return op(input, filters)


def _spatial_sizes(shape: Any, k: int) -> list:
    """The last ``k`` entries of a full shape (ints, 0-d variables or a vector)."""
    if isinstance(shape, Variable):
        return [shape[i] for i in range(-k, 0)]
    return list(shape)[-k:]


def conv2d_grad_wrt_inputs(
    output_grad: Any,
    filters: Any,
    input_shape: Any,
    filter_shape: Any = None,
    border_mode: Any = "valid",
    subsample: Any = (1, 1),
    filter_flip: bool = True,
    filter_dilation: Any = (1, 1),
    num_groups: int = 1,
    unshared: bool = False,
) -> Variable:
    """The gradient of :func:`conv2d` with respect to its input, for an input of shape
    ``input_shape`` (whose last two entries are needed)."""
    op = AbstractConv_gradInputs(
        2, border_mode, subsample, filter_flip, filter_dilation, num_groups, unshared
    )
    return op(_hinted(filters, filter_shape), output_grad, *_spatial_sizes(input_shape, 2))


def conv2d_grad_wrt_weights(
    input: Any,
    output_grad: Any,
    filter_shape: Any,
    input_shape: Any = None,
    border_mode: Any = "valid",
    subsample: Any = (1, 1),
    filter_flip: bool = True,
    filter_dilation: Any = (1, 1),
    num_groups: int = 1,
    unshared: bool = False,
) -> Variable:
    """The gradient of :func:`conv2d` with respect to its filters, of shape ``filter_shape``
    (whose last two entries are needed)."""
    op = AbstractConv_gradWeights(
        2, border_mode, subsample, filter_flip, filter_dilation, num_groups, unshared
    )
    return op(_hinted(input, input_shape), output_grad, *_spatial_sizes(filter_shape, 2))


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    filter_shape: Any = None,
    border_mode: Any = "valid",
    input_dilation: Any = (1, 1),
    filter_flip: bool = True,
    filter_dilation: Any = (1, 1),
    num_groups: int = 1,
) -> Variable:
    """The transposed convolution ("deconvolution"): the adjoint of :func:`conv2d` applied to
    ``input``, giving an output of shape ``output_shape``. ``filters`` are those of the
    forward convolution, ``(input.shape[1], out_channels / num_groups, rows, columns)``, and
    ``input_dilation`` is the forward stride."""
    return conv2d_grad_wrt_inputs(
        input,
        filters,
        output_shape,
        filter_shape,
        border_mode,
        input_dilation,
        filter_flip,
        filter_dilation,
        num_groups,
    )


__all__ = [
    "AbstractConv",
    "AbstractConv_gradInputs",
    "AbstractConv_gradWeights",
    "conv2d",
    "conv2d_grad_wrt_inputs",
    "conv2d_grad_wrt_weights",
    "conv2d_transpose",
    "conv3d",
    "get_conv_output_shape",
]
