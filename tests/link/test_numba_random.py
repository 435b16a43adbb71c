"""Native random variables (``arignote/link/numba/dispatch/random.py``) against the Python VM.

For a generator in the same state, a native draw must give exactly the VM's numbers (NumPy's),
leave the input generator alone and return a generator in the same next state, over
broadcast parameters, 0-d parameters with ``size``, batched parameters with ``size``, and the
dtypes of the draws. Parameter and shape errors are NumPy's own (``perform`` raises them).
Numba compiles slowly: the default run compiles a few functions, the sweep is slow-marked.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.compile.builders import OpFromGraph
from arignote.compile.mode import Mode
from arignote.link.tiered import TieredLinker
from arignote.tensor.random.type import copy_generator, random_generator_type

numba_backend = pytest.importorskip("arignote.link.numba")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance hints
        yield


def _positive(low=0.5, high=3.0):
    return lambda g, shape: g.uniform(low, high, size=shape)


def _real(g, shape):
    return g.normal(size=shape)


def _unit(g, shape):
    return g.uniform(0.05, 0.95, size=shape)


def _counts(g, shape):
    return g.integers(0, 40, size=shape)


#: name: parameter makers (generator, shape) -> values in the valid range
NATIVE = {
    "normal": (_real, _positive()),
    "uniform": (_real, _positive(4.0, 5.0)),
    "exponential": (_positive(),),
    "gamma": (_positive(0.3, 4.0), _positive()),
    "beta": (_positive(0.3, 4.0), _positive(0.3, 4.0)),
    "f": (_positive(1.0, 6.0), _positive(1.0, 6.0)),
    "chisquare": (_positive(0.5, 6.0),),
    "noncentral_chisquare": (_positive(0.5, 6.0), _positive(0.0, 3.0)),
    "noncentral_f": (_positive(1.0, 6.0), _positive(1.0, 6.0), _positive(0.0, 3.0)),
    "standard_cauchy": (),
    "pareto": (_positive(),),
    "weibull": (_positive(),),
    "power": (_positive(),),
    "laplace": (_real, _positive()),
    "logistic": (_real, _positive()),
    "lognormal": (_real, _positive(0.1, 1.0)),
    "rayleigh": (_positive(),),
    "standard_t": (_positive(1.0, 8.0),),
    "triangular": (_positive(-2.0, -1.0), _positive(-0.5, 0.5), _positive(1.0, 2.0)),
    "geometric": (_unit,),
    "zipf": (_positive(1.5, 4.0),),
    "poisson": (_positive(0.5, 40.0),),
    "negative_binomial": (_positive(1.0, 30.0), _unit),
    "logseries": (_unit,),
    "binomial": (_counts, _unit),
    "bernoulli": (_unit,),
    "cauchy": (_real, _positive()),
    "halfcauchy": (_real, _positive()),
    "halfnormal": (_real, _positive()),
}


def _layouts(n_params):
    """(parameter shapes, size) per case: broadcasting, 0-d with size, batched with size."""
    if n_params == 0:
        return [((), (2, 5)), ((), (7,)), ((), ())]
    first = [(3, 4)] + [(4,)] * (n_params - 1)
    zero_d = [()] * n_params
    batched = [(5,)] + [()] * (n_params - 1)
    return [(first, None), (zero_d, (2, 5)), (batched, (3, 5)), (zero_d, None)]


def _compile(name, shapes, size, **kwargs):
    rng = random_generator_type("rng")
    params = [pt.tensor(dtype="float64", shape=(None,) * len(s)) for s in shapes]
    if name == "binomial":
        params[0] = pt.tensor(dtype="int64", shape=(None,) * len(shapes[0]))
    next_rng, draw = getattr(ptr, name)(*params, size=size, rng=rng, return_next_rng=True)
    outputs = [next_rng, draw]
    native = arignote.function([rng, *params], outputs, mode="NUMBA")
    vm = arignote.function([rng, *params], outputs, mode="VM")
    return native, vm


def assert_same_draws(native, vm, generator, values):
    """Both functions draw the same numbers from copies of ``generator``, return generators
    in the same next state, and leave their input generators alone."""
    given_native, given_vm = copy_generator(generator), copy_generator(generator)
    (rng_native, got), (rng_vm, expected) = native(given_native, *values), vm(given_vm, *values)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert rng_native is not given_native
    assert random_generator_type.values_eq(rng_native, rng_vm)
    assert random_generator_type.values_eq(given_native, generator)
    assert not random_generator_type.values_eq(rng_native, generator) or got.size == 0
    assert native.runner.fallbacks == {}, numba_backend.native_report(native.runner)


def _check_distribution(name, seed):
    g = np.random.default_rng(seed)
    makers = NATIVE[name]
    for shapes, size in _layouts(len(makers)):
        native, vm = _compile(name, shapes, size)
        values = [make(g, shape) for make, shape in zip(makers, shapes)]
        assert_same_draws(native, vm, np.random.default_rng(seed + 1), values)


def test_normal_matches_the_vm():
    _check_distribution("normal", 11)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(NATIVE) - {"normal"}))
def test_every_native_distribution_matches_the_vm(name):
    _check_distribution(name, 5)


@pytest.mark.slow
def test_one_graph_of_many_distributions_draws_the_vm_numbers():
    """One compiled graph chaining draws of every kind through one shared generator."""
    shared = arignote.shared(np.random.default_rng(42))
    x = pt.dvector("x")
    streams = pt.random.RandomStream(0)
    draws = [
        ptr.normal(x, 2.0, rng=shared),
        ptr.gamma(pt.exp(x), 1.5, rng=shared),
        ptr.poisson(pt.exp(x), size=(2, 3), rng=shared),
        ptr.integers(0, 7, size=(4,), dtype="int8", rng=shared),
        ptr.integers(pt.arange(3), 10, rng=shared),
        ptr.standard_normal(size=(3,), dtype="float32", rng=shared),
        ptr.random(size=(2,), dtype="float64", rng=shared),
        ptr.standard_exponential(size=(2,), rng=shared),
        streams.uniform(-1, x),
    ]
    native = arignote.function([x], draws, mode="NUMBA")
    vm = arignote.function([x], draws, mode="VM")
    value = np.array([0.3, -0.2, 1.1])
    start, start_streams = shared.get_value(), streams.state_updates[0][0].get_value()
    got = [native(value) for _ in range(3)]
    shared.set_value(start)
    streams.state_updates[0][0].set_value(start_streams)
    expected = [vm(value) for _ in range(3)]
    assert native.runner.fallbacks == {}, numba_backend.native_report(native.runner)
    for call_native, call_vm in zip(got, expected):  # three calls: the updates advance both
        for a, b in zip(call_native, call_vm):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype
    assert not np.array_equal(got[0][0], got[1][0])


def test_parameter_and_shape_errors_are_numpy_s():
    native, vm = _compile("normal", [(3, 4), (4,)], None)
    g = np.random.default_rng(1)
    for values in (
        [np.zeros((3, 4)), -np.ones(4)],  # scale < 0
        [np.zeros((3, 4)), np.ones(5)],  # shapes that do not broadcast
        [np.zeros((3, 4)), np.ones(1)],  # a length 1 only at run time
    ):
        with pytest.raises(ValueError) as native_error:
            native(copy_generator(g), *values)
        with pytest.raises(ValueError) as vm_error:
            vm(copy_generator(g), *values)
        # the VM appends the node's description to the message: NumPy's message comes first
        first_line = str(vm_error.value).splitlines()[0]
        assert str(native_error.value).splitlines()[0] == first_line
    # non-finite parameters and empty draws go to perform, which draws what NumPy draws
    assert_same_draws(native, vm, g, [np.full((2, 3), np.nan), np.ones(3)])
    assert_same_draws(native, vm, g, [np.zeros((0, 4)), np.ones(4)])


@pytest.mark.slow
def test_dtypes_of_the_draws():
    g = np.random.default_rng(3)
    cases = [
        ("standard_normal", {"dtype": "float32"}),
        ("standard_normal", {"dtype": "float64"}),
        ("random", {"dtype": "float32"}),
        ("standard_exponential", {"dtype": "float32"}),
        ("standard_exponential", {"dtype": "float64", "method": "inv"}),
    ]
    for name, kwargs in cases:
        rng = random_generator_type("rng")
        method = kwargs.pop("method", None)
        op = getattr(ptr.basic, f"{name}_rv")
        if method is not None:
            op = type(op)(method=method)
        next_rng, draw = op(size=(3, 2), rng=rng, return_next_rng=True, **kwargs)
        native = arignote.function([rng], [next_rng, draw], mode="NUMBA")
        vm = arignote.function([rng], [next_rng, draw], mode="VM")
        assert_same_draws(native, vm, g, [])
    for dtype in ("float32", "float64"):
        rng, shape = random_generator_type("rng"), pt.dvector("shape")
        outs = ptr.standard_gamma(shape, dtype=dtype, rng=rng, return_next_rng=True)
        native = arignote.function([rng, shape], list(outs), mode="NUMBA")
        vm = arignote.function([rng, shape], list(outs), mode="VM")
        assert_same_draws(native, vm, g, [np.array([0.4, 2.5, 7.0])])
    for dtype, endpoint in [("int64", True), ("int32", False), ("int16", False), ("bool", False)]:
        rng, low, high = random_generator_type("rng"), pt.lscalar("low"), pt.lscalar("high")
        draw = ptr.integers(low, high, size=(4, 5), dtype=dtype, endpoint=endpoint, rng=rng)
        native = arignote.function([rng, low, high], [draw.owner.outputs[0], draw], mode="NUMBA")
        vm = arignote.function([rng, low, high], [draw.owner.outputs[0], draw], mode="VM")
        bounds = (0, 2) if dtype == "bool" else (-3, 90)
        assert_same_draws(native, vm, g, [np.int64(bounds[0]), np.int64(bounds[1])])


def test_an_inplace_op_advances_the_generator_it_is_given():
    rng, loc = random_generator_type("rng"), pt.dvector("loc")
    node = ptr.basic.normal_rv.clone_with(inplace=True).make_node(rng, None, loc, 1.0)
    kernel = numba_backend.numba_funcify(node.op, node)
    given, reference = np.random.default_rng(8), np.random.default_rng(8)
    next_rng, draw = kernel(given, None, np.arange(3.0), np.asarray(1.0))
    cells = [[None], [None]]
    node.op.perform(node, [reference, None, np.arange(3.0), np.asarray(1.0)], cells)
    assert next_rng is given and cells[0][0] is reference
    np.testing.assert_array_equal(draw, cells[1][0])
    assert random_generator_type.values_eq(given, reference)


def test_unsupported_samplers_are_registered_fallbacks_and_the_rest_stays_native():
    # default_rng makes a Python Generator (object mode); the draws from it stay native
    seed, x = pt.lscalar("seed"), pt.dvector("x")
    rng = ptr.default_rng(seed)
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    draws = [ptr.multivariate_normal(np.zeros(2), cov, rng=rng), ptr.normal(pt.exp(x), rng=rng)]
    native = arignote.function([seed, x], draws, mode="NUMBA")
    vm = arignote.function([seed, x], draws, mode="VM")
    reasons = {why.key for why in native.runner.fallbacks.values()}
    assert reasons == {"DefaultGeneratorMakerOp"} and reasons <= set(numba_backend.FALLBACKS)
    value = np.array([0.1, 0.2])
    for a, b in zip(native(4, value), vm(4, value)):
        np.testing.assert_array_equal(a, b)


def test_a_loop_drawing_random_numbers_runs_natively():
    streams = pt.random.RandomStream(3)
    draws, updates = arignote.scan(lambda: streams.normal(size=(2,)), n_steps=4)
    shared = streams.state_updates[0][0]
    start = shared.get_value()
    native = arignote.function([], draws, mode="NUMBA", updates=updates)
    assert native.runner.fallbacks == {}, numba_backend.native_report(native.runner)
    got = [native() for _ in range(2)]
    shared.set_value(start)
    vm = arignote.function([], draws, mode="VM", updates=updates)
    expected = [vm() for _ in range(2)]
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(got[0], got[1])


def test_the_tiered_default_swaps_in_native_draws_with_the_vm_numbers():
    shared = arignote.shared(np.random.default_rng(9))
    x = pt.dvector("x")
    draw = ptr.normal(x, 1.0, rng=shared) + ptr.poisson(3.0, size=(3,), rng=shared)
    mode = Mode(TieredLinker(hot_calls=5, hot_seconds=1e9), "fast_run")
    tiered = arignote.function([x], draw, mode=mode)
    value = np.array([0.5, 1.0, 2.0])
    got = [tiered(value) for _ in range(6)]
    assert tiered.runner.wait(300), tiered.runner.native_error
    got += [tiered(value) for _ in range(4)]
    assert tiered.runner.is_native and tiered.runner.fallbacks == {}
    shared.set_value(np.random.default_rng(9))
    vm = arignote.function([x], draw, mode="VM")
    for a in got:
        np.testing.assert_array_equal(a, vm(value))


def test_a_chain_of_draws_advances_the_generator_in_place():
    """Draws from a generator that nothing else reads advance it in place natively."""
    shared = arignote.shared(np.random.default_rng(6))
    next_rng, first = ptr.normal(0.0, 1.0, size=(2,), rng=shared, return_next_rng=True)
    # the second draw reads the first one's next state, which nothing else reads
    last_rng, second = ptr.normal(first, 1.0, rng=next_rng, return_next_rng=True)
    fn = arignote.function([], [first, second], mode="NUMBA", updates={shared: last_rng})
    draws = [n for n in fn.runner.fgraph.toposort() if isinstance(n.op, ptr.RandomVariable)]
    forms = [numba_backend.dispatch.random.drawing_form(fn.runner.fgraph, n) for n in draws]
    # the first draw reads the shared generator the update replaces (the VM's in-place rewrite
    # advances it in place too), the second one the first one's next state
    assert [f.op.inplace for f in forms] == [True, True]
    reference = np.random.default_rng(6)
    expected_first = reference.normal(0.0, 1.0, size=2)
    got_first, got_second = fn()
    np.testing.assert_array_equal(got_first, expected_first)
    np.testing.assert_array_equal(got_second, reference.normal(expected_first, 1.0))
    assert random_generator_type.values_eq(shared.get_value(), reference)


@pytest.mark.slow
def test_an_op_from_graph_holding_a_generator_runs_natively():
    rng, mu = random_generator_type("r"), pt.dvector("mu")
    next_rng, draw = ptr.normal(mu, 1.0, rng=rng, return_next_rng=True)
    op = OpFromGraph([rng, mu], [next_rng, draw * 2])
    outer_rng, outer_mu = random_generator_type("R"), pt.dvector("M")
    outputs = op(outer_rng, outer_mu)
    native = arignote.function([outer_rng, outer_mu], outputs, mode="NUMBA")
    vm = arignote.function([outer_rng, outer_mu], outputs, mode="VM")
    assert_same_draws(native, vm, np.random.default_rng(2), [np.arange(3.0)])


def test_generators_passed_through_are_copied_as_on_the_vm():
    """A constant or input generator returned as an output is a copy in the same state."""
    constant = random_generator_type.make_constant(np.random.default_rng(1))
    x, rng = pt.dvector("x"), random_generator_type("rng")
    outputs = [constant, x * 2, rng]
    native = arignote.function([x, rng], outputs, mode="NUMBA")
    vm = arignote.function([x, rng], outputs, mode="VM")
    given = np.random.default_rng(5)
    for fn in (native, vm):
        got_constant, _, got_rng = fn(np.ones(2), given)
        assert got_constant is not constant.data and got_rng is not given
        assert random_generator_type.values_eq(got_constant, constant.data)
        assert random_generator_type.values_eq(got_rng, given)
    assert native.runner.fallbacks == {}
