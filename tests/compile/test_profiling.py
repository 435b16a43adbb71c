"""Profiling: per-node and per-op counts, times, shares, memory, flops; compile phases."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote import function
from arignote.compile.compiled import ProfiledFunction
from arignote.compile.profiling import ProfileStats, as_profile
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.link.vm import VMRunner


class MatMulWithFlops(Op):
    """A matrix product that reports its flops (the Op contract's optional method)."""

    __props__ = ()

    def make_node(self, a, b):
        a, b = pt.as_tensor_variable(a), pt.as_tensor_variable(b)
        return Apply(self, [a, b], [pt.dmatrix()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] @ inputs[1]

    def infer_shape(self, fgraph, node, input_shapes):
        return [(input_shapes[0][0], input_shapes[1][1])]

    def flops(self, inputs, outputs):
        (m, k), (_, n) = inputs
        return 2 * m * k * n


def _profiled(rng, calls=3):
    a, b = pt.dmatrices("a", "b")
    out = pt.exp(MatMulWithFlops()(a, b)).sum()
    f = function([a, b], out, profile=True, name="mm")
    av, bv = rng.normal(size=(4, 5)), rng.normal(size=(5, 6))
    for _ in range(calls):
        f(av, bv)
    return f


def test_profile_counts_every_node_and_call(rng):
    f = _profiled(rng, calls=3)
    stats = f.profile
    assert isinstance(f, ProfiledFunction)
    assert isinstance(f.runner, VMRunner) and f.runner.profiler is not None
    assert stats.fct_callcount == 3
    assert stats.fct_call_time >= stats.vm_call_time > 0
    assert set(stats.apply_stats) == set(f.maker.fgraph.apply_nodes)
    assert all(s.calls == 3 for s in stats.apply_stats.values())
    assert stats.total_apply_time() <= stats.vm_call_time
    assert stats.rewriting_time > 0 and stats.linker_time > 0
    assert stats.nb_nodes == len(f.maker.fgraph.apply_nodes)


def test_profile_records_output_memory_and_flops(rng):
    stats = _profiled(rng).profile
    by_op = {type(s.node.op).__name__: s for s in stats.apply_stats.values()}
    matmul = by_op["MatMulWithFlops"]
    assert matmul.output_bytes == 4 * 6 * 8
    assert matmul.flops_per_call == 2 * 4 * 5 * 6
    assert all(s.flops_per_call is None for n, s in by_op.items() if n != "MatMulWithFlops")
    ops = stats.op_stats()
    assert ops["MatMulWithFlops"]["flops"] == 3 * 2 * 4 * 5 * 6
    assert sum(entry["calls"] for entry in ops.values()) == 3 * len(stats.apply_stats)


def test_summary_prints_readable_tables(rng):
    f = _profiled(rng)
    buffer = io.StringIO()
    f.profile.summary(file=buffer)
    text = buffer.getvalue()
    # PyTensor's sections: global (its "Message" is the function's name), Class, Ops, Apply
    assert text.startswith("Function profiling\n==================\n  Message: mm\n")
    assert "Time in 3 calls to Function.__call__" in text
    assert "Total compilation time" in text and "Rewriting time" in text
    assert "\nClass\n---\n" in text and "\nOps\n---\n" in text and "\nApply\n------\n" in text
    assert "MatMulWithFlops" in text
    assert "MFlops/s" in text
    op_table = text.split("\nOps\n---\n")[1].split("\n\n")[0].splitlines()[1:]
    shares = [float(row.split("%")[0]) for row in op_table]
    assert len(shares) == len(f.profile.op_stats())
    assert sum(shares) == pytest.approx(100, abs=0.5)
    assert float(op_table[-1].split("%")[1]) == pytest.approx(100, abs=0.1)  # cumulated


def test_summary_to_stderr(rng, capsys):
    profile = _profiled(rng, calls=1).profile
    profile.summary()  # stderr by default, as PyTensor
    assert "Function profiling" in capsys.readouterr().err
    assert profile.compile_time == profile.rewriting_time + profile.linker_time
    assert sum(profile.class_callcount().values()) == sum(profile.op_callcount().values())
    assert set(profile.op_time()) == set(profile.op_nodes())
    buffer = io.StringIO()
    profile.summary_ops(file=buffer, N=1)
    assert buffer.getvalue().startswith("Ops\n---\n") and len(buffer.getvalue().splitlines()) == 4


def test_shared_profile_accumulates_several_functions(rng):
    stats = ProfileStats(message="both")
    x = pt.dvector("x")
    f = function([x], pt.exp(x), profile=stats)
    g = function([x], pt.log(x), profile=stats)
    f(np.ones(2))
    g(np.ones(2))
    g(np.ones(2))
    assert stats.fct_callcount == 3
    assert len(stats.apply_stats) == 2
    stats.reset()
    assert stats.fct_callcount == 0 and not stats.apply_stats


def test_profile_option_forms():
    x = pt.dvector("x")
    assert function([x], x * 2, profile="named").profile.message == "named"
    assert function([x], x * 2).profile is None
    with arignote.config.change_flags(profile=True):
        assert isinstance(function([x], x * 2).profile, ProfileStats)
    assert function([x], x * 2, profile=False).profile is None
    assert as_profile(None, "n") is None
    with pytest.raises(TypeError, match="profile must be"):
        function([x], x * 2, profile=3)


def test_unprofiled_functions_use_the_plain_vm():
    x = pt.dvector("x")
    f = function([x], pt.exp(x), mode="VM")
    assert isinstance(f.runner, VMRunner) and f.runner.profiler is None
    assert not isinstance(f, ProfiledFunction)
    for _ in range(VMRunner.WARMUP_CALLS + 1):
        f(np.ones(2))
    assert f.runner.run == f.runner.generated.function  # untimed: the plain generated code


def test_profiled_functions_stay_on_the_vm_in_the_default_mode():
    x = pt.dvector("x")
    f = function([x], pt.exp(x), profile=True)
    assert isinstance(f.runner, VMRunner)  # no tiering: the profile is the VM's, per node


def test_profiled_function_errors_still_count_the_call():
    x = pt.dvector("x")
    f = function([x], x * 2, profile=True)
    with pytest.raises(TypeError):
        f("bad")
    assert f.profile.fct_callcount == 1


def test_pickled_profiled_function_starts_a_fresh_profile(rng):
    f = _profiled(rng, calls=2)
    g = pickle.loads(pickle.dumps(f))
    assert g.profile is not f.profile and g.profile.message == "mm"
    assert g.profile.fct_callcount == 0 and not g.profile.apply_stats
    assert g.profile.rewriting_time == f.profile.rewriting_time
    av, bv = rng.normal(size=(4, 5)), rng.normal(size=(5, 6))
    assert g(av, bv) == pytest.approx(f(av, bv))
    assert set(g.profile.apply_stats) == set(g.maker.fgraph.apply_nodes)
    assert f.profile.fct_callcount == 3  # the original keeps its own


def test_deep_profiled_function_pickles(rng):
    x = pt.dscalar("x")
    out = x
    for _ in range(400):
        out = pt.sin(out) * 1.001
    f = function([x], out, mode="FAST_COMPILE", profile=True)
    f(0.5)
    g = pickle.loads(pickle.dumps(f))
    assert g(0.5) == pytest.approx(f(0.5))
