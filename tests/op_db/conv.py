"""op_db entries: convolutions (``arignote.tensor.conv``), checked against
``scipy.signal.convolve`` / ``correlate`` applied per image and channel pair.

The references pad with ``np.pad``, dilate kernels by inserting zeros, and stride by slicing
the dense SciPy result, so that they share no code with the im2col kernels under test.
"""

from __future__ import annotations

import numpy as np
import scipy.signal as ss

import arignote.tensor.conv as conv
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _pads(border_mode, kshape, dilation):
    if border_mode == "valid":
        return [(0, 0)] * len(kshape)
    if border_mode == "full":
        return [(d * (k - 1),) * 2 for k, d in zip(kshape, dilation)]
    if border_mode == "half":
        return [(d * (k // 2),) * 2 for k, d in zip(kshape, dilation)]
    if np.ndim(border_mode) == 0:
        return [(border_mode, border_mode)] * len(kshape)
    return [(p, p) for p in border_mode]


def _dilate(a, dilation):
    """Zeros inserted between the trailing ``len(dilation)`` axes' entries."""
    k = len(dilation)
    lead = a.shape[: a.ndim - k]
    shape = [d * (n - 1) + 1 for n, d in zip(a.shape[-k:], dilation)]
    out = np.zeros((*lead, *shape), dtype=a.dtype)
    out[(Ellipsis, *[slice(None, None, d) for d in dilation])] = a
    return out


def _reference(x, w, border_mode, subsample, flip, dilation, groups):
    pads = _pads(border_mode, w.shape[2:], dilation)
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    wd = _dilate(w, dilation)
    fn = ss.convolve if flip else ss.correlate
    cg, fg = x.shape[1] // groups, w.shape[0] // groups
    out = [
        [
            sum(fn(xp[n, (f // fg) * cg + c], wd[f, c], mode="valid") for c in range(cg))
            for f in range(w.shape[0])
        ]
        for n in range(x.shape[0])
    ]
    strided = (slice(None), slice(None), *[slice(None, None, s) for s in subsample])
    return np.asarray(out)[strided]


def _conv_entry(name, k, samples):
    def build(x, w, **kw):
        fn = conv.conv2d if k == 2 else conv.conv3d
        return fn(x, w, **kw)

    def ref(
        x,
        w,
        border_mode="valid",
        subsample=None,
        filter_flip=True,
        filter_dilation=None,
        num_groups=1,
    ):
        subsample = subsample or (1,) * k
        dilation = filter_dilation or (1,) * k
        return _reference(x, w, border_mode, subsample, filter_flip, dilation, num_groups)

    return OpInfo(
        name,
        build,
        ref,
        samples,
        dtypes=FLOAT_DTYPES,
        op_class=conv.AbstractConv,
        second_order=k == 2,  # grad(grad) goes through the two adjoint ops
    )


def _conv2d_samples(rng):
    def case(xs, ws, name, **kw):
        return Sample((rng.normal(size=xs), rng.normal(size=ws)), kw, name=name)

    return [
        case((2, 3, 6, 5), (4, 3, 3, 2), "valid"),
        case((1, 2, 5, 6), (3, 2, 2, 3), "full", border_mode="full", filter_flip=False),
        case((2, 2, 5, 4), (2, 2, 3, 3), "half-stride", border_mode="half", subsample=(2, 1)),
        case(
            (1, 2, 7, 6),
            (3, 2, 2, 2),
            "pad-dilation-corr",
            border_mode=(1, 2),
            filter_dilation=(2, 1),
            filter_flip=False,
        ),
        case((2, 4, 4, 5), (6, 2, 2, 3), "groups", num_groups=2, subsample=(1, 2)),
    ]


def _conv3d_samples(rng):
    x, w = rng.normal(size=(1, 2, 4, 5, 3)), rng.normal(size=(3, 2, 2, 3, 2))
    return [
        Sample((x, w), name="valid"),
        Sample((x, w), {"border_mode": "half", "subsample": (2, 1, 1)}, name="half-stride"),
    ]


# -- unshared kernels: one per output position ---------------------------------------------------


def _unshared_reference(x, w, border_mode="valid", subsample=(1, 1), filter_flip=True):
    """A loop over output positions, each with its own kernel, through ``ss.correlate``."""
    pads = _pads(border_mode, w.shape[-2:], (1, 1))
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    kernels = np.flip(w, (-2, -1)) if filter_flip else w
    (kr, kc), (sr, sc) = w.shape[-2:], subsample
    out = np.zeros((x.shape[0], w.shape[0], *w.shape[1:3]))
    for i, j in np.ndindex(*w.shape[1:3]):
        patch = xp[:, :, i * sr : i * sr + kr, j * sc : j * sc + kc]
        for n, f in np.ndindex(x.shape[0], w.shape[0]):
            out[n, f, i, j] = ss.correlate(patch[n], kernels[f, i, j], mode="valid").item()
    return out


def _unshared_samples(rng):
    return [
        Sample((rng.normal(size=(2, 3, 5, 4)), rng.normal(size=(2, 4, 3, 3, 2, 2))), name="valid"),
        Sample(
            (rng.normal(size=(1, 2, 5, 6)), rng.normal(size=(3, 3, 4, 2, 3, 2))),
            {"border_mode": "half", "subsample": (2, 2), "filter_flip": False},
            name="half-stride-corr",
        ),
    ]


# -- the adjoints -------------------------------------------------------------------------------


def _upsampled(gy, size, subsample):
    """``gy`` placed every ``subsample`` positions in zeros of the dense output ``size``."""
    out = np.zeros((*gy.shape[:2], *size), dtype=gy.dtype)
    out[(slice(None), slice(None), *[slice(None, None, s) for s in subsample])] = gy
    return out


def _grad_inputs_ref(w, gy, ishape, border_mode, subsample, flip, dilation, groups):
    """Each input pixel gathers the output gradient through every tap: a full convolution
    (correlation when the forward op convolves) of the upsampled gradient with the kernel."""
    pads = _pads(border_mode, w.shape[2:], dilation)
    wd = _dilate(w, dilation)
    dense = [p + a + b - e + 1 for p, (a, b), e in zip(ishape, pads, wd.shape[2:])]
    up = _upsampled(gy, dense, subsample)
    fn = ss.correlate if flip else ss.convolve
    cg, fg = w.shape[1], w.shape[0] // groups
    dx = [
        [
            sum(
                fn(up[n, f], wd[f, c % cg], mode="full")
                for f in range((c // cg) * fg, (c // cg + 1) * fg)
            )
            for c in range(cg * groups)
        ]
        for n in range(gy.shape[0])
    ]
    crop = [slice(a, a + p) for p, (a, _) in zip(ishape, pads)]
    return np.asarray(dx)[(slice(None), slice(None), *crop)]


def _grad_weights_ref(x, gy, kshape, border_mode, subsample, flip, dilation, groups):
    """Each tap gathers input times output gradient over the batch and positions."""
    pads = _pads(border_mode, kshape, dilation)
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    extent = [d * (n - 1) + 1 for n, d in zip(kshape, dilation)]
    dense = [p - e + 1 for p, e in zip(xp.shape[2:], extent)]
    up = _upsampled(gy, dense, subsample)
    cg, fg = x.shape[1] // groups, gy.shape[1] // groups
    dw = np.asarray(
        [
            [
                sum(
                    ss.correlate(xp[n, (f // fg) * cg + c], up[n, f], mode="valid")
                    for n in range(x.shape[0])
                )
                for c in range(cg)
            ]
            for f in range(gy.shape[1])
        ]
    )
    dw = dw[(slice(None), slice(None), *[slice(None, None, d) for d in dilation])]
    return np.flip(dw, tuple(range(2, dw.ndim))) if flip else dw


_GRAD_CASES = [
    # x shape, w shape, parameters
    ((2, 3, 6, 5), (4, 3, 3, 2), {}),
    (
        (1, 2, 7, 6),
        (3, 2, 2, 3),
        {"border_mode": "half", "subsample": (2, 3), "filter_flip": False},
    ),
    ((2, 4, 6, 5), (4, 2, 2, 2), {"border_mode": 1, "filter_dilation": (2, 1), "num_groups": 2}),
]
_NAMES = ("valid", "half-stride-corr", "pad-dilation-groups")


def _params(kw):
    return (
        kw.get("border_mode", "valid"),
        kw.get("subsample", (1, 1)),
        kw.get("filter_flip", True),
        kw.get("filter_dilation", (1, 1)),
        kw.get("num_groups", 1),
    )


def _out_shape(xs, ws, kw):
    mode, sub, _, dil, _ = _params(kw)
    return conv.get_conv_output_shape(xs, ws, mode, sub, dil)


def _grad_inputs_samples(rng):
    return [
        Sample(
            (rng.normal(size=ws), rng.normal(size=_out_shape(xs, ws, kw)), xs),
            kw,
            name=name,
            static=(2,),
        )
        for (xs, ws, kw), name in zip(_GRAD_CASES, _NAMES)
    ]


def _grad_weights_samples(rng):
    return [
        Sample(
            (rng.normal(size=xs), rng.normal(size=_out_shape(xs, ws, kw)), ws),
            kw,
            name=name,
            static=(2,),
        )
        for (xs, ws, kw), name in zip(_GRAD_CASES, _NAMES)
    ]


def _grad_inputs_ref_entry(w, gy, xs, **kw):
    return _grad_inputs_ref(w, gy, xs[2:], *_params(kw))


def _grad_weights_ref_entry(x, gy, ws, **kw):
    return _grad_weights_ref(x, gy, ws[2:], *_params(kw))


def _grad_inputs_build(w, gy, xs, **kw):
    return conv.conv2d_grad_wrt_inputs(gy, w, xs, **kw)


def _grad_weights_build(x, gy, ws, **kw):
    return conv.conv2d_grad_wrt_weights(x, gy, ws, **kw)


def _transpose_samples(rng):
    # the forward conv maps (2, 3, 7, 6) to (2, 4, 3, 5) with stride (2, 1): its transpose back
    xs, ws = (2, 3, 7, 6), (4, 3, 3, 2)
    return [
        Sample(
            (rng.normal(size=(2, 4, 3, 5)), rng.normal(size=ws), xs),
            {"input_dilation": (2, 1)},
            name="stride",
            static=(2,),
        )
    ]


def _transpose_ref(y, w, xs, input_dilation):
    return _grad_inputs_ref(w, y, xs[2:], "valid", input_dilation, True, (1, 1), 1)


register(
    _conv_entry("conv2d", 2, _conv2d_samples),
    OpInfo(
        "conv2d[unshared]",
        lambda x, w, **kw: conv.conv2d(x, w, unshared=True, **kw),
        _unshared_reference,
        _unshared_samples,
        dtypes=FLOAT_DTYPES,
        op_class=conv.AbstractConv,
        second_order=True,
    ),
    _conv_entry("conv3d", 3, _conv3d_samples),
    OpInfo(
        "conv2d_grad_wrt_inputs",
        _grad_inputs_build,
        _grad_inputs_ref_entry,
        _grad_inputs_samples,
        dtypes=FLOAT_DTYPES,
        op_class=conv.AbstractConv_gradInputs,
    ),
    OpInfo(
        "conv2d_grad_wrt_weights",
        _grad_weights_build,
        _grad_weights_ref_entry,
        _grad_weights_samples,
        dtypes=FLOAT_DTYPES,
        op_class=conv.AbstractConv_gradWeights,
    ),
    OpInfo(
        "conv2d_transpose",
        conv.conv2d_transpose,
        _transpose_ref,
        _transpose_samples,
        dtypes=FLOAT_DTYPES,
        op_class=conv.AbstractConv_gradInputs,
    ),
)
