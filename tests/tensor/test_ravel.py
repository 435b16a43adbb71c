"""unravel_index / ravel_multi_index: errors, modes and derivatives."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt


def test_ravel_multi_index_raise_mode_fails_at_run_time():
    r, c = pt.lvectors("r", "c")
    f = arignote.function([r, c], pt.ravel_multi_index((r, c), (3, 5)))
    np.testing.assert_array_equal(f([0, 2], [4, 1]), [4, 11])
    with pytest.raises(ValueError, match="invalid entry"):
        f([3, 0], [0, 0])


def test_build_errors_are_type_errors():
    with pytest.raises(TypeError, match="integers"):
        pt.unravel_index(pt.dvector(), (2, 3))
    with pytest.raises(TypeError, match="one length per index"):
        pt.ravel_multi_index((pt.lvector(), pt.lvector()), (2, 3, 4))
    with pytest.raises(ValueError, match="mode"):
        pt.RavelMultiIndex(mode="bounce")


def test_unravel_round_trip_and_zero_gradients(rng):
    flat = pt.lvector("flat")
    rows, cols = pt.unravel_index(flat, (4, 6))
    back = pt.ravel_multi_index((rows, cols), (4, 6))
    values = rng.integers(0, 24, size=7)
    np.testing.assert_array_equal(back.eval({flat: values}), values)
    w = pt.dvector("w")
    cost = (w * pt.cast(rows, "float64")).sum()
    g_w, g_flat = arignote.grad(cost, [w, flat])
    np.testing.assert_array_equal(g_w.eval({w: np.ones(7), flat: values}), values // 6)
    np.testing.assert_array_equal(g_flat.eval({flat: values}), np.zeros(7))
