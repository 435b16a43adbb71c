"""make_slice, slicetype, NoneSliceConst (PyTensor's type_other), infer_static_shape and
transfer (tensor.basic)."""

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.basic import infer_static_shape, transfer
from arignote.tensor.slices import MakeSlice, SliceType


def test_make_slice_indexes_like_a_python_slice():
    rng = np.random.default_rng(0)
    x, a, b = pt.dmatrix("x"), pt.iscalar("a"), pt.iscalar("b")
    value = rng.normal(size=(7, 3))
    f = arignote.function([x, a, b], x[pt.make_slice(a, b, -1), pt.NoneSliceConst])
    np.testing.assert_array_equal(f(value, 5, 1), value[5:1:-1, :])
    g = arignote.function([x, a], x[pt.make_slice(slice(a, None))])
    np.testing.assert_array_equal(g(value, 2), value[2:])


def test_make_slice_is_a_graph_value():
    a = pt.lscalar("a")
    s = pt.make_slice(a, None, 2)
    assert s.type == pt.slicetype and str(s.type) == "slice"
    assert arignote.function([a], s)(3) == slice(3, None, 2)
    assert pt.NoneSliceConst.data == slice(None)
    assert isinstance(pickle.loads(pickle.dumps(pt.slicetype)), SliceType)
    assert MakeSlice() == pt.make_slice and hash(MakeSlice()) == hash(pt.make_slice)
    with pytest.raises(TypeError, match="Expected a slice"):
        pt.slicetype.filter(3)
    with pytest.raises(TypeError, match="integers or None"):
        pt.make_slice(pt.dscalar("f"))
    assert pt.slicetype.may_share_memory(s, s) is False  # not slices: variables


def test_a_slice_variable_of_unknown_bounds_cannot_index():
    x = pt.dvector("x")
    with pytest.raises(TypeError, match="not made by make_slice"):
        x[pt.slicetype()]


def test_infer_static_shape_folds_what_is_known():
    x = pt.dmatrix("x")
    entries, static = infer_static_shape([3, x.shape[0], pt.constant(2) + 1])
    assert static == (3, None, 3) and all(e.ndim == 0 for e in entries)
    assert infer_static_shape(pt.zeros((4, 5)).shape)[1] == (4, 5)
    with pytest.raises(TypeError, match="scalar integers"):
        infer_static_shape([3.0])


def test_transfer_to_cpu_only():
    x = pt.dvector("x")
    assert transfer(x, "cpu") is x
    assert pt.transfer([1.0, 2.0], "cpu").type.shape == (2,)
    with pytest.raises(ValueError, match="gpu"):
        transfer(x, "gpu")
