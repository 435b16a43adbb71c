"""Modes: a linker plus a rewrite pipeline; named modes; including/excluding/requiring."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote import Mode, function, get_mode
from arignote.compile.mode import FAST_COMPILE, FAST_RUN, predefined_modes, register_mode
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.graph.rewriting.basic import node_rewriter
from arignote.graph.rewriting.db import rewrites
from arignote.link.basic import LINKERS
from arignote.link.vm import VMLinker


class Marker(Op):
    """An identity op that only the test rewrite below knows about."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].copy()

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


@node_rewriter([Marker])
def local_remove_marker(fgraph, node):
    """Marker(x) -> x (registered only by the fixture, under test-only tags)."""
    return [node.inputs[0]]


@pytest.fixture
def marker_rewrite():
    """A canonicalize rewrite (not in fast_compile) with an extra tag, removed afterwards."""
    name = "local_remove_marker_for_modes"
    rewrites.register(name, local_remove_marker, "canonicalize", "test_only_tag")
    yield name
    rewrites.remove(name)


def _ops(f):
    return sorted(str(node.op) for node in f.maker.fgraph.apply_nodes)


def _marker_count(f):
    return sum(isinstance(node.op, Marker) for node in f.maker.fgraph.apply_nodes)


def test_fast_run_applies_canonicalize_and_fast_compile_does_not(marker_rewrite):
    x = pt.dvector("x")
    out = Marker()(Marker()(x)) * 2
    assert _marker_count(function([x], out, mode="FAST_RUN")) == 0
    assert _marker_count(function([x], out, mode="FAST_COMPILE")) == 2
    for mode in ("FAST_RUN", "FAST_COMPILE", Mode("vm", None)):
        np.testing.assert_array_equal(function([x], out, mode=mode)([1.0, 2.0]), [2.0, 4.0])


def test_excluding_removes_a_rewrite_by_name_or_tag(marker_rewrite):
    x = pt.dvector("x")
    out = Marker()(Marker()(x))
    assert _marker_count(function([x], out, mode=FAST_RUN.excluding(marker_rewrite))) == 2
    assert _marker_count(function([x], out, mode=FAST_RUN.excluding("test_only_tag"))) == 2
    assert _marker_count(function([x], out, mode=FAST_RUN)) == 0


def test_requiring_keeps_only_rewrites_with_the_tag(marker_rewrite):
    x = pt.dvector("x")
    out = Marker()(Marker()(x)) + pt.constant(1.0) * 2
    f = function([x], out, mode=FAST_RUN.requiring("test_only_tag"))
    assert _marker_count(f) == 0
    assert "Elemwise{mul,no_inplace}" in _ops(f)  # constant folding did not run
    g = function([x], out, mode=FAST_RUN)
    assert "Elemwise{mul,no_inplace}" not in _ops(g)


def test_including_adds_a_phase_to_fast_compile():
    mode = FAST_COMPILE.including("stabilize")
    assert "stabilize" in {step.name for step in mode.optimizer.rewriters}
    assert "stabilize" not in {step.name for step in FAST_COMPILE.optimizer.rewriters}


def test_modes_are_values_and_derivations_do_not_change_the_original():
    derived = FAST_RUN.excluding("constant_folding")
    assert derived.exclude == ("constant_folding",)
    assert FAST_RUN.exclude == ()
    assert "exclude=('constant_folding',)" in str(derived)
    restored = pickle.loads(pickle.dumps(derived))
    assert restored.exclude == derived.exclude


def test_constant_folding_can_be_excluded():
    x = pt.dvector("x")
    out = x + pt.exp(pt.constant(0.0))
    assert len(function([x], out).maker.fgraph.apply_nodes) == 1
    kept = function([x], out, mode=FAST_RUN.excluding("constant_folding"))
    assert any("exp" in str(node.op) for node in kept.maker.fgraph.apply_nodes)
    np.testing.assert_array_equal(kept([1.0]), [2.0])


def test_mode_linkers():
    x = pt.dvector("x")
    for linker in ("vm", "vm_nogc", "py", "cvm", VMLinker(allow_gc=False)):
        f = function([x], pt.exp(x) + 1, mode=Mode(linker, "fast_run"))
        np.testing.assert_allclose(f([0.0]), [2.0])
    nogc = function([x], pt.exp(x) + 1, mode=Mode("vm_nogc"))
    assert not any(step.free for step in nogc.runner.steps)  # nothing freed during a call
    with pytest.raises(ValueError, match="Unknown linker"):
        Mode("gpu")
    with pytest.raises(TypeError, match="optimizer must be"):
        Mode("vm", 3)
    with pytest.raises(ValueError, match="Unknown rewrite pipeline"):
        function([x], x + 1, mode=Mode("vm", "o5"))


def test_get_mode():
    assert get_mode("FAST_RUN") is FAST_RUN
    assert get_mode(FAST_COMPILE) is FAST_COMPILE
    default = get_mode(None)  # config.mode is "Mode": config.linker + config.optimizer
    assert default is get_mode("Mode")
    assert (default.linker_spec, default.optimizer_spec) == ("auto", "fast_run")
    with arignote.config.change_flags(mode="FAST_COMPILE"):
        assert get_mode(None) is FAST_COMPILE
        x = pt.dvector("x")
        assert function([x], x + 1).maker.mode is FAST_COMPILE
    with pytest.raises(ValueError, match="Unknown mode 'FASTEST'"):
        get_mode("FASTEST")
    with pytest.raises(TypeError, match="mode must be"):
        get_mode(3)


def test_register_mode():
    custom = Mode("vm_nogc", "merge")
    register_mode("TEST_CUSTOM_MODE", custom)
    try:
        assert get_mode("TEST_CUSTOM_MODE") is custom
        x = pt.dvector("x")
        assert function([x], x + 1, mode="TEST_CUSTOM_MODE").maker.mode is custom
    finally:
        predefined_modes.pop("TEST_CUSTOM_MODE")


def test_mode_defaults_follow_config():
    with arignote.config.change_flags(linker="vm_nogc", optimizer="merge"):
        mode = Mode()
    assert (mode.linker_spec, mode.optimizer_spec) == ("vm_nogc", "merge")


def test_config_linker_and_optimizer_drive_the_default_mode():
    x = pt.dvector("x")
    out = pt.exp(x) * 1.0 + 0.0
    assert len(function([x], out).maker.fgraph.apply_nodes) == 1  # fast_run: fused
    with arignote.config.change_flags(optimizer="None", linker="vm_nogc"):
        f = function([x], out)
        assert (f.maker.mode.linker_spec, f.maker.mode.optimizer_spec) == ("vm_nogc", "None")
        assert len(f.maker.fgraph.apply_nodes) == 5  # nothing rewritten (dimshuffles included)
        assert not any(step.free for step in f.runner.steps)
        assert get_mode(None) is get_mode("Mode")  # one Mode per combination
    with arignote.config.change_flags(mode="FAST_RUN", optimizer="None"):
        assert get_mode(None) is FAST_RUN  # a named mode keeps its own pipeline
    with arignote.config.change_flags(linker="bogus"), pytest.raises(ValueError, match="linker"):
        function([x], out)


def test_clone_honours_allow_gc_and_refuses_unknown_options():
    x = pt.dvector("x")
    nogc = Mode("vm").clone(link_kwargs={"allow_gc": False}, optimizer="fast_compile")
    f = function([x], pt.exp(x) * 2 + 1, mode=nogc)
    assert nogc.optimizer_spec == "fast_compile"
    assert not any(step.free for step in f.runner.steps)
    np.testing.assert_allclose(f(np.zeros(2)), [3.0, 3.0])
    with pytest.raises(TypeError, match="unsupported options"):
        Mode("vm").clone(link_kwargs={"impl": "debug"})
    with pytest.raises(TypeError, match="unsupported options"):
        Mode("vm").clone(message="x")


def test_built_in_linkers_are_registered_through_register_linker():
    root = Path(arignote.__file__).parent
    direct = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if re.search(r"LINKERS\[[^\]]+\]\s*=", path.read_text())
    ]
    assert direct == ["link/basic.py"]  # register_linker itself: every registration uses it
    assert {"vm", "vm_nogc", "auto", "numba", "numba_tiered", "jax"} <= set(LINKERS)
