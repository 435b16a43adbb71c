"""Native stacks of matrix products (batched, broadcast, vectors, integer, mixed and boolean
dtypes) and ``linspace`` with array bounds: values and dtypes against NumPy, errors as
``perform``'s, no object-mode node."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.link.jit import JITRunner

numba_backend = pytest.importorskip("arignote.link.numba")


def _native(inputs, outputs):
    fn = arignote.function(inputs, outputs, mode="NUMBA", on_unused_input="ignore")
    assert isinstance(fn.runner, JITRunner)
    assert fn.runner.fallbacks == {}, numba_backend.native_report(fn.runner)
    return fn


def _check(got, expected):
    for g, e in zip(got, expected, strict=True):
        e = np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_matmul_stacks_vectors_and_integer_dtypes(rng):
    x, y = pt.dtensor3("x"), pt.tensor("y", dtype="float64", shape=(1, None, None))
    i, j, v = pt.tensor3("i", dtype="int64"), pt.tensor3("j", dtype="int32"), pt.lvector("v")
    m = pt.lmatrix("m")
    outputs = [
        pt.matmul(x, y),
        pt.matmul(x, x[0, 0]),
        pt.matmul(i, j),
        pt.dot(v, m),
        pt.dot(m, v),
        pt.dot(v, v),
    ]
    fn = _native([x, y, i, j, v, m], outputs)
    xv, yv = rng.normal(size=(2, 3, 4)), rng.normal(size=(1, 4, 5))
    iv, jv = rng.integers(-9, 9, (2, 3, 4)), rng.integers(-9, 9, (2, 4, 2)).astype(np.int32)
    vv, mv = rng.integers(-9, 9, 3), rng.integers(-9, 9, (3, 3))
    expected = [xv @ yv, xv @ xv[0, 0], iv @ jv, vv @ mv, mv @ vv, vv @ vv]
    _check(fn(xv, yv, iv, jv, vv, mv), expected)
    with pytest.raises(ValueError):
        fn(xv, rng.normal(size=(1, 3, 5)), iv, jv, vv, mv)  # not aligned
    with pytest.raises(ValueError):
        fn(xv, yv, iv, jv[:1].repeat(3, axis=0), vv, mv)  # batch 2 against 3


def test_boolean_matmul_is_numpys(rng):
    b, c = pt.tensor3("b", dtype="bool"), pt.tensor3("c", dtype="bool")
    fn = _native([b, c], [pt.matmul(b, c)])
    bv, cv = rng.random((2, 3, 4)) < 0.3, rng.random((2, 4, 5)) < 0.3
    _check(fn(bv, cv), [bv @ cv])


@pytest.mark.slow
def test_linspace_with_array_bounds_along_each_axis(rng):
    start, stop, n = pt.dmatrix("start"), pt.dvector("stop"), pt.lscalar("n")
    outputs = [
        pt.linspace(start, stop, n),
        pt.linspace(start, stop, n, axis=1, endpoint=False),
        pt.linspace(start, stop, n, axis=-1, dtype="int64"),
        pt.linspace(start, start, n),  # every step 0: NumPy's division first
    ]
    fn = _native([start, stop, n], outputs)
    sv, ev = rng.normal(size=(2, 3)), rng.normal(size=3) * 10
    expected = [
        np.linspace(sv, ev, 5),
        np.linspace(sv, ev, 5, axis=1, endpoint=False),
        np.linspace(sv, ev, 5, axis=-1, dtype="int64"),
        np.linspace(sv, sv, 5),
    ]
    _check(fn(sv, ev, 5), expected)
    one = [
        np.linspace(sv, ev, 1),
        np.linspace(sv, ev, 1, axis=1, endpoint=False),
        np.linspace(sv, ev, 1, axis=-1, dtype="int64"),
        np.linspace(sv, sv, 1),
    ]
    _check(fn(sv, ev, 1), one)
    with pytest.raises(ValueError):
        fn(sv, ev, -1)
    with pytest.raises(ValueError):
        fn(sv, rng.normal(size=4), 5)  # 3 against 4


def test_einsum_loops_match_numpy(rng):
    x, y, z = pt.dtensor3("x"), pt.dmatrix("y"), pt.lmatrix("z")
    b = pt.tensor("b", dtype="bool", shape=(None, None))
    specs = [
        ("bij,kj->bik", (x, y)),
        ("bij,ij->b", (x, y)),
        ("ij,kj,kl->il", (y, y, y)),
        ("ij->", (z,)),
        ("ij,kj->ik", (b, b)),
        ("ii->i", (y[:, :3],)),
    ]
    fn = _native([x, y, z, b], [pt.einsum(spec, *ops) for spec, ops in specs])
    xv, yv = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4))
    zv, bv = rng.integers(-9, 9, (3, 5)), rng.random((3, 4)) < 0.4
    values = {x: xv, y: yv, z: zv, b: bv}
    expected = [np.einsum(spec, *(values.get(o, yv[:, :3]) for o in ops)) for spec, ops in specs]
    _check(fn(xv, yv, zv, bv), expected)
    with pytest.raises(ValueError):
        fn(rng.normal(size=(2, 3, 5)), yv, zv, bv)  # label j: 5 against 4
