"""JAX versions of the convolution ops (``arignote/tensor/conv/abstract_conv.py``).

The forward convolution is one ``lax.conv_general_dilated`` (images ``(N, C, *spatial)``,
kernels ``(F, C / groups, *taps)``: the layouts XLA calls "NCHW" and "OIHW"), with the kernel
flipped first when ``filter_flip`` asks for a true convolution. Unshared kernels (one kernel
per output position) are a product of the kernels with the image's patches
(strided slices of the padded image).

The two adjoint ops are the transposes of the forward convolution as a linear map of its image
or of its kernel (``jax.linear_transpose``): XLA then emits the transposed (dilated)
convolutions itself, and the adjoints agree with the forward op for every border mode, stride,
dilation and group count without a second derivation of the index arithmetic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes, static_ints
from arignote.tensor.conv import kernels
from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    BaseAbstractConv,
)
from jax import lax

# Products at full precision: on GPUs XLA would otherwise multiply float32 in TF32.
_PRECISION = lax.Precision.HIGHEST


def _dimension_numbers(convdim: int) -> lax.ConvDimensionNumbers:
    """Batch, feature, then spatial axes in order, for the image, the kernel and the output."""
    layout = tuple(range(convdim + 2))
    return lax.ConvDimensionNumbers(layout, layout, layout)


def _oriented(op: BaseAbstractConv, kern: Any) -> Any:
    """The kernel the correlation sees: its taps reversed for a convolution."""
    if not op.filter_flip:
        return kern
    return jnp.flip(kern, axis=tuple(range(kern.ndim - op.convdim, kern.ndim)))


def _pads(op: BaseAbstractConv, taps: tuple) -> list[tuple[int, int]]:
    return [tuple(p) for p in kernels.border_pads(op.border_mode, taps, op.filter_dilation)]


def _shared_corr(op: BaseAbstractConv, img: Any, kern: Any) -> Any:
    taps = tuple(kern.shape[2:])
    return lax.conv_general_dilated(
        img,
        kern,
        window_strides=op.subsample,
        padding=_pads(op, taps),
        rhs_dilation=op.filter_dilation,
        dimension_numbers=_dimension_numbers(op.convdim),
        feature_group_count=op.num_groups,
        precision=_PRECISION,
    )


def _patches(op: BaseAbstractConv, img: Any, taps: tuple) -> Any:
    """The image's patches ``(N, C * prod(taps), *out)``, channel-major, read by strided
    slices of the padded image: ``lax.conv_general_dilated_patches`` convolves with one-hot
    kernels, whose zeros turn an infinite pixel into NaN in every other entry of its patches
    (found by the hostile-input sweep). An empty output keeps XLA's version (and its error)."""
    padded = jnp.pad(img, [(0, 0), (0, 0), *_pads(op, taps)])
    strides, dilation = tuple(op.subsample), tuple(op.filter_dilation)
    spans = [d * (t - 1) + 1 for t, d in zip(taps, dilation)]
    out = [(n - span) // s + 1 for n, span, s in zip(padded.shape[2:], spans, strides)]
    if min(out, default=1) <= 0:
        return lax.conv_general_dilated_patches(
            img,
            filter_shape=taps,
            window_strides=op.subsample,
            padding=_pads(op, taps),
            rhs_dilation=op.filter_dilation,
            dimension_numbers=_dimension_numbers(op.convdim),
            precision=_PRECISION,
        )
    rows = []
    for tap in itertools.product(*(range(t) for t in taps)):
        start = [t * d for t, d in zip(tap, dilation)]
        stop = [b + (o - 1) * s + 1 for b, o, s in zip(start, out, strides)]
        rows.append(lax.slice(padded, (0, 0, *start), (*padded.shape[:2], *stop), (1, 1, *strides)))
    stacked = jnp.stack(rows, axis=2)  # (N, C, taps, *out): channel-major
    return stacked.reshape(img.shape[0], img.shape[1] * len(rows), *out)


def _unshared_corr(op: BaseAbstractConv, img: Any, kern: Any) -> Any:
    """``out[n, f, o] = sum_q patches[n, q, o] kern[f, o, q]`` within each group, where ``q``
    runs over a group's channels and the kernel taps (patches order them channel-major, as
    the kernel's trailing ``(C / groups, *taps)`` axes flatten)."""
    k, groups = op.convdim, op.num_groups
    taps = tuple(kern.shape[-k:])
    patches = _patches(op, img, taps)
    n, out = img.shape[0], patches.shape[2:]
    filters = kern.shape[0]
    if tuple(kern.shape[1 : 1 + k]) != tuple(out):
        raise ValueError(
            f"AbstractConv: unshared kernels for positions {tuple(kern.shape[1 : 1 + k])} do not "
            f"match the output positions {tuple(out)}"
        )
    # lengths written out (no -1): JAX cannot infer one from an empty array
    per_group = math.prod(kern.shape[1 + k :])
    grouped = patches.reshape(n, groups, per_group, math.prod(out))
    weights = kern.reshape(groups, filters // groups, math.prod(out), per_group)
    result = jnp.einsum("ngqp,gfpq->ngfp", grouped, weights, precision=_PRECISION)
    return result.reshape(n, filters, *out)


def forward(op: BaseAbstractConv, img: Any, kern: Any) -> Any:
    """The forward convolution of ``op``'s parameters (kernel orientation included)."""
    corr = _unshared_corr if op.unshared else _shared_corr
    return corr(op, img, _oriented(op, kern))


def _transpose(fn: Callable, shape: tuple, dtype: np.dtype, cotangent: Any) -> Any:
    """The adjoint of the linear map ``fn`` (from arrays of ``shape``) applied to ``cotangent``."""
    (result,) = jax.linear_transpose(fn, jax.ShapeDtypeStruct(shape, dtype))(cotangent)
    return result


@jax_funcify.register(AbstractConv)
def jax_funcify_AbstractConv(op: AbstractConv, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def conv(img, kern):
        return forward(op, jnp.asarray(img, dtype), jnp.asarray(kern, dtype))

    return conv


@jax_funcify.register(AbstractConv_gradWeights)
def jax_funcify_AbstractConv_gradWeights(op, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def grad_weights(img, topgrad, *sizes):
        taps = tuple(static_ints(s, node, "kernel size") for s in sizes)
        img, topgrad = jnp.asarray(img, dtype), jnp.asarray(topgrad, dtype)
        positions = tuple(topgrad.shape[2:]) if op.unshared else ()
        shape = (topgrad.shape[1], *positions, img.shape[1] // op.num_groups, *taps)
        return _transpose(lambda w: forward(op, img, w), shape, dtype, topgrad)

    return grad_weights


@jax_funcify.register(AbstractConv_gradInputs)
def jax_funcify_AbstractConv_gradInputs(op, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)
    channel_axis = 1 + op.convdim if op.unshared else 1

    def grad_inputs(kern, topgrad, *sizes):
        spatial = tuple(static_ints(s, node, "image size") for s in sizes)
        kern, topgrad = jnp.asarray(kern, dtype), jnp.asarray(topgrad, dtype)
        channels = kern.shape[channel_axis] * op.num_groups
        shape = (topgrad.shape[0], channels, *spatial)
        return _transpose(partial(_image_forward, op, kern), shape, dtype, topgrad)

    return grad_inputs


def _image_forward(op: BaseAbstractConv, kern: Any, img: Any) -> Any:
    return forward(op, img, kern)
