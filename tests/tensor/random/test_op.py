"""Tests of the RandomVariable base op: building, shapes, state handling, errors, gradients."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.compile.mode import Mode
from arignote.gradient import Rop, grad
from arignote.graph.grad_types import NullTypeGradError
from arignote.tensor.random.basic import NormalRV, normal_rv
from arignote.tensor.random.op import RandomVariable, draw_batched, normalize_size_param
from arignote.tensor.random.type import NoneConst, random_generator_type

NO_REWRITES = Mode(linker="vm", optimizer=None)


def rng_input(name="rng"):
    return random_generator_type(name)


def rv_nodes(fn):
    return [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, RandomVariable)]


# -- building -----------------------------------------------------------------------------------


def test_RandomVariable_node_inputs_and_outputs():
    rng = rng_input()
    loc = pt.dvector("loc")
    next_rng, draw = ptr.normal(loc, 2.0, rng=rng, return_next_rng=True)
    node = draw.owner
    assert node.inputs[0] is rng and node.inputs[1] is NoneConst
    assert node.outputs == [next_rng, draw]
    assert next_rng.type == random_generator_type
    assert draw.type == pt.TensorType("float64", (None,))


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (None, (3, 4)),
        ((2, 3, 4), (2, 3, 4)),
        ((5, 1, 4), (5, 1, 4)),
    ],
)
def test_RandomVariable_static_shape_from_size_or_parameters(size, expected):
    loc = pt.tensor(dtype="float64", shape=(3, 1), name="loc")
    scale = pt.tensor(dtype="float64", shape=(4,), name="scale")
    if size == (5, 1, 4):
        loc = pt.tensor(dtype="float64", shape=(1, 4), name="loc")
    assert ptr.normal(loc, scale, size=size, rng=rng_input()).type.shape == expected


def test_RandomVariable_static_shape_with_symbolic_size_entries():
    n = pt.lscalar("n")
    draw = ptr.normal(0.0, 1.0, size=(n, 3), rng=np.random.default_rng(0))
    assert draw.type.shape == (None, 3)
    f = arignote.function([n], draw.shape)
    np.testing.assert_array_equal(f(5), [5, 3])


def test_RandomVariable_size_as_integer_vector_variable():
    size = pt.specify_shape(pt.lvector("size"), (2,))
    draw = ptr.uniform(size=size, rng=np.random.default_rng(3))
    assert draw.type.shape == (None, None)
    f = arignote.function([size.owner.inputs[0]], draw)
    np.testing.assert_array_equal(f([2, 5]), np.random.default_rng(3).uniform(size=(2, 5)))


def test_RandomVariable_multivariate_support_shape():
    mean = pt.tensor(dtype="float64", shape=(2, 3), name="mean")
    cov = pt.tensor(dtype="float64", shape=(3, 3), name="cov")
    assert ptr.multivariate_normal(mean, cov, rng=rng_input()).type.shape == (2, 3)
    assert ptr.multivariate_normal(mean, cov, size=(4, 2), rng=rng_input()).type.shape == (4, 2, 3)


@pytest.mark.parametrize(
    ("size", "error", "match"),
    [
        ((2.5,), TypeError, "size entries must be integers"),
        ((-1, 2), ValueError, "non-negative"),
        ("abc", TypeError, "size must be None"),
        (pt.dvector("s"), TypeError, "integer tensor"),
        (pt.lvector("s"), TypeError, "statically known length"),
        ((pt.dscalar("s"),), TypeError, "integer scalars"),
    ],
)
def test_normalize_size_param_errors(size, error, match):
    with pytest.raises(error, match=match):
        normalize_size_param(size)


def test_normalize_size_param_forms():
    assert normalize_size_param(None) is NoneConst
    np.testing.assert_array_equal(normalize_size_param(3).data, [3])
    np.testing.assert_array_equal(normalize_size_param(np.array([2, 4])).data, [2, 4])
    assert normalize_size_param(pt.lscalar("n")).type.shape == (1,)


def test_RandomVariable_parameter_errors():
    rng = rng_input()
    with pytest.raises(TypeError, match="takes 2 parameters, got 3"):
        normal_rv.make_node(rng, None, 0.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="at least 1 dimension"):
        ptr.multivariate_normal(0.0, np.eye(2), rng=rng)
    with pytest.raises(TypeError, match=r"rng input must be a numpy\.random\.Generator"):
        ptr.normal(0.0, 1.0, rng=np.random.RandomState(0))
    with pytest.raises(TypeError, match="rng input"):
        ptr.normal(0.0, 1.0, rng=pt.dscalar("x"))


def test_RandomVariable_incompatible_static_shapes():
    rng = rng_input()
    with pytest.raises(ValueError, match="Incompatible static shapes"):
        ptr.normal(np.zeros((2, 3)), np.ones(4), rng=rng)
    with pytest.raises(ValueError, match="cannot be broadcast to size"):
        ptr.normal(np.zeros(3), 1.0, size=(2, 4), rng=rng)
    with pytest.raises(ValueError, match="fewer dimensions"):
        ptr.normal(np.zeros((2, 3)), 1.0, size=(3,), rng=rng)
    with pytest.raises(ValueError, match="same length k"):
        ptr.multivariate_normal(np.zeros(3), np.eye(2), rng=rng)


def test_RandomVariable_refuses_runtime_broadcasting():
    loc, scale = pt.dvector("loc"), pt.dvector("scale")
    f = arignote.function([loc, scale], ptr.normal(loc, scale, rng=np.random.default_rng(0)))
    assert f([0.0, 1.0, 2.0], [1.0, 1.0, 1.0]).shape == (3,)
    with pytest.raises(ValueError, match="does not declare that dimension broadcastable"):
        f([0.0, 1.0, 2.0], [1.0])


def test_RandomVariable_numpy_error_names_the_node():
    scale = pt.dscalar("scale")
    f = arignote.function([scale], ptr.normal(0.0, scale, rng=np.random.default_rng(0)))
    with pytest.raises(ValueError, match=r"(?s)scale < 0.*normal_rv"):
        f(-1.0)


def test_RandomVariable_props_contract():
    op = NormalRV()
    assert op == normal_rv and hash(op) == hash(normal_rv)
    assert op != NormalRV(inplace=True) and op != NormalRV(dtype="float32")
    assert op != ptr.LaplaceRV()  # same props, different distribution class
    restored = pickle.loads(pickle.dumps(normal_rv))
    assert restored == normal_rv and type(restored) is NormalRV
    assert str(normal_rv) == "normal_rv" and str(NormalRV(inplace=True)) == "normal_rv{inplace}"
    assert NormalRV(inplace=True).destroy_map == {0: [0]} and normal_rv.destroy_map == {}
    assert copy.copy(op) == op


def test_RandomVariable_constructor_errors():
    with pytest.raises(ValueError, match="needs the name"):
        RandomVariable()
    with pytest.raises(ValueError, match="non-negative"):
        RandomVariable("normal", ndim_supp=-1)

    class NoDtypeRV(RandomVariable):
        name = "normal"
        ndims_params = (0,)
        dtype = None

    with pytest.raises(TypeError, match="must define the dtype"):
        NoDtypeRV().make_node(rng_input(), None, 0.0)


# -- values and state -------------------------------------------------------------------------


def test_RandomVariable_function_input_generator_is_never_modified():
    rng = rng_input()
    loc = pt.dvector("loc")
    f = arignote.function([rng, loc], ptr.normal(loc, 1.0, size=(2, 3), rng=rng))
    value = np.random.default_rng(21)
    first = f(value, np.zeros(3))
    assert random_generator_type.values_eq(value, np.random.default_rng(21))
    np.testing.assert_array_equal(f(value, np.zeros(3)), first)
    np.testing.assert_array_equal(first, np.random.default_rng(21).normal(0, 1, size=(2, 3)))


def test_RandomVariable_next_rng_output_is_the_advanced_generator():
    rng = rng_input()
    next_rng, draw = ptr.gamma(2.0, size=4, rng=rng, return_next_rng=True)
    f = arignote.function([rng], [next_rng, draw])
    new_state, values = f(np.random.default_rng(5))
    reference = np.random.default_rng(5)
    np.testing.assert_array_equal(values, reference.gamma(2.0, size=4))
    assert random_generator_type.values_eq(new_state, reference)


def test_RandomVariable_shared_generator_advances_between_calls():
    rng = arignote.shared(np.random.default_rng(33))
    draw = ptr.normal(np.arange(3.0), 1.0, rng=rng)
    assert rng.default_update is draw.owner.outputs[0]
    f = arignote.function([], draw)
    reference = np.random.default_rng(33)
    for _ in range(3):
        np.testing.assert_array_equal(f(), reference.normal(np.arange(3.0), 1.0))
    assert random_generator_type.values_eq(rng.get_value(), reference)


def test_RandomVariable_no_default_updates_repeats_draws():
    rng = arignote.shared(np.random.default_rng(33))
    f = arignote.function([], ptr.poisson(3.0, size=5, rng=rng), no_default_updates=True)
    np.testing.assert_array_equal(f(), f())
    assert random_generator_type.values_eq(rng.get_value(), np.random.default_rng(33))


def test_RandomVariable_keeps_an_existing_default_update():
    rng = arignote.shared(np.random.default_rng(1))
    first = ptr.normal(rng=rng)
    ptr.normal(rng=rng)
    assert rng.default_update is first.owner.outputs[0]


def test_RandomVariable_chained_draws_from_one_shared_generator():
    rng = arignote.shared(np.random.default_rng(2))
    next_rng, x = ptr.normal(size=2, rng=rng, return_next_rng=True)
    y = ptr.uniform(size=3, rng=next_rng)
    rng.default_update = y.owner.outputs[0]
    f = arignote.function([], [x, y])
    reference = np.random.default_rng(2)
    for _ in range(2):
        got_x, got_y = f()
        np.testing.assert_array_equal(got_x, reference.normal(size=2))
        np.testing.assert_array_equal(got_y, reference.uniform(size=3))


def test_RandomVariable_without_rng_makes_a_shared_generator():
    draw = ptr.normal(size=(2, 3))
    rng = draw.owner.inputs[0]
    assert isinstance(rng, ptr.RandomGeneratorSharedVariable)
    assert rng.default_update is draw.owner.outputs[0]
    f = arignote.function([], draw)
    assert not np.array_equal(f(), f())


def test_RandomVariable_constant_generator_gives_the_same_draws_each_call():
    f = arignote.function([], ptr.beta(2.0, 3.0, size=4, rng=np.random.default_rng(6)))
    np.testing.assert_array_equal(f(), f())
    np.testing.assert_array_equal(f(), np.random.default_rng(6).beta(2.0, 3.0, size=4))


def test_RandomVariable_name_and_dtype_override():
    draw = ptr.normal(0.0, 1.0, size=3, rng=np.random.default_rng(1), name="z", dtype="float32")
    assert draw.name == "z" and draw.owner.outputs[0].name == "z_next_rng"
    assert draw.type.dtype == "float32"
    value = draw.eval()
    assert value.dtype == np.float32
    np.testing.assert_array_equal(value, np.random.default_rng(1).normal(size=3).astype("float32"))


def test_RandomVariable_floatX_draws():
    with arignote.config.change_flags(floatX="float32"):
        draw = ptr.uniform(size=2, rng=np.random.default_rng(1))
    assert draw.type.dtype == "float32"


def test_RandomVariable_perform_reuses_nothing_from_output_cells():
    rng = rng_input()
    draw = ptr.normal(size=(2, 2), rng=rng)
    node = draw.owner
    cells = [[np.random.default_rng(0)], [np.full((5, 5), 7.0)]]
    inputs = [np.random.default_rng(4), np.array([2, 2]), np.array(0.0), np.array(1.0)]
    node.op.perform(node, inputs, cells)
    np.testing.assert_array_equal(cells[1][0], np.random.default_rng(4).normal(size=(2, 2)))


# -- shapes without drawing ---------------------------------------------------------------------


def test_RandomVariable_infer_shape_does_not_draw(monkeypatch):
    calls = []
    original = NormalRV.rng_fn

    def counting(self, *args):
        calls.append(args)
        return original(self, *args)

    monkeypatch.setattr(NormalRV, "rng_fn", counting)
    loc, scale = pt.dmatrix("loc"), pt.dvector("scale")
    draw = ptr.normal(loc, scale, rng=np.random.default_rng(0))
    f = arignote.function([loc, scale], draw.shape)
    assert not rv_nodes(f)
    np.testing.assert_array_equal(f(np.zeros((3, 4)), np.ones(4)), [3, 4])
    assert calls == []
    n = pt.lscalar("n")
    sized = arignote.function([n], ptr.normal(size=(n, 2), rng=np.random.default_rng(0)).shape)
    np.testing.assert_array_equal(sized(7), [7, 2])
    assert calls == [] and not rv_nodes(sized)


def test_RandomVariable_infer_shape_broadcasts_padded_parameters():
    a = pt.tensor(dtype="float64", shape=(None, 1, None), name="a")
    b = pt.tensor(dtype="float64", shape=(None,), name="b")
    c = pt.tensor(dtype="float64", shape=(None, 1), name="c")
    draw = ptr.triangular(a, b, c + 10.0, rng=np.random.default_rng(0))
    f = arignote.function([a, b, c], draw.shape)
    assert not rv_nodes(f)
    args = (np.zeros((2, 1, 4)), np.ones(4), np.ones((5, 1)))
    np.testing.assert_array_equal(f(*args), [2, 5, 4])


# -- gradients --------------------------------------------------------------------------------


def test_RandomVariable_gradient_is_undefined():
    loc = pt.dscalar("loc")
    draw = ptr.normal(loc, 1.0, size=3, rng=rng_input())
    with pytest.raises(NullTypeGradError, match="reparametrization"):
        grad(draw.sum(), loc)
    results = grad(draw.sum(), loc, null_gradients="return")
    assert "not differentiable" in results.type.why_null


def test_RandomVariable_rop_raises():
    loc = pt.dvector("loc")
    draw = ptr.normal(loc, 1.0, rng=rng_input())
    with pytest.raises(NullTypeGradError, match="no derivative"):
        Rop(draw, loc, pt.dvector("v"))


def test_RandomVariable_next_state_is_not_connected_to_parameters():
    node = ptr.normal(pt.dscalar("loc"), 1.0, rng=rng_input()).owner
    # inputs: rng, size, loc, scale; outputs: next_rng, draw
    expected = [[True, True], [False, True], [False, True], [False, True]]
    assert node.op.connection_pattern(node) == expected


def test_RandomVariable_reparametrized_draw_is_differentiable():
    loc, scale = pt.dscalar("loc"), pt.dscalar("scale")
    z = ptr.standard_normal(size=4, rng=np.random.default_rng(3))
    cost = (loc + scale * z).sum()
    g_loc, g_scale = grad(cost, [loc, scale])
    f = arignote.function([loc, scale], [g_loc, g_scale])
    got_loc, got_scale = f(0.5, 2.0)
    assert got_loc == pytest.approx(4.0)
    assert got_scale == pytest.approx(np.random.default_rng(3).standard_normal(4).sum())


# -- helpers ----------------------------------------------------------------------------------


def test_draw_batched_matches_a_loop_in_C_order():
    mean = np.arange(6.0).reshape(2, 3)
    cov = np.eye(3)
    rng = np.random.default_rng(0)
    got = draw_batched(rng.multivariate_normal, (mean, cov), (1, 2), None)
    reference = np.random.default_rng(0)
    expected = np.stack([reference.multivariate_normal(m, cov) for m in mean])
    np.testing.assert_array_equal(got, expected)
    # an empty batch keeps the support dimension (the draw's static type says so)
    assert draw_batched(rng.dirichlet, (np.ones((0, 3)),), (1,), None).shape == (0, 3)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("dirichlet", (np.ones((0, 3)),)),
        ("multivariate_normal", (np.zeros((2, 0, 3)), np.eye(3))),
        ("multivariate_hypergeometric", (np.ones((0, 4), dtype="int64"), np.asarray(2))),
    ],
)
def test_batched_vector_draws_with_an_empty_batch_keep_the_support(name, args):
    matrix = pt.tensor(dtype=args[0].dtype, shape=(None,) * args[0].ndim)
    draw = getattr(ptr, name)(matrix, *args[1:], rng=np.random.default_rng(0))
    value = arignote.function([matrix], draw)(args[0])
    assert value.shape == args[0].shape
    assert value.dtype == draw.type.dtype


def test_RandomVariable_without_rewrites_matches_with_rewrites():
    rng = rng_input()
    draw = ptr.lognormal(np.arange(3.0), 0.5, size=(2, 3), rng=rng)
    slow = arignote.function([rng], draw, mode=NO_REWRITES)
    fast = arignote.function([rng], draw)
    np.testing.assert_array_equal(slow(np.random.default_rng(1)), fast(np.random.default_rng(1)))


def test_compiled_function_with_a_shared_generator_pickles_mid_sequence():
    rng = arignote.shared(np.random.default_rng(8))
    f = arignote.function([], ptr.gamma(np.arange(1.0, 4.0), 2.0, size=(2, 3), rng=rng))
    reference = np.random.default_rng(8)
    np.testing.assert_array_equal(f(), reference.gamma(np.arange(1.0, 4.0), 2.0, size=(2, 3)))
    restored = pickle.loads(pickle.dumps(f))
    expected = reference.gamma(np.arange(1.0, 4.0), 2.0, size=(2, 3))
    np.testing.assert_array_equal(restored(), expected)  # continues from the pickled state
    np.testing.assert_array_equal(f(), expected)  # and the original is independent of it
