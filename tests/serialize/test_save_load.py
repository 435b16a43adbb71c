"""``arignote.save`` / ``arignote.load``: round trips, and the files that are refused."""

from __future__ import annotations

import json
import pickle
import zipfile
import zlib

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.graph.basic import Apply, graph_inputs
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.scalar.composite import Composite
from arignote.scan.op import Scan
from arignote.serialize import (
    FormatError,
    FormatVersionError,
    SaveError,
    UnregisteredClassError,
    UnsafeFileError,
    registry,
)
from tests.op_db import REGISTRY
from tests.op_db.core import cast_sample
from tests.test_op_db import _outputs, _symbolic

#: Entries whose op holds a Python function (a user's code): saving them is refused.
HOLD_FUNCTIONS = {"Print", "OpFromGraph[overrides]", "wrap_jax"}
#: Entries whose values are uninitialized memory: only shapes and dtypes are compared.
UNINITIALIZED = {"empty", "empty_like"}


def _first_sample(info):
    samples = info.samples(np.random.default_rng(zlib.crc32(info.name.encode())))
    return cast_sample(samples[0], info.dtypes[0])


def check_same(a, b, values: bool = True) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if values:
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), (a, b)


@pytest.mark.parametrize("info", REGISTRY, ids=lambda info: info.name)
def test_every_op_db_graph_and_function_round_trip(tmp_path, info):
    sample = _first_sample(info)
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    fn = arignote.function(symbols, outputs, on_unused_input="ignore")
    path = tmp_path / "graph.arignote"
    if info.name in HOLD_FUNCTIONS:
        with pytest.raises(SaveError, match="Python function"):
            arignote.save((symbols, outputs, fn), path)
        return
    arignote.save((symbols, outputs, fn), path)
    symbols2, outputs2, fn2 = arignote.load(path)
    recompiled = arignote.function(symbols2, outputs2, on_unused_input="ignore")
    expected = fn(*values)
    for a, b, c in zip(expected, recompiled(*values), fn2(*values)):
        check_same(a, b, info.name not in UNINITIALIZED)
        check_same(a, c, info.name not in UNINITIALIZED)


def test_a_function_keeps_its_updates_and_shared_values(tmp_path):
    x = pt.dvector("x")
    w = arignote.shared(np.array([1.0, 2.0]), name="w")
    count = arignote.shared(np.int64(0), name="count")
    step = arignote.function([x], (x * w).sum(), updates=[(w, w * 2), (count, count + 1)])
    read = arignote.function([], w.sum())
    step([1.0, 1.0])
    arignote.save({"step": step, "read": read, "w": w}, tmp_path / "f.arignote")
    loaded = arignote.load(tmp_path / "f.arignote")
    step2, read2, w2 = loaded["step"], loaded["read"], loaded["w"]
    np.testing.assert_array_equal(w2.get_value(), [2.0, 4.0])
    assert step2([1.0, 1.0]) == step([1.0, 1.0]) == 6.0
    np.testing.assert_array_equal(w2.get_value(), w.get_value())
    assert read2() == read() == 12.0  # both loaded functions use the one loaded w
    assert {v.name: int(v.get_value()) for v in step2.get_shared() if v.name == "count"} == {
        "count": 2
    }
    w2.set_value(np.zeros(2))
    assert read2() == 0.0 and read() == 12.0  # the loaded state is its own


def test_a_function_keeps_its_mode_and_its_input_options(tmp_path):
    x, y = pt.dscalars("x", "y")
    acc = arignote.In(pt.dscalar("acc"), value=1.5, update=None)
    f = arignote.function(
        [x, arignote.In(y, value=10.0, name="y"), acc],
        arignote.Out(x + y + acc.variable, borrow=True),
        mode=Mode(linker="vm", optimizer=None),
    )
    arignote.save(f, tmp_path / "f.arignote")
    g = arignote.load(tmp_path / "f.arignote")
    assert g(1.0) == f(1.0) == 12.5 and g(1.0, y=2.0) == 4.5
    assert g.maker.mode.optimizer_spec == "none"
    assert g.maker.outputs[0].borrow


def test_a_named_mode_is_saved_by_name(tmp_path):
    pytest.importorskip("numba")
    x = pt.dvector("x")
    f = arignote.function([x], pt.exp(x).sum(), mode="NUMBA")
    arignote.save(f, tmp_path / "f.arignote")
    document = json.loads(zipfile.ZipFile(tmp_path / "f.arignote").read("arignote.json"))
    assert [i["mode"] for i in document["items"] if i["kind"] == "function"] == [{"name": "NUMBA"}]
    g = arignote.load(tmp_path / "f.arignote")
    assert g.maker.mode is arignote.get_mode("NUMBA")
    assert g(np.zeros(3)) == 3.0


def test_inner_graphs_round_trip(tmp_path):
    x = pt.dvector("x")
    h, _ = arignote.scan(lambda v, acc: acc * 0.5 + v, sequences=[x], outputs_info=[pt.zeros(())])
    z = arignote.ifelse(x.sum() > 0, pt.exp(x) * 2 + 1, pt.tanh(x))
    f = arignote.function([x], [h, z], mode="FAST_RUN")
    ops = [type(n.op) for n in f.maker.fgraph.apply_nodes]
    assert Scan in ops
    assert any(
        isinstance(getattr(n.op, "scalar_op", None), Composite) for n in f.maker.fgraph.apply_nodes
    )
    arignote.save(f, tmp_path / "f.arignote")
    g = arignote.load(tmp_path / "f.arignote")
    for value in (np.array([1.0, -2.0, 3.0]), np.array([-5.0, 1.0])):
        for a, b in zip(f(value), g(value)):
            check_same(a, b)


def test_a_function_graph_round_trips(tmp_path):
    x = pt.dmatrix("x")
    fg = FunctionGraph([x], [x.T @ x + pt.sort(x, axis=0)[::-1].sum(), x.argmax()], clone=True)
    arignote.save(fg, tmp_path / "fg.arignote")
    fg2 = arignote.load(tmp_path / "fg.arignote")
    assert isinstance(fg2, FunctionGraph) and len(fg2.apply_nodes) == len(fg.apply_nodes)
    value = np.arange(12.0).reshape(3, 4) % 5
    first = arignote.function(fg.inputs, fg.outputs)(value)
    second = arignote.function(fg2.inputs, fg2.outputs)(value)
    for a, b in zip(first, second):
        check_same(a, b)


def test_random_draws_continue_from_the_saved_generator_state(tmp_path):
    srng = pt.random.RandomStream(seed=42)
    draw = arignote.function([], srng.normal(size=(3,)))  # updates the generator (default)
    draw()
    arignote.save(draw, tmp_path / "draw.arignote")
    loaded = arignote.load(tmp_path / "draw.arignote")
    for _ in range(3):
        check_same(loaded(), draw())


def test_a_deep_graph_round_trips_without_recursion(tmp_path):
    x = pt.dscalar("x")
    y = x
    for _ in range(1500):  # 3000 nodes: far past the recursion limit of a recursive walk
        y = y * 1.0001 + 1
    arignote.save(y, tmp_path / "deep.arignote")
    y2 = arignote.load(tmp_path / "deep.arignote")
    (x2,) = [v for v in graph_inputs([y2]) if v.name == "x"]
    plain = Mode(linker="vm", optimizer=None)
    assert arignote.function([x2], y2, mode=plain)(0.5) == arignote.function([x], y, mode=plain)(
        0.5
    )


# -- what cannot be saved -----------------------------------------------------------------------


def test_a_python_function_inside_an_op_is_refused():
    x = pt.dvector("x")
    doubled = arignote.compile.ops.as_op([pt.dvector], [pt.dvector])(lambda v: v * 2)(x)
    with pytest.raises(SaveError, match="Python function"):
        arignote.save(doubled, "unused.arignote")


# -- refused files ------------------------------------------------------------------------------


def _saved(tmp_path):
    x = pt.dvector("x")
    path = tmp_path / "ok.arignote"
    arignote.save(arignote.function([x], x.sum()), path)
    return path


def _rewrite_document(path, change) -> None:
    with zipfile.ZipFile(path) as archive:
        document = json.loads(archive.read("arignote.json"))
        arrays = archive.read("arrays.npz")
    change(document)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("arignote.json", json.dumps(document))
        archive.writestr("arrays.npz", arrays)


def test_a_pickle_file_is_refused(tmp_path):
    path = tmp_path / "evil.arignote"
    x = pt.dscalar("x")
    path.write_bytes(pickle.dumps(arignote.function([x], x + 1)))
    with pytest.raises(UnsafeFileError, match="pickle"):
        arignote.load(path)


def test_a_pickled_object_array_inside_the_archive_is_refused(tmp_path):
    path = _saved(tmp_path)
    with zipfile.ZipFile(path) as archive:
        document = archive.read("arignote.json")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("arignote.json", document)
        with archive.open("arrays.npz", "w") as member:
            np.savez(member, a0=np.array([object()], dtype=object))
    with pytest.raises(UnsafeFileError, match="pickled"):
        arignote.load(path)


class Halve(Op):
    """A user's op, for the registry tests."""

    __props__ = ("factor",)

    def __init__(self, factor: float = 0.5) -> None:
        self.factor = factor

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.asarray(inputs[0] * self.factor)


def test_an_unregistered_class_is_refused_until_registered(tmp_path):
    x = pt.dvector("x")
    path = tmp_path / "user.arignote"
    arignote.save(Halve(0.25)(x), path)
    with pytest.raises(UnregisteredClassError, match="register_op_class"):
        arignote.load(path)
    name = arignote.register_op_class(Halve)
    try:
        y = arignote.load(path)
        assert isinstance(y.owner.op, Halve) and y.owner.op.factor == 0.25
        (x2,) = [v for v in graph_inputs([y]) if v.name == "x"]
        np.testing.assert_array_equal(y.eval({x2: np.array([4.0])}), [1.0])
    finally:
        del registry._REGISTERED[name]


@pytest.mark.parametrize("name", ["os.system", "builtins.eval", "subprocess.Popen"])
def test_a_file_naming_any_other_class_is_refused(tmp_path, name):
    path = _saved(tmp_path)

    def rename(document):
        next(i for i in document["items"] if i["kind"] == "object")["class"] = name

    _rewrite_document(path, rename)
    with pytest.raises(UnregisteredClassError, match=name):
        arignote.load(path)


def test_a_file_naming_a_function_is_refused(tmp_path):
    path = _saved(tmp_path)
    _rewrite_document(path, lambda d: d.update(root={"$function": "builtins.eval"}))
    with pytest.raises(UnregisteredClassError, match="builtins.eval"):
        arignote.load(path)


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.95])
def test_a_truncated_file_is_refused(tmp_path, keep):
    path = _saved(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(FormatError, match="truncated or corrupted"):
        arignote.load(path)


def test_a_newer_format_version_is_refused(tmp_path):
    path = _saved(tmp_path)
    _rewrite_document(path, lambda d: d.update(version=d["version"] + 1))
    with pytest.raises(FormatVersionError, match="upgrade arignote"):
        arignote.load(path)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(format="something else"),
        lambda d: d.update(root={"$var": 10**6}),
        lambda d: d.update(root={"$eval": "1+1"}),
        lambda d: d["items"][0].update(id=7),
        lambda d: d["items"].append({"kind": "run", "id": len(d["items"])}),
    ],
    ids=["format", "reference", "tag", "numbering", "kind"],
)
def test_a_malformed_document_is_refused(tmp_path, change):
    path = _saved(tmp_path)
    _rewrite_document(path, change)
    with pytest.raises(FormatError):
        arignote.load(path)


def test_a_file_of_another_kind_is_refused(tmp_path):
    path = tmp_path / "noise.arignote"
    path.write_bytes(np.random.default_rng(0).bytes(300))
    with pytest.raises(FormatError):
        arignote.load(path)


def test_the_refusals_are_value_errors():
    # so that code catching ValueError for bad files keeps working
    for cls in (UnsafeFileError, UnregisteredClassError, FormatVersionError):
        assert issubclass(cls, FormatError) and issubclass(cls, ValueError)
    assert issubclass(SaveError, TypeError)
