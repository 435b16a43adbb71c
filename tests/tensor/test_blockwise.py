"""Blockwise, vectorize_graph / vectorize_node, pt.vectorize and jacobian(vectorize=True)."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph import vectorize_graph, vectorize_node
from arignote.graph.basic import io_toposort
from arignote.tensor.blockwise import Blockwise, parse_signature, signature_of_node
from arignote.tensor.linalg.inverse import MatrixInverse
from arignote.tensor.products import Dot


def _ops(outputs, inputs):
    f = arignote.function(inputs, outputs)
    return f, [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


def test_parse_signature():
    assert parse_signature("(m,n),(n)->(m)") == ((("m", "n"), ("n",)), (("m",),))
    assert parse_signature("(),() -> ()") == (((), ()), ((),))
    for bad in ["(m,n)", "(m,n)->(m)->()", "m,n->m", "((m))->()"]:
        with pytest.raises(ValueError):
            parse_signature(bad)


def test_blockwise_types_and_build_errors():
    op = Blockwise(Dot(), "(m,k),(k)->(m)")
    a = pt.tensor("a", dtype="float64", shape=(5, 1, 3, 4))
    v = pt.tensor("v", dtype="float32", shape=(2, 4))
    y = op(a, v)
    assert y.type.shape == (5, 2, 3) and y.type.dtype == "float64"
    with pytest.raises(TypeError, match="at least 1 dimensions"):
        op(a, pt.dscalar())
    with pytest.raises(TypeError, match="takes 2 inputs"):
        op(a)
    with pytest.raises(ValueError, match="incompatible batch lengths"):
        op(pt.tensor(dtype="float64", shape=(3, 3, 4)), pt.tensor(dtype="float64", shape=(2, 4)))
    with pytest.raises(ValueError, match="needs a signature"):
        Blockwise(Dot())
    with pytest.raises(TypeError, match="do not match the signature"):
        Blockwise(Dot(), "(m,k),(k)->(m,n)")(a, v)
    assert str(op) == "Blockwise{Dot, (m,k),(k)->(m)}"
    assert op == Blockwise(Dot(), "(m,k),(k)->(m)") and op != Blockwise(Dot(), "(a,b),(b)->(a)")


def test_blockwise_values_broadcasting_and_empty_batches(rng):
    a, v = pt.dtensor3("a"), pt.dvector("v")
    f = arignote.function([a, v], Blockwise(Dot(), "(m,k),(k)->(m)")(a, v), mode="FAST_COMPILE")
    av, vv = rng.normal(size=(2, 3, 4)), rng.normal(size=4)
    np.testing.assert_allclose(f(av, vv), av @ vv)
    assert f(np.zeros((0, 3, 4)), vv).shape == (0, 3)  # the core shape without a block


def test_blockwise_refuses_undeclared_runtime_broadcasting(rng):
    a, b = pt.dtensor3("a"), pt.dtensor3("b")
    f = arignote.function([a, b], Blockwise(Dot(), "(m,k),(k,n)->(m,n)")(a, b))
    with pytest.raises(ValueError, match="does not allow broadcasting"):
        f(rng.normal(size=(1, 3, 4)), rng.normal(size=(2, 4, 5)))


def test_blockwise_infer_shape_needs_no_computation():
    a, b = pt.dtensor3("a"), pt.dmatrix("b")
    y = Blockwise(Dot(), "(m,k),(k,n)->(m,n)")(a, b)
    f, ops = _ops(y.shape, [a, b])
    assert "Blockwise" not in ops
    assert list(f(np.zeros((2, 3, 4)), np.zeros((4, 5)))) == [2, 3, 5]


def test_blockwise_gradient_sums_over_broadcast_batches(rng):
    a = pt.tensor("a", dtype="float64", shape=(None, 1, 3, 4))
    v = pt.dmatrix("v")
    y = Blockwise(Dot(), "(m,k),(k)->(m)")(a, v)
    cost = (y**2).sum()
    av, vv = rng.normal(size=(2, 1, 3, 4)), rng.normal(size=(5, 4))
    ga, gv = arignote.function([a, v], arignote.grad(cost, [a, v]))(av, vv)
    full = np.einsum("bxmk,nk->bnm", av, vv)  # batch (2, 5)
    np.testing.assert_allclose(ga, 2 * np.einsum("bnm,nk->bmk", full, vv)[:, None])
    np.testing.assert_allclose(gv, 2 * np.einsum("bnm,bxmk->nk", full, av))
    arignote.testing.verify_grad(
        lambda x, w: Blockwise(Dot(), "(m,k),(k)->(m)")(x, w), [av[:, 0], vv[0]], rng=rng
    )


def test_rewrites_drop_trivial_batches_and_lift_batching_core_ops(rng):
    m, n = pt.dmatrices("m", "n")
    _, ops = _ops(Blockwise(Dot(), "(m,k),(k,n)->(m,n)")(m, n), [m, n])
    assert "Blockwise" not in ops
    s = pt.dtensor3("s")
    f, ops = _ops(Blockwise(MatrixInverse(), "(m,m)->(m,m)")(s), [s])
    assert ops == ["MatrixInverse"]
    sv = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(f(sv), np.linalg.inv(sv))
    _, ops = _ops(Blockwise(Dot(), "(m,k),(k,n)->(m,n)")(s, m), [s, m])
    assert "Blockwise" in ops  # Dot does not batch: the Blockwise stays


def test_vectorize_graph_matches_a_python_loop(rng):
    x, w = pt.dvector("x"), pt.dmatrix("w")
    y = pt.tanh(pt.dot(w, x)).sum() * x[0] + pt.exp(x).max()
    xs = pt.dmatrix("xs")
    ys = vectorize_graph(y, {x: xs})
    assert ys.type.ndim == 1
    xv, wv = rng.normal(size=(5, 4)), rng.normal(size=(3, 4))
    got = arignote.function([xs, w], ys)(xv, wv)
    f = arignote.function([x, w], y)
    np.testing.assert_allclose(got, [f(row, wv) for row in xv])


def test_vectorize_graph_lists_untouched_outputs_and_two_batch_dims(rng):
    x, y = pt.dvectors("x", "y")
    outs = [x.T * 2, y + 1, pt.outer(x, y)]
    xs = pt.dtensor3("xs")
    new = vectorize_graph(outs, {x: xs})
    assert new[1] is outs[1]
    assert [v.type.ndim for v in new] == [3, 1, 4]
    xv, yv = rng.normal(size=(2, 3, 4)), rng.normal(size=5)
    got = arignote.function([xs, y], new[2])(xv, yv)
    np.testing.assert_allclose(got, xv[..., :, None] * yv)


def test_vectorize_node_dispatch():
    x = pt.dvector("x")
    node = pt.exp(x).owner
    assert isinstance(vectorize_node(node, pt.dmatrix()).op, pt.Elemwise)
    ds = x.dimshuffle("x", 0).owner
    batched = vectorize_node(ds, pt.dmatrix())
    assert batched.op.new_order == (0, "x", 1) and batched.outputs[0].type.ndim == 3
    dot = pt.dot(pt.dmatrix(), x).owner
    blockwise = vectorize_node(dot, dot.inputs[0], pt.dmatrix())
    assert isinstance(blockwise.op, Blockwise)
    assert blockwise.op.signature == signature_of_node(dot) == "(i0_0,i0_1),(i1_0)->(o0_0)"
    with pytest.raises(TypeError, match="takes 1 inputs"):
        vectorize_node(node)


def test_vectorize_node_refuses_non_tensor_ops():
    rng = pt.random.rng()
    draw = pt.random.normal(pt.dscalar("mu"), 1.0, rng=rng)
    with pytest.raises(NotImplementedError, match="non-tensor"):
        vectorize_graph(draw, {draw.owner.inputs[2]: pt.dvector()})


def test_functional_vectorize(rng):
    def matvec(a, v):
        return pt.dot(a, v)

    batched = pt.vectorize(matvec, signature="(m,k),(k)->(m)")
    a, v = pt.dtensor3("a"), pt.dmatrix("v")
    av, vv = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4))
    got = arignote.function([a, v], batched(a, v))(av, vv)
    np.testing.assert_allclose(got, np.einsum("bmk,bk->bm", av, vv))
    scalar = pt.vectorize(lambda s: s**2 + 1)
    np.testing.assert_allclose(scalar(pt.as_tensor(np.arange(3.0))).eval(), [1.0, 2.0, 5.0])


@pytest.mark.parametrize("static", [True, False], ids=["static_length", "runtime_length"])
def test_jacobian_vectorize_is_one_batched_graph(rng, static):
    x = pt.tensor("x", dtype="float64", shape=(4,) if static else (None,))
    w = pt.dmatrix("w")
    y = pt.tanh(pt.dot(w, x)) * x[:3]
    jv = arignote.gradient.jacobian(y, [x, w], vectorize=True)
    jl = arignote.gradient.jacobian(y, [x, w], vectorize=False)
    f = arignote.function([x, w], jv + jl)
    xv, wv = rng.normal(size=4), rng.normal(size=(3, 4))
    a, b, c, d = f(xv, wv)
    np.testing.assert_allclose(a, c)
    np.testing.assert_allclose(b, d)
    ops = {type(n.op).__name__ for n in io_toposort([x, w], jv)}
    assert "IndexMap" not in ops  # no loop


def test_jacobian_vectorize_of_a_disconnected_input_is_zeros():
    x, z = pt.dvectors("x", "z")
    jx, jz = arignote.gradient.jacobian(x * 2, [x, z], vectorize=True, disconnected_inputs="ignore")
    np.testing.assert_array_equal(jz.eval({x: [1.0, 2.0], z: [3.0, 4.0, 5.0]}), np.zeros((2, 3)))
    np.testing.assert_array_equal(jx.eval({x: [1.0, 2.0]}), 2 * np.eye(2))
