"""op_db entries: arignote.tensor.fft (rfft, irfft: real FFTs, PyTensor's interface)."""

from __future__ import annotations

import numpy as np

from arignote.tensor import fft
from tests.op_db.core import OpInfo, Sample, register


def _stacked(spectrum):
    return np.stack([spectrum.real, spectrum.imag], axis=-1)


def _rfft_ref(x, norm=None):
    numpy_norm = "backward" if norm == "no_norm" else norm  # "backward": no scaling forward
    return _stacked(np.fft.rfftn(x, axes=tuple(range(1, x.ndim)), norm=numpy_norm))


def _irfft_ref(x, norm=None, is_odd=False):
    n = (x.shape[-2] - 1) * 2 + int(is_odd)
    s = (*x.shape[1:-2], n)
    numpy_norm = "forward" if norm == "no_norm" else norm  # "forward": no 1/N on the inverse
    axes = tuple(range(1, x.ndim - 1))
    return np.fft.irfftn(x[..., 0] + 1j * x[..., 1], s=s, axes=axes, norm=numpy_norm)


def _rfft_samples(rng):
    return [
        Sample((rng.normal(size=(3, 6)),), name="even"),
        Sample((rng.normal(size=(2, 5)),), {"norm": "ortho"}, name="odd-ortho"),
        Sample((rng.normal(size=(2, 3, 4)),), {"norm": "no_norm"}, name="2d"),
    ]


def _irfft_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4, 2)),), name="even"),
        Sample((rng.normal(size=(2, 3, 2)),), {"is_odd": True, "norm": "ortho"}, name="odd"),
        Sample((rng.normal(size=(2, 3, 3, 2)),), {"norm": "no_norm"}, name="2d"),
    ]


register(
    OpInfo("rfft", fft.rfft, _rfft_ref, _rfft_samples, op_class=fft.RFFTOp),
    OpInfo("irfft", fft.irfft, _irfft_ref, _irfft_samples, op_class=fft.IRFFTOp),
)
