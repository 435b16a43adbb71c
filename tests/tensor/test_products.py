"""Hand-written tests of arignote.tensor.products: broadcasting, subscripts and errors."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.testing import verify_grad


def _var(shape, dtype="float64", name=None):
    """A symbolic tensor whose length-1 dimensions are static (so they may broadcast)."""
    return pt.tensor(dtype=dtype, shape=tuple(1 if s == 1 else None for s in shape), name=name)


def _evaluate(build, *values):
    symbols = [_var(np.shape(v), np.asarray(v).dtype.name) for v in values]
    return arignote.function(symbols, build(*symbols))(*values)


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (4, 5)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((1, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 6)),
    ((2, 3, 4), (1, 4, 6)),
    ((6, 1, 2, 3), (1, 7, 3, 2)),
]


@pytest.mark.parametrize(("x_shape", "y_shape"), MATMUL_SHAPES, ids=str)
def test_matmul_broadcasting_matches_numpy(rng, x_shape, y_shape):
    x, y = rng.normal(size=x_shape), rng.normal(size=y_shape)
    np.testing.assert_allclose(_evaluate(pt.matmul, x, y), np.matmul(x, y), rtol=1e-12)


@pytest.mark.parametrize(("x_shape", "y_shape"), MATMUL_SHAPES[4:9], ids=str)
def test_matmul_broadcasting_gradient(rng, x_shape, y_shape):
    verify_grad(pt.matmul, [rng.normal(size=x_shape), rng.normal(size=y_shape)], rng=rng)


def test_matmul_operator_and_static_shape(rng):
    x = pt.tensor(shape=(2, None, 4))
    y = pt.tensor(shape=(4, 5))
    out = x @ y
    assert out.type.shape == (2, None, 5)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    np.testing.assert_allclose(arignote.function([x, y], out)(a, b), a @ b)
    # an ndarray on the left defers to the variable's __rmatmul__
    np.testing.assert_allclose(arignote.function([y], a @ y)(b), a @ b)


def test_matmul_integers_stay_integers(rng):
    x, y = rng.integers(-5, 5, (2, 3, 4)), rng.integers(-5, 5, (2, 4, 2))
    result = _evaluate(pt.matmul, x, y)
    assert result.dtype == np.int64
    np.testing.assert_array_equal(result, x @ y)


def test_matmul_rejects_scalars_and_misaligned_shapes():
    with pytest.raises(ValueError, match="0-d"):
        pt.matmul(pt.scalar(), pt.matrix())
    with pytest.raises(ValueError, match="not aligned"):
        pt.matmul(pt.tensor(shape=(2, 3, 4)), pt.tensor(shape=(2, 5, 6)))
    with pytest.raises(ValueError, match="Incompatible static shapes"):
        pt.matmul(pt.tensor(shape=(2, 3, 4)), pt.tensor(shape=(3, 4, 6)))


def test_matmul_does_not_broadcast_at_run_time(rng):
    x, y = pt.tensor3(), pt.tensor3()
    fn = arignote.function([x, y], pt.matmul(x, y))
    with pytest.raises(ValueError, match="MatMul") as info:
        fn(rng.normal(size=(1, 3, 4)), rng.normal(size=(2, 4, 5)))
    assert "Apply node" in str(info.value)


EINSUM_TABLE = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ji,kj", [(4, 3), (5, 4)]),  # implicit output, alphabetical: "ik"
    ("aB", [(3, 4)]),  # implicit output in ASCII order: upper case first -> "Ba"
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 5)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,i", [(4,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("i,j->ji", [(3,), (4,)]),
    (",ij->ij", [(), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(6, 1, 3, 4), (2, 4, 5)]),
    ("i...->...", [(3, 4, 5)]),
    ("...i->...", [(3, 4, 5)]),
    ("ij...,jk...->ik...", [(3, 4, 2), (4, 5, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,ij->i", [(3, 4), (1, 4)]),  # a length-1 dimension broadcasts
    ("i,i->i", [(4,), (1,)]),
    ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
    (" ij , jk -> ik ", [(3, 4), (4, 5)]),
]


@pytest.mark.parametrize(("subscripts", "shapes"), EINSUM_TABLE, ids=[s for s, _ in EINSUM_TABLE])
def test_einsum_matches_numpy(rng, subscripts, shapes):
    operands = [rng.normal(size=s) for s in shapes]
    result = _evaluate(lambda *xs: pt.einsum(subscripts, *xs), *operands)
    expected = np.einsum(subscripts, *operands)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("subscripts", "shapes"), [EINSUM_TABLE[i] for i in (4, 6, 12, 15, 20)], ids=str
)
def test_einsum_gradient(rng, subscripts, shapes):
    operands = [rng.normal(size=s) for s in shapes]
    verify_grad(lambda *xs: pt.einsum(subscripts, *xs), operands, rng=rng)


def test_einsum_integer_and_mixed_dtypes(rng):
    a, b = rng.integers(0, 5, (3, 4)), rng.normal(size=(4,)).astype("float32")
    result = _evaluate(lambda x, y: pt.einsum("ij,j->i", x, y), a, b)
    expected = np.einsum("ij,j->i", a, b)
    assert result.dtype == expected.dtype
    np.testing.assert_allclose(result, expected, rtol=1e-6)


@pytest.mark.parametrize(
    ("subscripts", "shapes", "message"),
    [
        ("ij,jk->ik", [(3, 4)], "name 2 operands"),
        ("ij->ik", [(3, 4)], "names no input"),
        ("ij->ii", [(3, 4)], "repeats"),
        ("ijk->i", [(3, 4)], "has 2 dimensions"),
        ("i1", [(3, 4)], "invalid subscript"),
        ("...ij->ij", [(2, 3, 4)], "no '...'"),
        ("ij,jk->ik", [(3, 4), (5, 6)], "length"),
        ("ij->i->j", [(3, 4)], "more than one"),
    ],
)
def test_einsum_errors(subscripts, shapes, message):
    operands = [pt.tensor(shape=s) for s in shapes]
    with pytest.raises(ValueError, match=message):
        pt.einsum(subscripts, *operands)


def test_einsum_runtime_length_mismatch_names_the_node(rng):
    x, y = pt.matrix(), pt.matrix()
    fn = arignote.function([x, y], pt.einsum("ij,jk->ik", x, y))
    with pytest.raises(ValueError, match="Einsum") as info:
        fn(rng.normal(size=(3, 4)), rng.normal(size=(5, 2)))
    assert "Apply node" in str(info.value)


def test_Einsum_repeated_output_label_embeds_a_diagonal(rng):
    v = rng.normal(size=(2, 3))
    x = pt.matrix()
    result = arignote.function([x], pt.Einsum("bi->bii")(x))(v)
    expected = np.zeros((2, 3, 3))
    for b in range(2):
        expected[b] = np.diag(v[b])
    np.testing.assert_array_equal(result, expected)
    verify_grad(pt.Einsum("bi->bii"), [v], rng=rng)


def test_Einsum_does_not_alias_its_input(rng):
    x = pt.matrix()
    value = rng.normal(size=(3, 4))
    result = arignote.function([x], pt.Einsum("ij->ji")(x))(value)
    assert not np.may_share_memory(result, value)


@pytest.mark.parametrize(
    ("axes", "shapes"),
    [
        (2, [(2, 3, 4), (3, 4, 5)]),
        (0, [(2, 3), (4,)]),
        (([1, 0], [0, 1]), [(3, 4, 5), (4, 3)]),
        ((-1, 0), [(2, 3), (3, 4, 5)]),
    ],
    ids=str,
)
def test_tensordot_matches_numpy(rng, axes, shapes):
    a, b = (rng.normal(size=s) for s in shapes)
    result = _evaluate(lambda x, y: pt.tensordot(x, y, axes), a, b)
    np.testing.assert_allclose(result, np.tensordot(a, b, axes), rtol=1e-12)


def test_tensordot_errors():
    a, b = pt.tensor(shape=(2, 3)), pt.tensor(shape=(4, 5))
    with pytest.raises(ValueError, match="does not match"):
        pt.tensordot(a, b, axes=1)
    with pytest.raises(ValueError, match="out of range"):
        pt.tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match="different lengths"):
        pt.tensordot(a, b, axes=([0, 1], [0]))
    with pytest.raises(ValueError, match="repeated"):
        pt.tensordot(a, pt.tensor(shape=(2, 2)), axes=([0, 0], [0, 1]))


def test_dot_of_higher_dimensions_sums_last_against_second_to_last(rng):
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(5, 4, 6))
    np.testing.assert_allclose(_evaluate(pt.dot, a, b), np.dot(a, b), rtol=1e-12)
    assert pt.dot(pt.tensor3(), pt.tensor3()).type.ndim == 4


def test_public_product_names():
    for name in ("dot", "matmul", "tensordot", "outer", "vdot", "einsum", "matrix_transpose"):
        assert callable(getattr(pt, name)), name


def test_matmul_dtype(rng):
    x, y = pt.dtensor3("x"), pt.dmatrix("y")
    out = pt.matmul(x, y, dtype="float32")
    assert out.type.dtype == "float32"
    xv, yv = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    np.testing.assert_allclose(arignote.function([x, y], out)(xv, yv), xv @ yv, rtol=1e-5)
