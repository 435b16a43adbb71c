"""NanGuardMode: the first node producing a NaN/Inf/huge value is named, with its inputs."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.tensor as pt
from arignote import function
from arignote.compile.mode import get_mode
from arignote.compile.nanguardmode import NanGuardError, NanGuardMode
from arignote.graph.rewriting.basic import in2out, node_rewriter
from arignote.tensor.elemwise import Elemwise


@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile"])
def test_log_of_zero_names_the_log_node(optimizer):
    x = pt.dvector("x")
    mode = NanGuardMode(True, True, True, optimizer=optimizer)
    f = function([x], pt.log(x) * 2 + 1, mode=mode)
    np.testing.assert_allclose(f(np.array([1.0, np.e])), [1.0, 3.0])
    with pytest.raises(NanGuardError) as info:
        f(np.array([1.0, 0.0]))
    error = info.value
    assert "log" in str(error.node.op)  # the log node itself, or the fused node containing it
    if optimizer == "fast_compile":
        assert str(error.node.op) == "Elemwise{log,no_inplace}"
    message = str(error)
    assert "found an Inf in output 0 of" in message
    assert "the first node to produce one" in message
    assert "inputs of the node" in message
    assert "0: x = ndarray of dtype float64 and shape (2,): [1., 0.]" in message


def test_nan_is_reported_where_it_appears():
    x = pt.dvector("x")
    f = function([x], pt.sqrt(x - 1).sum(), mode="NanGuardMode")
    with pytest.raises(NanGuardError, match=r"NaN in output 0 of .*sqrt") as info:
        f(np.array([2.0, 0.0]))
    assert info.value.problem == "NaN"


def test_big_values_are_reported():
    x = pt.dvector("x")
    f = function([x], pt.exp(x), mode=NanGuardMode(big_is_error=True))
    f(np.array([1.0, 20.0]))
    with pytest.raises(NanGuardError, match="big value"):
        f(np.array([1.0, 30.0]))  # exp(30) > 1e10
    g = function([x], pt.exp(x), mode=NanGuardMode(big_is_error=False))
    assert g(np.array([30.0]))[0] > 1e10


def test_flags_turn_checks_off():
    x = pt.dvector("x")
    quiet = NanGuardMode(nan_is_error=False, inf_is_error=False, big_is_error=False)
    f = function([x], pt.log(x), mode=quiet)
    assert np.isnan(f(np.array([-1.0])))[0]
    g = function([x], pt.log(x), mode=NanGuardMode(nan_is_error=True, inf_is_error=False))
    assert np.isneginf(g(np.array([0.0])))[0]
    with pytest.raises(NanGuardError, match="NaN"):
        g(np.array([-1.0]))


def test_bad_function_input_is_reported_as_an_input():
    x = pt.dvector("x")
    f = function([x], x * 2, mode="NanGuardMode")
    with pytest.raises(NanGuardError, match="the function input x holds a NaN") as info:
        f(np.array([np.nan]))
    assert info.value.node is None


def test_integer_values_are_not_checked():
    x = pt.lvector("x")
    f = function([x], x * 10**12, mode="NanGuardMode")
    assert f(np.array([3]))[0] == 3 * 10**12


def test_tagged_variables_are_not_checked():
    x = pt.dvector("x")
    y = pt.log(x)
    y.tag.nan_guard_mode_check = False
    f = function([x], y, mode="NanGuardMode")
    assert np.isneginf(f(np.array([0.0])))[0]
    z = pt.log(x) + 1  # untagged: checked
    with pytest.raises(NanGuardError):
        function([x], z, mode="NanGuardMode")(np.array([0.0]))


@node_rewriter([Elemwise])
def local_recompute_log(fgraph, node):
    """log(x) -> log(x * 1): a new node computing the same value."""
    if str(node.op.scalar_op) != "log" or node.inputs[0].owner is not None:
        return None
    return [pt.log(node.inputs[0] * 1.0)]


def test_tag_follows_the_variable_through_rewrites():
    x = pt.dvector("x")
    y = pt.log(x)
    y.tag.nan_guard_mode_check = False
    mode = NanGuardMode(optimizer=in2out(local_recompute_log))
    f = function([x], y, mode=mode)
    assert f.maker.fgraph.outputs[0].owner.inputs[0].owner is not None  # the rewrite ran
    assert np.isneginf(f(np.array([0.0])))[0]


def test_registered_and_printable():
    mode = get_mode("NanGuardMode")
    assert isinstance(mode, NanGuardMode)
    assert "nan=True" in str(mode)


def test_complex_values_are_checked():
    z = pt.zvector("z")
    f = function([z], pt.sqrt(z) / z, mode="NanGuardMode")
    np.testing.assert_allclose(f(np.array([4.0 + 0j])), [0.5 + 0j])
    with pytest.raises(NanGuardError, match="(NaN|Inf) in output 0"):
        f(np.array([0.0 + 0j]))


def test_an_infinity_is_not_a_big_value_when_infinities_are_allowed():
    x = pt.dscalar("x")
    f = function([x], pt.exp(x), mode=NanGuardMode(inf_is_error=False, big_is_error=True))
    assert np.isinf(f(1000.0))  # exp(1000) overflows to inf: allowed, and not "big"
    with pytest.raises(NanGuardError, match="big value"):
        f(30.0)


def test_profiled_nan_guard_mode_profiles_and_guards():
    x = pt.dvector("x")
    f = function([x], pt.log(x) * 2, mode="NanGuardMode", profile=True)
    f(np.ones(2))
    assert f.profile.apply_stats  # nodes were timed
    assert all(s.calls == 1 for s in f.profile.apply_stats.values())
    with pytest.raises(NanGuardError, match="Inf in output 0"):
        f(np.zeros(2))
