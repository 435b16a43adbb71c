"""MonitorMode (PyTensor's debugging-FAQ interface), function_dump, SymbolicInput/Output."""

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile import MonitorMode, SymbolicInput, SymbolicOutput, function_dump
from arignote.compile.debug.monitormode import detect_nan
from arignote.compile.io import In, Out


def test_post_func_finds_the_node_that_makes_a_nan():
    x = pt.dvector("x")
    y = pt.log(x) * 2
    found = []

    def detect_nan(fgraph, i, node, fn):
        for output in fn.outputs:
            if np.isnan(output[0]).any():
                found.append((i, node, [cell[0].copy() for cell in fn.inputs]))

    f = arignote.function([x], y, mode=MonitorMode(post_func=detect_nan))
    np.testing.assert_allclose(f(np.array([1.0, np.e])), [0.0, 2.0])
    assert found == []
    with np.errstate(invalid="ignore"):
        f(np.array([-1.0, 1.0]))
    assert len(found) == 1
    position, node, inputs = found[0]
    assert node in f.maker.fgraph.toposort()
    assert f.maker.fgraph.toposort().index(node) == position
    np.testing.assert_array_equal(inputs[0], [-1.0, 1.0])


def test_detect_nan_reports_the_node(capsys):
    # PyTensor's helper, at its PyTensor 3 path: MonitorMode(post_func=detect_nan)
    x = pt.dscalar("x")
    f = arignote.function([x], pt.log(x) * x, mode=MonitorMode(post_func=detect_nan))
    f(0.0)
    out = capsys.readouterr().out
    assert out.startswith("*** NaN detected ***") and "Outputs: [" in out
    f(1.0)
    assert capsys.readouterr().out == ""


def test_pre_and_post_run_in_order_around_every_node():
    x = pt.dvector()
    calls = []
    mode = MonitorMode(
        pre_func=lambda g, i, node, fn: calls.append(("pre", i, fn.outputs[0][0] is None)),
        post_func=lambda g, i, node, fn: calls.append(("post", i, fn.outputs[0][0] is None)),
        optimizer=None,
    )
    f = arignote.function([x], (x + 1) * 2, mode=mode)
    f(np.ones(3))
    n = len(f.maker.fgraph.apply_nodes)
    assert calls == [(kind, i, kind == "pre") for i in range(n) for kind in ("pre", "post")]


def test_monitor_mode_refuses_another_linker():
    with pytest.raises(ValueError):
        MonitorMode(linker="vm")


def test_function_dump_round_trip(tmp_path):
    x = pt.dvector("x")
    path = tmp_path / "dump.pkl"
    function_dump(path, [x], x**2, name="squared")
    with open(path, "rb") as file:
        arguments = pickle.load(file)
    f = arignote.function(**arguments)
    np.testing.assert_allclose(f(np.array([3.0])), [9.0])
    assert arguments["name"] == "squared"


def test_symbolic_input_and_output_are_the_bases_of_in_and_out():
    x, s = pt.dscalar("x"), pt.dscalar("s")
    assert isinstance(In(x), SymbolicInput) and isinstance(Out(x), SymbolicOutput)
    f = arignote.function([SymbolicInput(x), In(s, value=2.0)], SymbolicOutput(x * s))
    assert f(3.0) == 6.0
    with pytest.raises(TypeError):
        SymbolicInput(pt.constant(1.0))
