"""Tests of the in-place rewrite of random variables (local_random_make_inplace)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor.random as ptr
from arignote.compile.mode import Mode
from arignote.compile.ops import view_op
from arignote.graph.features import Feature
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import in2out
from arignote.graph.rewriting.db import rewrites
from arignote.tensor.random.op import RandomVariable
from arignote.tensor.random.rewriting import local_random_make_inplace, rng_is_destroyable
from arignote.tensor.random.type import random_generator_type

NO_REWRITES = Mode(linker="vm", optimizer=None)


def rv_nodes(fgraph):
    return [n for n in fgraph.toposort() if isinstance(n.op, RandomVariable)]


def make_inplace(fgraph):
    in2out(local_random_make_inplace).rewrite(fgraph)
    return [n.op.inplace for n in rv_nodes(fgraph)]


class Supervisor(Feature):
    """Stands for the compile layer's list of inputs that must not be overwritten."""

    def __init__(self, protected):
        self.protected = list(protected)


def test_rewrite_is_registered_in_the_inplace_phase():
    assert "local_random_make_inplace" in rewrites
    assert "inplace" in rewrites.tags_of("local_random_make_inplace")


def test_chained_draw_becomes_inplace_but_the_input_generator_is_kept():
    rng = random_generator_type("rng")
    next_rng, x = ptr.normal(size=2, rng=rng, return_next_rng=True)
    y = ptr.uniform(size=3, rng=next_rng)
    f = arignote.function([rng], [x, y])
    assert [n.op.inplace for n in rv_nodes(f.maker.fgraph)] == [False, True]
    value = np.random.default_rng(8)
    got_x, got_y = f(value)
    reference = np.random.default_rng(8)
    np.testing.assert_array_equal(got_x, reference.normal(size=2))
    np.testing.assert_array_equal(got_y, reference.uniform(size=3))
    assert random_generator_type.values_eq(value, np.random.default_rng(8))
    for a, b in zip(f(value), arignote.function([rng], [x, y], mode=NO_REWRITES)(value)):
        np.testing.assert_array_equal(a, b)


def test_generator_read_twice_is_not_overwritten():
    rng = random_generator_type("rng")
    next_rng, x = ptr.normal(size=2, rng=rng, return_next_rng=True)
    y = ptr.uniform(size=3, rng=next_rng)
    z = ptr.gamma(2.0, size=3, rng=next_rng)
    fgraph = FunctionGraph([rng], [x, y, z])
    assert make_inplace(fgraph) == [False, False, False]


def test_generator_returned_as_output_is_not_overwritten():
    rng = random_generator_type("rng")
    next_rng, x = ptr.normal(size=2, rng=rng, return_next_rng=True)
    y = ptr.uniform(size=3, rng=next_rng)
    f = arignote.function([rng], [x, y, next_rng])
    assert not any(n.op.inplace for n in rv_nodes(f.maker.fgraph))
    _, _, state = f(np.random.default_rng(1))
    reference = np.random.default_rng(1)
    reference.normal(size=2)
    assert random_generator_type.values_eq(state, reference)


def test_function_input_and_constant_generators_are_never_overwritten():
    rng = random_generator_type("rng")
    assert make_inplace(FunctionGraph([rng], [ptr.normal(rng=rng)])) == [False]
    constant = ptr.normal(rng=np.random.default_rng(0))
    assert make_inplace(FunctionGraph([], [constant], clone=False)) == [False]


def test_updated_input_is_overwritten():
    """An input replaced after the call (``update_mapping``: output -> input) may be destroyed."""
    rng = random_generator_type("rng")
    next_rng, x = ptr.normal(size=3, rng=rng, return_next_rng=True)
    fgraph = FunctionGraph([rng], [x, next_rng], update_mapping={1: 0})
    assert make_inplace(fgraph) == [True]
    node = rv_nodes(fgraph)[0]
    assert node.op.destroy_map == {0: [0]}
    value = np.random.default_rng(4)
    outputs = [[None], [None]]
    node.op.perform(node, [value, None, np.array(0.0), np.array(1.0)], outputs)
    assert outputs[0][0] is value  # no copy was made


def test_unprotected_input_is_overwritten_and_protected_one_is_not():
    rng = random_generator_type("rng")
    x = ptr.normal(rng=rng)
    mutable = FunctionGraph([rng], [x], features=[Supervisor([])])
    assert make_inplace(mutable) == [True]
    protected = FunctionGraph([rng], [x])
    protected.attach_feature(Supervisor(protected.inputs))
    assert make_inplace(protected) == [False]


def test_alias_chain_to_a_protected_input_is_followed():
    rng = random_generator_type("rng")
    viewed = view_op(rng)
    fgraph = FunctionGraph([rng], [ptr.normal(rng=viewed)])
    assert make_inplace(fgraph) == [False]
    fgraph = FunctionGraph([rng], [ptr.normal(rng=viewed)], features=[Supervisor([])])
    assert make_inplace(fgraph) == [True]
    # the viewed input is read by a second draw: overwriting it would change that draw
    twice = FunctionGraph(
        [rng], [ptr.normal(rng=viewed), ptr.uniform(rng=rng)], features=[Supervisor([])]
    )
    assert not any(rng_is_destroyable(twice, node) for node in rv_nodes(twice))
    assert make_inplace(twice) == [False, False]


def test_rewrite_leaves_inplace_nodes_alone():
    rng = random_generator_type("rng")
    x = ptr.normal(rng=rng)
    fgraph = FunctionGraph([rng], [x], features=[Supervisor([])])
    make_inplace(fgraph)
    node = rv_nodes(fgraph)[0]
    assert local_random_make_inplace.transform(fgraph, node) is None


def test_shared_generator_with_default_update_gives_numpys_sequence():
    rng = arignote.shared(np.random.default_rng(17))
    next_rng, x = ptr.normal(size=2, rng=rng, return_next_rng=True)
    y = ptr.poisson(4.0, size=3, rng=next_rng)
    rng.default_update = y.owner.outputs[0]
    f = arignote.function([], [x, y])
    reference = np.random.default_rng(17)
    for _ in range(3):
        got_x, got_y = f()
        np.testing.assert_array_equal(got_x, reference.normal(size=2))
        np.testing.assert_array_equal(got_y, reference.poisson(4.0, size=3))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_values_are_the_same_in_every_mode(mode):
    rng = random_generator_type("rng")
    draws, state = [], rng
    for name in ("normal", "gamma", "uniform", "beta"):
        args = (2.0, 3.0) if name in ("beta", "uniform") else (2.0,)
        state, draw = getattr(ptr, name)(*args, size=3, rng=state, return_next_rng=True)
        draws.append(draw)
    got = arignote.function([rng], draws, mode=mode)(np.random.default_rng(5))
    expected = arignote.function([rng], draws, mode=NO_REWRITES)(np.random.default_rng(5))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_mutable_input_gives_numpys_draws():
    """In(rng, mutable=True) compiles; whether the input is then overwritten is up to the
    compile layer telling the rewrite (update_mapping or a Supervisor), see the tests above."""
    rng = random_generator_type("rng")
    f = arignote.function([arignote.In(rng, mutable=True)], ptr.normal(size=3, rng=rng))
    np.testing.assert_array_equal(
        f(np.random.default_rng(3)), np.random.default_rng(3).normal(size=3)
    )
