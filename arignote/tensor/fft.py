"""Real fast Fourier transforms with PyTensor's ``pytensor.tensor.fft`` interface.

A complex spectrum is stored as real numbers: an array ``(m, ..., n // 2 + 1, 2)`` whose last
axis holds the real and imaginary parts. The first axis of the input lists independent
signals (batches); the transform runs over all the others, as ``np.fft.rfftn`` over
``axes=(1, ..., ndim - 1)``.

The ops compute the *unnormalized* transforms (``RFFTOp``: ``sum_n a_n e^{-2 pi i k n / N}``,
``IRFFTOp``: the same sum with ``+i``, without NumPy's ``1/N``); :func:`rfft` and
:func:`irfft` apply the normalization ``norm`` asks for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import float_dtypes, integer_dtypes
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import cast, sqrt, true_div
from arignote.tensor.reduction import prod
from arignote.tensor.shape import shape_i
from arignote.tensor.subtensor import getitem, set_subtensor
from arignote.tensor.type import tensor_type


def _lengths(s: Any, x: Variable, what: str) -> Variable:
    """The transform lengths: an int vector with one entry per transformed axis."""
    s = as_tensor_variable(s)
    if s.type.dtype not in integer_dtypes or s.type.ndim != 1:
        raise TypeError(f"{what}: the lengths s must be an integer vector, got {s.type}")
    return s


def _signal_lengths(x: Variable) -> Variable:
    """The lengths of the signals in ``x`` (all its axes but the first), a vector of scalars
    (that shape rewrites see through)."""
    return as_tensor_variable([shape_i(x, i) for i in range(1, x.type.ndim)])


def _inverse_lengths(x: Variable, odd: bool) -> Variable:
    """The lengths of the signals whose half spectra ``x`` holds (``(m, ..., n//2 + 1, 2)``)."""
    *lengths, half = [shape_i(x, i) for i in range(1, x.type.ndim - 1)]
    return as_tensor_variable([*lengths, (half - 1) * 2 + int(odd)])


def _static_lengths(s: Variable, n: int) -> list:
    """The lengths' values when ``s`` is a constant, else ``n`` unknowns."""
    if isinstance(s, Constant):
        return [int(v) for v in np.asarray(s.data)]
    return [None] * n


def _middle(length: Any) -> slice:
    """The frequencies ``1 .. ceil(N/2) - 1`` of a real signal of ``length`` N: those the
    half spectrum stands for twice (``k`` and ``N - k``); 0 and, for even N, N/2 are alone."""
    return slice(1, length // 2 + length % 2)


def _scale_middle(spectrum: Variable, s: Variable, factor: float) -> Variable:
    index = (Ellipsis, _middle(getitem(s, -1)), slice(None))
    return set_subtensor(spectrum[index], spectrum[index] * factor)


class RFFTOp(Op):
    """The unnormalized FFT of real signals ``a`` (``(m, ...)``) over all axes but the first,
    with lengths ``s``; output ``(m, ..., s[-1] // 2 + 1, 2)`` (real, imaginary)."""

    __props__ = ()

    def make_node(self, a: Any, s: Any = None) -> Apply:
        a = as_tensor_variable(a)
        if a.type.ndim < 2 or a.type.dtype not in float_dtypes:
            raise TypeError(f"rfft: a must be a float tensor of >= 2 dimensions, got {a.type}")
        s = _lengths(_signal_lengths(a) if s is None else s, a, "rfft")
        lengths = _static_lengths(s, a.type.ndim - 1)
        last = None if lengths[-1] is None else lengths[-1] // 2 + 1
        out_shape = (a.type.shape[0], *lengths[:-1], last, 2)
        return Apply(self, [a, s], [tensor_type(a.type.dtype, out_shape)()])

    def perform(self, node, inputs, output_storage):
        a, s = inputs
        spectrum = np.fft.rfftn(a, s=tuple(s), axes=tuple(range(1, a.ndim)))
        parts = np.stack([spectrum.real, spectrum.imag], axis=-1)
        output_storage[0][0] = parts.astype(node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        a, s = node.inputs
        rest = [getitem(s, i) for i in range(a.type.ndim - 2)]
        return [(input_shapes[0][0], *rest, getitem(s, -1) // 2 + 1, 2)]

    def connection_pattern(self, node):
        return [[True], [False]]

    def L_op(self, inputs, outputs, output_grads):
        # d/da_n of sum_k g_k . (cos, -sin)(2 pi k n / N) is Re(sum_k G_k e^{+i theta}): the
        # unnormalized inverse of the half spectrum G, except that the inverse counts each
        # middle frequency twice (for k and N - k), so those are halved first
        _, s = inputs
        halved = _scale_middle(output_grads[0], s, 0.5)
        return [IRFFTOp()(halved, s), disconnected()]


class IRFFTOp(Op):
    """The unnormalized inverse of :class:`RFFTOp`: real signals of lengths ``s`` from half
    spectra ``(m, ..., n // 2 + 1, 2)`` (``np.fft.irfftn`` times ``prod(s)``)."""

    __props__ = ()

    def make_node(self, a: Any, s: Any = None) -> Apply:
        a = as_tensor_variable(a)
        if a.type.ndim < 3 or a.type.dtype not in float_dtypes:
            raise TypeError(f"irfft: a must be a float tensor of >= 3 dimensions, got {a.type}")
        s = _lengths(_inverse_lengths(a, odd=False) if s is None else s, a, "irfft")
        out_shape = (a.type.shape[0], *_static_lengths(s, a.type.ndim - 2))
        return Apply(self, [a, s], [tensor_type(a.type.dtype, out_shape)()])

    def perform(self, node, inputs, output_storage):
        a, s = inputs
        spectrum = a[..., 0] + 1j * a[..., 1]
        signal = np.fft.irfftn(spectrum, s=tuple(s), axes=tuple(range(1, spectrum.ndim)))
        total = np.prod(s, dtype=np.float64)
        output_storage[0][0] = (signal * total).astype(node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        a, s = node.inputs
        return [(input_shapes[0][0], *[getitem(s, i) for i in range(a.type.ndim - 2)])]

    def connection_pattern(self, node):
        return [[True], [False]]

    def L_op(self, inputs, outputs, output_grads):
        # the transpose of the inverse: the forward transform of the output gradient, with
        # the middle frequencies (which the inverse used twice) doubled
        _, s = inputs
        spectrum = RFFTOp()(output_grads[0], s)
        return [_scale_middle(spectrum, s, 2.0), disconnected()]


_NORMS = (None, "ortho", "no_norm")


def _check_norm(norm: Any) -> None:
    if norm not in _NORMS:
        raise ValueError(f"norm must be None, 'ortho' or 'no_norm', got {norm!r}")


def _count(s: Variable, dtype: str) -> Variable:
    return cast(prod(s), dtype)


def rfft(inp: Any, norm: str | None = None) -> Variable:
    """The FFT of the real signals ``inp`` (``(m, ..., n)``: ``m`` signals of shape
    ``(..., n)``), as ``(m, ..., n // 2 + 1, 2)`` real and imaginary parts.

    ``norm``: None (NumPy's default: no scaling forward), ``"ortho"`` (divide by
    ``sqrt(N)``, N the signal size) or ``"no_norm"`` (no scaling).
    """
    _check_norm(norm)
    inp = as_tensor_variable(inp)
    if inp.type.dtype not in float_dtypes:
        inp = cast(inp, config.floatX)
    s = _signal_lengths(inp)
    spectrum = RFFTOp()(inp, s)
    if norm != "ortho":
        return spectrum
    return true_div(spectrum, sqrt(_count(s, inp.type.dtype)))


def irfft(inp: Any, norm: str | None = None, is_odd: bool = False) -> Variable:
    """The real signals whose FFTs are the half spectra ``inp`` (``(m, ..., n // 2 + 1, 2)``),
    of shape ``(m, ..., n)`` with ``n = 2 (n // 2)`` (or ``+ 1`` when ``is_odd``).

    ``norm``: None (NumPy's default: divide by N, the signal size), ``"ortho"`` (by
    ``sqrt(N)``) or ``"no_norm"`` (no scaling).
    """
    _check_norm(norm)
    if is_odd not in (True, False):
        raise ValueError(f"is_odd must be True or False, got {is_odd!r}")
    inp = as_tensor_variable(inp)
    s = _inverse_lengths(inp, is_odd)
    signal = IRFFTOp()(inp, s)
    if norm == "no_norm":
        return signal
    total = _count(s, signal.type.dtype)
    return true_div(signal, total if norm is None else sqrt(total))
