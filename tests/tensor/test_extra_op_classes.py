"""bartlett_, fill_diagonal_, fill_diagonal_offset_: PyTensor's op instances, equal in value to
the graph functions and to NumPy; their errors."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.extra_ops import bartlett_, fill_diagonal_, fill_diagonal_offset_


def test_ops_agree_with_the_graph_functions():
    rng = np.random.default_rng(2)
    a, v, k, m = pt.dmatrix("a"), pt.dscalar("v"), pt.lscalar("k"), pt.lscalar("m")
    f = arignote.function(
        [a, v, k, m],
        [
            fill_diagonal_(a, v) - pt.fill_diagonal(a, v),
            fill_diagonal_offset_(a, v, k) - pt.fill_diagonal_offset(a, v, k),
            bartlett_(m) - pt.bartlett(m),
        ],
    )
    for shape, offset in (((3, 5), 1), ((6, 2), -3), ((4, 4), 9)):
        for diff in f(rng.normal(size=shape), 2.5, offset, shape[0] + 2):
            assert np.abs(diff).max(initial=0.0) < 1e-15  # (bartlett: rounding)


def test_python_numbers_take_the_array_dtype_and_errors_name_the_problem():
    a = pt.fmatrix("a")
    assert fill_diagonal_(a, 0).dtype == "float32"
    with pytest.raises(TypeError, match="does not fit"):
        fill_diagonal_(pt.imatrix("i"), 0.5)
    with pytest.raises(TypeError, match="at least 2 dimensions"):
        fill_diagonal_(pt.dvector("v"), 1.0)
    with pytest.raises(TypeError, match="scalar integer"):
        fill_diagonal_offset_(pt.dmatrix("m"), 1.0, 1.5)
    with pytest.raises(TypeError, match="integer input"):
        bartlett_(pt.dscalar("d"))
    assert bartlett_(pt.lscalar("n")).dtype == "float64"
    np.testing.assert_array_equal(bartlett_(-3).eval(), np.bartlett(-3))
