"""arignote.tensor.fft: PyTensor's real FFT interface (rfft/irfft with (real, imag) pairs)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor import fft
from arignote.testing import verify_grad


def test_the_reference_example_round_trips(rng):
    # PyTensor's fft page: the transform of a batch of signals and its inverse
    x = pt.dmatrix("x")
    spectrum = fft.rfft(x)
    signal = fft.irfft(spectrum)
    value = rng.normal(size=(3, 8))
    got_spectrum, got_signal = arignote.function([x], [spectrum, signal])(value)
    expected = np.fft.rfft(value)
    assert spectrum.type.shape == (None, None, 2) and got_spectrum.shape == (3, 5, 2)
    np.testing.assert_allclose(got_spectrum[..., 0] + 1j * got_spectrum[..., 1], expected)
    np.testing.assert_allclose(got_signal, value)


@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
def test_odd_lengths_and_norms(norm, rng):
    x = pt.dmatrix("x")
    value = rng.normal(size=(2, 7))
    spectrum = fft.rfft(x, norm=norm)
    back = fft.irfft(spectrum, norm=norm, is_odd=True)
    got_spectrum, got_back = arignote.function([x], [spectrum, back])(value)
    numpy_norm = {None: "backward", "ortho": "ortho", "no_norm": "backward"}[norm]
    expected = np.fft.rfft(value, norm=numpy_norm)
    np.testing.assert_allclose(got_spectrum[..., 0] + 1j * got_spectrum[..., 1], expected)
    np.testing.assert_allclose(got_back, value * (7 if norm == "no_norm" else 1))


def test_gradients(rng):
    signals, spectra = rng.normal(size=(2, 6)), rng.normal(size=(2, 3, 4, 2))
    verify_grad(lambda a: fft.rfft(a, norm="ortho") ** 2, [signals], rng=rng)
    verify_grad(lambda a: fft.irfft(a, is_odd=True), [spectra], rng=rng)


def test_bad_arguments():
    with pytest.raises(ValueError, match="norm"):
        fft.rfft(pt.dmatrix(), norm="forward")
    with pytest.raises(ValueError, match="is_odd"):
        fft.irfft(pt.dtensor3(), is_odd=2)
    with pytest.raises(TypeError, match="dimensions"):
        fft.rfft(pt.dvector())
