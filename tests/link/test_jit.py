"""The linker seam: linkers registered by name, JIT linkers, and pipelines built from them."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.tensor as pt
from arignote import function
from arignote.compile.mode import Mode
from arignote.graph.basic import Constant
from arignote.link.basic import LINKERS, Linker, register_linker
from arignote.link.jit import JITLinker, JITRunner
from arignote.link.vm import VMLinker
from arignote.scalar.composite import Composite


class PerformJIT(JITLinker):
    """A whole-graph 'compiler' for tests: one Python closure evaluating every perform."""

    incompatible_rewrites = ("inplace", "fusion")
    converted: list = []

    def fgraph_convert(self, fgraph, **kwargs):
        order = fgraph.toposort()
        PerformJIT.converted.append(kwargs)

        def run(*inputs):
            values = dict(zip(fgraph.inputs, inputs))
            for node in order:
                cells = [[None] for _ in node.outputs]
                args = [v.data if isinstance(v, Constant) else values[v] for v in node.inputs]
                node.op.perform(node, args, cells)
                values.update(zip(node.outputs, (c[0] for c in cells)))
            return tuple(v.data if isinstance(v, Constant) else values[v] for v in fgraph.outputs)

        return run


@pytest.fixture
def perform_jit():
    register_linker("perform_jit", PerformJIT)
    yield "perform_jit"
    LINKERS.pop("perform_jit")


def test_built_in_linkers_are_registered():
    for name in ("vm", "vm_nogc", "cvm", "py"):
        assert isinstance(LINKERS[name](), VMLinker)


def test_a_registered_jit_linker_runs_functions_and_shapes_the_pipeline(perform_jit, rng):
    x = pt.dvector("x")
    out = pt.exp(x) * 2 + pt.log(x + 3)
    f = function([x], [out, x.sum()], mode=Mode(perform_jit, "fast_run"))
    assert isinstance(f.runner, JITRunner)
    value = rng.uniform(0, 1, size=5)
    result = f(value)
    np.testing.assert_allclose(result[0], np.exp(value) * 2 + np.log(value + 3))
    assert result[1] == pytest.approx(value.sum())
    ops = [node.op for node in f.maker.fgraph.apply_nodes]
    assert not any(getattr(op, "destroy_map", None) for op in ops)  # no in-place rewrites
    assert not any(isinstance(getattr(op, "scalar_op", None), Composite) for op in ops)
    fused = function([x], out)  # the VM's pipeline still fuses
    assert any(
        isinstance(getattr(n.op, "scalar_op", None), Composite)
        for n in fused.maker.fgraph.apply_nodes
    )


def test_jit_failures_name_the_backend(perform_jit):
    x = pt.dvector("x")
    y = pt.dvector("y")
    f = function([x, y], x + y, mode=Mode(perform_jit, "fast_run"))
    with pytest.raises(ValueError) as info:
        f(np.ones(2), np.ones(3))
    assert "PerformJIT" in str(info.value.__notes__)


def test_jit_linker_passes_its_options_to_fgraph_convert():
    x = pt.dvector("x")
    PerformJIT.converted.clear()
    f = function([x], x + 1, mode=Mode(PerformJIT(option=3), "fast_run"))
    np.testing.assert_array_equal(f(np.zeros(2)), [1.0, 1.0])
    assert PerformJIT.converted == [{"option": 3}]


def test_required_rewrites_are_added_to_the_pipeline():
    class NeedsFusion(VMLinker):
        required_rewrites = ("fusion",)

    x = pt.dvector("x")
    out = pt.exp(x) * 2 + 1
    plain = function([x], out, mode=Mode(VMLinker(), "fast_compile"))
    assert len(plain.maker.fgraph.apply_nodes) > 1
    fused = function([x], out, mode=Mode(NeedsFusion(), "fast_compile"))
    assert len(fused.maker.fgraph.apply_nodes) == 1


def test_a_linker_must_implement_the_protocol():
    class Incomplete(Linker):
        pass

    x = pt.dvector("x")
    with pytest.raises(NotImplementedError, match="make_runner"):
        Incomplete().accept(function([x], x).maker.fgraph).make_runner()
    with pytest.raises(NotImplementedError, match="fgraph_convert"):
        JITLinker().fgraph_convert(None)
