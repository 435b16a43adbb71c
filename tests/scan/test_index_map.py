"""``IndexMap`` / ``index_map``: values, shapes, derivatives, the Op contract."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import DisconnectedInputError, grad
from arignote.scan import IndexMap, index_map
from arignote.testing import InferShapeTester, check_rop_lop, verify_grad


def _eval(outputs, inputs, values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


def test_values_with_sequences_non_sequences_and_free_variables(rng):
    n = pt.lscalar("n")
    seq = pt.dmatrix("seq")
    c = pt.dvector("c")
    w = pt.dscalar("w")  # used by fn without being listed: becomes an input of the loop

    def fn(i, row, c_):
        return [row * c_ + i.astype("float64") * w, (row**2).sum()]

    rows, sums = index_map(fn, n, sequences=[seq], non_sequences=[c])
    sv, cv = rng.normal(size=(4, 3)), rng.normal(size=3)
    got_rows, got_sums = _eval([rows, sums], [n, seq, c, w], [4, sv, cv, 0.5])
    np.testing.assert_allclose(got_rows, sv * cv + np.arange(4)[:, None] * 0.5)
    np.testing.assert_allclose(got_sums, (sv**2).sum(axis=1))
    assert rows.type.shape == (None, None) and sums.type.shape == (None,)


def test_static_length_and_single_output():
    out = index_map(lambda i: i * 2, 5)
    assert out.type.shape == (5,)
    np.testing.assert_array_equal(arignote.function([], out)(), np.arange(5) * 2)


def test_empty_map_has_the_row_shape(rng):
    n, c = pt.lscalar("n"), pt.dmatrix("c")
    out = index_map(lambda i, c_: c_ * i.astype("float64"), n, non_sequences=[c])
    assert _eval(out, [n, c], [0, rng.normal(size=(2, 3))]).shape == (0, 2, 3)


def test_run_time_errors(rng):
    n, seq = pt.lscalar("n"), pt.dvector("seq")
    out = index_map(lambda i, s: s * 2.0, n, sequences=[seq])
    fn = arignote.function([n, seq], out)
    with pytest.raises(ValueError, match="sequence 0 has 3 rows"):
        fn(4, rng.normal(size=3))
    with pytest.raises(ValueError, match="negative length"):
        fn(-1, rng.normal(size=3))


def test_rows_of_different_shapes_are_an_error():
    n, v = pt.lscalar("n"), pt.dvector("v")
    out = index_map(lambda i, v_: pt.reshape(v_, (i + 1, -1), ndim=2), n, non_sequences=[v])
    with pytest.raises(ValueError, match="same shape"):
        _eval(out, [n, v], [2, np.ones(6)])


def test_make_node_checks_arguments():
    index = pt.lscalar("i")
    row = pt.dvector("row")
    op = IndexMap([index, row], [row * 2.0], n_sequences=1)
    with pytest.raises(TypeError, match="integer scalar"):
        op(pt.dscalar(), pt.dmatrix())
    with pytest.raises(TypeError, match="rows of type"):
        op(3, pt.dvector())
    with pytest.raises(TypeError, match="takes 1 arguments"):
        op(3)
    with pytest.raises(ValueError, match="neither an input nor a constant"):
        IndexMap([index], [row * 2.0])
    with pytest.raises(TypeError, match="int64"):
        IndexMap([pt.iscalar()], [row])


def test_props_contract_is_structural():
    def make():
        c = pt.dvector("c")
        return index_map(lambda i, c_: c_ * i.astype("float64"), 3, non_sequences=[c]).owner.op

    a, b = make(), make()
    assert a == b and hash(a) == hash(b)
    restored = pickle.loads(pickle.dumps(a))
    assert restored == a and hash(restored) == hash(a)
    assert copy.copy(a) == a
    other = index_map(lambda i: i * 3, 3).owner.op
    assert other != a
    assert "IndexMap" in str(a)


def test_infer_shape_drops_the_loop(rng):
    n, c = pt.lscalar("n"), pt.dmatrix("c")
    out = index_map(lambda i, c_: pt.exp(c_) * i.astype("float64"), n, non_sequences=[c])
    tester = InferShapeTester()
    tester.setup_method()
    tester._compile_and_check([n, c], [out], [4, rng.normal(size=(2, 3))], IndexMap)


def test_gradient_wrt_sequences_and_non_sequences(rng):
    def fun(seq, c):
        out = index_map(
            lambda i, row, c_: pt.sin(row * c_) + i.astype("float64") * c_,
            pt.shape_i(seq, 0),
            sequences=[seq],
            non_sequences=[c],
        )
        return out

    verify_grad(fun, [rng.normal(size=(4, 3)), rng.normal(size=3)], rng=rng)


def test_gradient_of_one_output_of_several(rng):
    seq = pt.dmatrix("seq")
    a, b = index_map(lambda i, r: [r * 2.0, pt.exp(r)], 3, sequences=[seq])
    g = grad(b.sum(), seq)
    sv = rng.normal(size=(3, 2))
    np.testing.assert_allclose(_eval(g, [seq], [sv]), np.exp(sv))


def test_second_derivative_through_the_map(rng):
    def fun(c):
        rows = index_map(lambda i, c_: pt.exp(c_ * i.astype("float64")), 3, non_sequences=[c])
        return grad((rows**2).sum(), c)

    verify_grad(fun, [rng.uniform(-0.5, 0.5, size=4)], rng=rng)


def test_disconnected_and_integer_inputs():
    n = pt.lscalar("n")
    c = pt.dvector("c")
    out = index_map(lambda i, c_: c_ * 2.0, n, non_sequences=[c])
    with pytest.raises(DisconnectedInputError):
        grad(out.sum(), n)
    assert out.owner.op.connection_pattern(out.owner) == [[False], [True]]


def test_r_op_of_the_map(rng):
    def fun(seq, c):
        return index_map(
            lambda i, row, c_: [pt.tanh(row) * c_, (row * c_).sum()],
            3,
            sequences=[seq],
            non_sequences=[c],
        )

    check_rop_lop(fun, [rng.normal(size=(3, 4)), rng.normal(size=4)], rng=rng)
