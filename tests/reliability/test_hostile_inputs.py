"""Hostile inputs (issue 14, point 6) for the ops of the op database.

Every entry's first sample is compiled once per execution path, then called with its array
arguments made empty, non-contiguous, of negative strides, Fortran-ordered, read-only,
misaligned, holding NaN or infinities, of object dtype, or masked. Each call must give what
the VM without rewrites (every op's ``perform``) gives on plain C-contiguous copies of the
same values, or raise where that raises (a clear error); object and masked arrays must be
refused with a ``TypeError`` naming the input; and no argument may be modified. The default
run takes a representative set of entries on the VM, Numba and JAX; the whole database is
slow-marked.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import arignote
from arignote.compile.mode import Mode
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.conv.abstract_conv import AbstractConv_gradInputs
from arignote.tensor.math import Dot
from tests.op_db import REGISTRY
from tests.op_db.core import cast_sample
from tests.test_op_db import _outputs, _symbolic

try:
    import jax  # noqa: F401

    HAVE_JAX = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_JAX = False
try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

REFERENCE = Mode(linker="vm", optimizer=None)
PATHS = {"VM": Mode(linker="vm", optimizer="fast_run"), "NUMBA": "NUMBA", "JAX": "JAX"}
REPRESENTATIVE = (
    "add",
    "exp",
    "true_divide",
    "switch",
    "sum",
    "max",
    "argmax",
    "cumsum",
    "dot",
    "getitem[basic]",
    "inc_subtensor[basic]",
    "reshape",
    "transpose",
    "join",
    "sort",
    "scan[rnn]",
    "ifelse",
    "random.normal",
)
#: The default run on the compiled backends (compiling for them is slow): a few of the above
BACKEND_DEFAULT = ("add", "sum", "argmax", "getitem[basic]", "random.normal")
UNINITIALIZED = {"empty", "empty_like"}
#: (entry, layout): why a rewritten path may raise (clearly) where the reference returns values
MAY_RAISE = {
    ("scan[rnn]", "empty"): "the loop-invariant dot of the weights is moved before the loop "
    "(as in PyTensor), so weights of inconsistent shapes raise even when the loop runs 0 times",
    ("map", "empty"): "the loop body is vectorized over the sequence (as in PyTensor), so a "
    "non-sequence of a length inconsistent with it raises even when the loop runs 0 times",
}
#: Paths drawing from their own generator (jax.random): shapes and dtypes only
OWN_GENERATOR = {"JAX"}
#: Paths whose compiled code cannot raise on values: NaN results where the reference raises
#: NumPy's LinAlgError for NaN or infinity in a matrix (SVD, pinv, lstsq)
NAN_FOR_LINALG_ERROR = {"JAX"}
NON_FINITE = ("nan", "inf", "-inf")
_NO_CHECK_FINITE = (
    "compiled JAX code cannot raise on values: SciPy's check_finite ValueError for a NaN or "
    "an infinity in the matrix becomes NaN results"
)
#: (path, entry): why its results for NaN or infinite inputs are checked by shape and dtype
#: only (against the reference's for finite inputs); every other layout is checked in full
NON_FINITE_UNDEFINED = {
    ("JAX", "cholesky"): _NO_CHECK_FINITE,
    ("JAX", "cho_solve"): _NO_CHECK_FINITE,
    ("JAX", "lu"): _NO_CHECK_FINITE,
    ("JAX", "lu_factor"): _NO_CHECK_FINITE,
    ("JAX", "lu_solve"): _NO_CHECK_FINITE,
    ("JAX", "qr[pivoting]"): _NO_CHECK_FINITE,
    ("JAX", "iround"): "NumPy's cast of NaN or an infinity to an integer is undefined (C's "
    "conversion: the smallest integer on x86) and XLA's gives another integer",
}


# -- the hostile versions of an argument ---------------------------------------------------------


def _noncontiguous(a: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a.copy()
    big = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), dtype=a.dtype)
    view = big[..., ::2]
    view[...] = a
    return view


def _negative_strides(a: np.ndarray) -> np.ndarray:
    flipped = a[(slice(None, None, -1),) * a.ndim].copy()
    return flipped[(slice(None, None, -1),) * a.ndim]


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


def _misaligned(a: np.ndarray) -> np.ndarray:
    if a.dtype.itemsize == 1:
        return a.copy()
    buffer = np.zeros(a.nbytes + 1, dtype=np.uint8)[1:]
    out = buffer.view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _empty(a: np.ndarray) -> np.ndarray:
    return a[:0] if a.ndim else a.copy()


def _with(value: float):
    def put(a: np.ndarray) -> np.ndarray:
        a = a.copy()
        if a.dtype.kind in "fc" and a.size:
            a.reshape(-1)[0] = value
        return a

    return put


#: name -> how an array argument is made hostile (values kept, except for empty/nan/inf)
LAYOUTS = {
    "noncontiguous": _noncontiguous,
    "negative_strides": _negative_strides,
    "fortran": np.asfortranarray,
    "readonly": _readonly,
    "misaligned": _misaligned,
    "empty": _empty,
    "nan": _with(np.nan),
    "inf": _with(np.inf),
    "-inf": _with(-np.inf),
}
REFUSED = {
    "object": lambda a: a.astype(object),
    "masked": lambda a: np.ma.masked_array(a, mask=np.zeros(a.shape, dtype=bool)),
}


# -- running -------------------------------------------------------------------------------------


def _first_sample(info):
    samples = info.samples(np.random.default_rng(zlib.crc32(info.name.encode())))
    return cast_sample(samples[0], info.dtypes[0])


def _compile(info, mode):
    sample = _first_sample(info)
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    fn = arignote.function(symbols, outputs, mode=mode, on_unused_input="ignore")
    return fn, values


def _call(fn, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return [np.array(r) for r in fn(*args)]
        except Exception as err:
            return err


def _agree(info, got, expected, case: str, values: bool = True) -> None:
    if isinstance(expected, Exception) or (not values and isinstance(got, Exception)):
        assert isinstance(got, Exception), f"{case}: values where the reference raises {expected!r}"
        assert str(got), f"{case}: an error without a message ({type(got).__name__})"
        return
    assert not isinstance(got, Exception), f"{case}: raises {type(got).__name__}: {got}"
    rtol = info.rtol if info.rtol is not None else 1e-6
    atol = info.atol if info.atol is not None else 1e-9
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, f"{case}: {g.shape} {g.dtype}"
        if info.name in UNINITIALIZED or not values:
            continue
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=case)
        else:
            np.testing.assert_array_equal(g, e, err_msg=case)


def _unchanged(before: list, after: list, case: str) -> None:
    for position, (b, a) in enumerate(zip(before, after)):
        b, a = np.asarray(b), np.asarray(a)
        same = np.array_equal(b, a, equal_nan=b.dtype.kind in "fc")
        assert same, f"{case}: input {position} was modified"


def _unsupported(err) -> bool:
    return type(err).__name__ in ("UnsupportedOpError", "DynamicShapeError")


def _nan_for_linalg_error(expected, got) -> bool:
    if not isinstance(expected, np.linalg.LinAlgError) or isinstance(got, Exception):
        return False
    inexact = [g for g in got if g.dtype.kind in "fc" and g.size]
    return bool(inexact) and all(np.isnan(g).all() for g in inexact)


def check_entry(info, path: str) -> int:
    """Every hostile case of ``info`` on ``path``; the number of cases run."""
    reference, values = _compile(info, REFERENCE)
    try:
        fn, _ = _compile(info, PATHS[path])
    except Exception as err:
        if _unsupported(err):
            pytest.skip(f"{path} cannot run {info.name}: {err}")
        raise
    plain = _call(fn, values)
    if isinstance(plain, Exception) and _unsupported(plain):
        pytest.skip(f"{path} cannot run {info.name}: {plain}")
    cases = 0
    for name, make in LAYOUTS.items():
        hostile = [make(v) for v in values]
        kept = [h.copy() for h in hostile]
        expected = _call(reference, [np.array(h, order="C") for h in kept])
        got = _call(fn, hostile)
        if (info.name, name) in MAY_RAISE and isinstance(got, Exception):
            expected = got  # a clear error (checked below), for the documented reason
        draws = path in OWN_GENERATOR and info.name.startswith("random.")
        if draws and isinstance(expected, Exception):
            # compiled JAX code cannot raise on values: a parameter out of its domain (a
            # negative scale) gives NaN draws instead of NumPy's ValueError
            expected = got
        if path in NAN_FOR_LINALG_ERROR and _nan_for_linalg_error(expected, got):
            expected = got
        compare = not draws
        if (path, info.name) in NON_FINITE_UNDEFINED and name in NON_FINITE:
            # the documented limit: shapes and dtypes of the finite inputs' results
            expected, compare = _call(reference, values), False
        _agree(info, got, expected, f"{info.name} on {path}, {name} inputs", compare)
        _unchanged(kept, hostile, f"{info.name} on {path}, {name} inputs")
        cases += 1
    for name, make in REFUSED.items():
        for position in range(len(values)):
            args = list(values)
            args[position] = make(values[position])
            with pytest.raises(TypeError, match=rf"input .*\(position {position}\).*{name}"):
                fn(*args)
            cases += 1
    return cases


def _entries(names=None):
    return [
        pytest.param(info, id=info.name)
        for info in REGISTRY
        if (names is None or info.name in names) and _has_array_inputs(info)
    ]


def _has_array_inputs(info) -> bool:
    sample = _first_sample(info)
    return any(
        isinstance(a, np.ndarray) and p not in sample.static for p, a in enumerate(sample.args)
    )


def _path(name: str) -> str:
    if name == "NUMBA" and not HAVE_NUMBA:
        pytest.skip("numba is not installed")
    if name == "JAX" and not HAVE_JAX:
        pytest.skip("jax is not installed")
    return name


@pytest.mark.parametrize("info", _entries(REPRESENTATIVE))
def test_hostile_inputs_on_representative_ops(info):
    assert check_entry(info, "VM") >= len(LAYOUTS)


@pytest.mark.parametrize("path", ["NUMBA", "JAX"])
@pytest.mark.parametrize("info", _entries(BACKEND_DEFAULT))
def test_hostile_inputs_on_the_backends(info, path):
    assert check_entry(info, _path(path)) >= len(LAYOUTS)


@pytest.mark.slow
@pytest.mark.parametrize("path", ["NUMBA", "JAX"])
@pytest.mark.parametrize("info", _entries(set(REPRESENTATIVE) - set(BACKEND_DEFAULT)))
def test_hostile_inputs_on_the_backends_more_ops(info, path):
    assert check_entry(info, _path(path)) >= len(LAYOUTS)


@pytest.mark.slow
@pytest.mark.parametrize("info", _entries())
def test_hostile_inputs_on_every_op_on_the_vm(info):
    assert check_entry(info, "VM") >= len(LAYOUTS)


@pytest.mark.slow
@pytest.mark.parametrize("path", ["NUMBA", "JAX"])
@pytest.mark.parametrize("info", _entries())
def test_hostile_inputs_on_every_op_on_the_backends(info, path):
    assert check_entry(info, _path(path)) >= len(LAYOUTS)


@pytest.mark.parametrize(("path", "name"), sorted(NON_FINITE_UNDEFINED), ids=lambda v: str(v))
def test_hostile_inputs_on_the_documented_backend_limits(path, name):
    # every layout but the documented non-finite ones is still checked in full
    (info,) = [info for info in REGISTRY if info.name == name]
    assert check_entry(info, _path(path)) >= len(LAYOUTS)


@pytest.mark.parametrize("path", ["VM", "NUMBA", "JAX"])
def test_svd_of_infinities_raises_or_gives_nan_and_never_hangs(path):
    # LAPACK's gesdd (NumPy's svd, pinv, lstsq; XLA's SVD on the CPU) looped forever on an
    # infinity: entry 233 of the every-op sweep hung there
    x, b = arignote.tensor.dmatrix("x"), arignote.tensor.dmatrix("b")
    linalg = arignote.tensor.linalg
    outputs = [*linalg.svd(x), linalg.svd(x, compute_uv=False), linalg.pinv(x)]
    outputs += linalg.lstsq(x, b)[:2]
    fn = arignote.function([x, b], outputs, mode=PATHS[_path(path)])
    for value in (np.inf, -np.inf, np.nan):
        a = np.arange(12.0).reshape(3, 4)
        a[1, 2] = value
        kept = a.copy()
        if path == "JAX":  # compiled JAX code cannot raise: NaN results instead
            results = fn(a, np.ones((3, 2)))
            assert all(np.isnan(np.asarray(r)).all() for r in results)
        else:
            with pytest.raises(np.linalg.LinAlgError, match="NaN or infinit|infs or NaNs"):
                fn(a, np.ones((3, 2)))
        np.testing.assert_array_equal(a, kept)
    finite = fn(np.arange(12.0).reshape(3, 4), np.ones((3, 2)))
    np.testing.assert_allclose(finite[3], np.linalg.svd(np.arange(12.0).reshape(3, 4))[1])


def test_numba_integer_indices_out_of_bounds_raise():
    # found by the empty inputs: numba does not check bounds, and x[i] read outside the array
    if not HAVE_NUMBA:
        pytest.skip("numba is not installed")
    x, i = arignote.tensor.dmatrix("x"), arignote.tensor.lscalar("i")
    get = arignote.function([x, i], x[i], mode="NUMBA")
    inc = arignote.function([x, i], arignote.tensor.inc_subtensor(x[i, 1:], 1.0), mode="NUMBA")
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(get(value, -2), value[0])
    for fn in (get, inc):
        for index in (2, -3):
            with pytest.raises(IndexError, match="out of bounds"):
                fn(value, index)
        with pytest.raises(IndexError, match="out of bounds"):
            fn(np.zeros((0, 3)), 0)


def test_a_masked_array_is_refused_naming_the_input():
    x = arignote.tensor.dvector("weights")
    f = arignote.function([x], x.sum())
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    with pytest.raises(TypeError, match=r"'weights'.*masked arrays \(the mask would be dropped\)"):
        f(masked)
    shared = arignote.shared(np.zeros(3))
    with pytest.raises(TypeError, match="masked"):
        shared.set_value(masked)
    assert f(masked.filled(0.0)) == 4.0


@pytest.mark.parametrize("path", ["VM", "NUMBA", "JAX"])
def test_multivariate_normal_of_an_infinite_covariance_never_hangs(path):
    # NumPy's multivariate_normal factors the covariance by SVD (gesdd): it looped forever on
    # an infinity (entry random.multivariate_normal of the every-op sweep)
    mean, cov = arignote.tensor.dvector("mean"), arignote.tensor.dmatrix("cov")
    rng = arignote.shared(np.random.default_rng(0))
    draws = arignote.tensor.random.multivariate_normal(mean, cov, rng=rng, size=(2,))
    fn = arignote.function([mean, cov], draws, mode=PATHS[_path(path)])
    bad = np.eye(3)
    bad[0, 1] = np.inf
    if path == "JAX":
        assert np.isnan(np.asarray(fn(np.zeros(3), bad))).all()
    else:
        with pytest.raises(np.linalg.LinAlgError, match="NaN or infinity"):
            fn(np.zeros(3), bad)
    assert bad[0, 1] == np.inf
    assert np.isfinite(np.asarray(fn(np.zeros(3), np.eye(3)))).all()


@pytest.mark.parametrize("path", ["VM", "NUMBA", "JAX"])
def test_blockwise_of_inconsistent_core_lengths_raises_even_for_an_empty_batch(path):
    # found by the empty inputs: no block runs in an empty batch, so perform (and the native
    # loop) returned values where NumPy's gufuncs and np.vectorize refuse the core lengths
    a, v = arignote.tensor.dtensor3("a"), arignote.tensor.dmatrix("v")
    out = Blockwise(Dot(), "(m,k),(k)->(m)")(a, v)
    fn = arignote.function([a, v], out, mode=PATHS[_path(path)])
    for batch in (0, 2):
        with pytest.raises(ValueError, match="inconsistent size for core dimension 'k': 4 vs 3"):
            fn(np.zeros((batch, 3, 4)), np.zeros((batch, 3)))
    assert np.asarray(fn(np.zeros((0, 3, 4)), np.zeros((0, 4)))).shape == (0, 3)


@pytest.mark.parametrize("path", ["VM", "NUMBA"])
def test_convolution_gradient_of_mismatched_filters_raises_even_for_an_empty_batch(path):
    # the native kernels read the output gradient through the kernel's filter count: an
    # empty batch hid a mismatch that perform refuses
    w, gy = arignote.tensor.dtensor4("w"), arignote.tensor.dtensor4("gy")
    dx = AbstractConv_gradInputs(convdim=2)(w, gy, 6, 5)
    fn = arignote.function([w, gy], dx, mode=PATHS[_path(path)])
    with pytest.raises(ValueError, match="channels|mismatch"):
        fn(np.zeros((2, 3, 3, 2)), np.zeros((0, 4, 4, 4)))
    assert np.asarray(fn(np.zeros((4, 3, 3, 2)), np.zeros((0, 4, 4, 4)))).shape == (0, 3, 6, 5)


def test_jax_unshared_convolution_keeps_an_infinite_pixel_out_of_other_taps():
    # JAX's patch extraction (a convolution with one-hot kernels) multiplied the infinity by
    # the zeros of the other taps: NaN where perform gives an infinity
    if not HAVE_JAX:
        pytest.skip("jax is not installed")
    x = arignote.tensor.dtensor4("x")
    w = arignote.tensor.tensor(dtype="float64", shape=(None,) * 6, name="w")
    out = arignote.tensor.conv.conv2d(x, w, unshared=True)
    image, kernels = np.ones((1, 1, 3, 3)), np.ones((1, 2, 2, 1, 2, 2))
    image[0, 0, 1, 1] = np.inf
    expected = arignote.function([x, w], out, mode=REFERENCE)(image, kernels)
    got = arignote.function([x, w], out, mode="JAX")(image, kernels)
    assert np.isinf(expected).all()
    np.testing.assert_array_equal(np.asarray(got), expected)
