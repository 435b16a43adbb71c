"""Hand-written checks of arignote.tensor.derived beyond the op database: index grids,
build-time errors, and the PyTensor module paths of the functions."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt


def test_mgrid_and_ogrid_match_numpy():
    np.testing.assert_array_equal(pt.mgrid[0:3, 0:4].eval(), np.mgrid[0:3, 0:4])
    np.testing.assert_allclose(pt.mgrid[0:1:5j].eval(), np.mgrid[0:1:5j])
    np.testing.assert_allclose(pt.mgrid[-1:1:3j, 0:4:2].eval(), np.mgrid[-1:1:3j, 0:4:2])
    for got, want in zip(pt.ogrid[0:3, 1:6:2], np.ogrid[0:3, 1:6:2], strict=True):
        np.testing.assert_array_equal(got.eval(), want)
    assert repr(pt.mgrid) == "mgrid" and repr(pt.ogrid) == "ogrid"


def test_ix_picks_a_cross_product(rng):
    x = pt.dmatrix("x")
    value = rng.normal(size=(3, 4))
    got = x[pt.ix_(np.array([True, False, True]), [3, 0])].eval({x: value})
    np.testing.assert_array_equal(got, value[np.ix_([True, False, True], [3, 0])])
    with pytest.raises(ValueError, match="one-dimensional"):
        pt.ix_(pt.dmatrix())


def test_build_errors():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        pt.fill_diagonal(pt.dvector(), 1.0)
    with pytest.raises(TypeError, match="matrix"):
        pt.fill_diagonal_offset(pt.dtensor3(), 1.0, 1)
    with pytest.raises(TypeError, match="batch axis"):
        pt.batched_dot(pt.dvector(), pt.dmatrix())
    with pytest.raises(ValueError, match="not known"):
        pt.get_vector_length(pt.lvector())
    assert pt.get_vector_length(pt.as_tensor([1, 2, 3])) == 3
    assert pt.is_flat(pt.dvector()) and not pt.is_flat(pt.dmatrix())


def test_integer_and_special_values():
    assert pt.nan_to_num(pt.lvector("i")).name == "i"  # integers pass through unchanged
    z = pt.as_tensor(np.array([np.nan + 1j * np.inf, 1 - 1j]))
    np.testing.assert_array_equal(pt.nan_to_num(z).eval(), np.nan_to_num(z.data))


def test_functions_are_served_at_pytensor_paths():
    from arignote.tensor.basic import horizontal_stack, tril_indices
    from arignote.tensor.extra_ops import logspace, unravel_index
    from arignote.tensor.math import median, vecdot

    assert median is pt.median and vecdot is pt.vecdot and logspace is pt.logspace
    assert horizontal_stack is pt.horizontal_stack and tril_indices is pt.tril_indices
    assert unravel_index is pt.unravel_index


def test_logspace_and_geomspace_take_dtype_and_axis():
    start = pt.dvector("start")
    outs = [
        pt.logspace(start, start + 2, 4, dtype="float32", axis=-1),
        pt.geomspace(start, start * 10, 3, axis=1, dtype="float32"),
        pt.geomspace(1, 100, 5, base=2.0),
    ]
    assert [o.type.dtype for o in outs] == ["float32", "float32", "float64"]
    value = np.array([1.0, 2.0])
    got = arignote.function([start], outs)(value)
    np.testing.assert_allclose(got[0], np.logspace(value, value + 2, 4, axis=-1), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.geomspace(value, value * 10, 3, axis=1), rtol=1e-6)
    np.testing.assert_allclose(got[2], np.geomspace(1, 100, 5))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"fweights": True},
        {"aweights": True},
        {"fweights": True, "aweights": True},
        {"aweights": True, "ddof": 0},
        {"fweights": True, "aweights": True, "bias": True},
    ],
)
def test_cov_with_weights_matches_numpy(kwargs, rng):
    m, f, a = pt.dmatrix("m"), pt.lvector("f"), pt.dvector("a")
    mv = rng.normal(size=(3, 6))
    fv, av = rng.integers(1, 4, size=6), rng.uniform(0.1, 1.0, size=6)
    weights = {"fweights": (f, fv), "aweights": (a, av)}
    symbolic = {k: weights[k][0] if k in weights else v for k, v in kwargs.items()}
    values = {k: weights[k][1] if k in weights else v for k, v in kwargs.items()}
    out = pt.cov(m, **symbolic)
    got = arignote.function([m, f, a], out, on_unused_input="ignore")(mv, fv, av)
    np.testing.assert_allclose(got, np.cov(mv, **values))
