"""Native kernels of linear algebra on stacks of matrices, through numba's ``np.linalg``
(the same LAPACK routines NumPy calls): ``Cholesky``, ``SVD``, ``QR`` (every mode),
``MatrixPinv``, ``Expm`` and ``BlockDiagonal````
(``Eigh`` and the other eigenvalue ops call LAPACK directly: :mod:`.linalg_eigen`, as do
``Det``, ``SlogDet`` and ``MatrixInverse``: :mod:`.linalg_lu`).

Errors as in ``perform``: a non-square input raises ``ValueError``; a singular matrix gives a
zero determinant (``SlogDet``: sign 0, ``-inf``) and ``MatrixInverse`` raises
``np.linalg.LinAlgError``, as does ``Cholesky`` of a matrix that is not positive definite.
Only one triangle is read where ``perform`` reads one: numba's routines read the lower one,
so the upper-triangle variants factor the transpose (real matrices only). Batch dimensions
become loops. Complex, float16 and integer inputs (computed in another dtype) stay in object
mode.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.linalg_kernels import expm, householder_qr
from arignote.link.numba.dispatch.linalg_qr import pivoted_qr_function, qr_function
from arignote.tensor.linalg.decompositions import QR, SVD, Cholesky
from arignote.tensor.linalg.least_squares import MatrixPinv
from arignote.tensor.linalg.misc import BlockDiagonal, Expm
from arignote.tensor.linalg.pivoted_qr import PivotedQR

_FLOATS = frozenset({"float32", "float64"})


def _real_floats(node: Apply) -> None:
    dtypes = {v.type.dtype for v in (*node.inputs, *node.outputs)}
    if not dtypes <= _FLOATS or len({i.type.dtype for i in node.inputs}) != 1:
        raise NotNative(type(node.op).__name__, f"dtypes {sorted(dtypes)}: real floats only")


def _batched(node: Apply, outs: list[tuple[str, str]], call: list[str], square: bool) -> str:
    """A kernel looping over the batch dimensions of ``x``: ``call`` computes ``r0, r1, ...``
    from matrix ``a`` (with ``m``, ``n``, ``k`` its sizes and their minimum); output ``j`` has
    the batch shape followed by ``outs[j][0]`` (a tuple expression) and dtype ``outs[j][1]``."""
    batch = node.inputs[0].type.ndim - 2
    lines = ["def kernel(x):", "    m, n = x.shape[-2], x.shape[-1]", "    k = min(m, n)"]
    if square:
        refusal = f"        raise np.linalg.LinAlgError('{node.op} needs square matrices')"
        lines += ["    if m != n:", refusal]
    prefix = "".join(f"x.shape[{d}], " for d in range(batch))
    for j, (core, dtype) in enumerate(outs):
        lines.append(f"    o{j} = np.empty(({prefix}) + {core}, dtype=np.{dtype})")
    indent = "    "
    for d in range(batch):
        lines.append(f"{indent}for b{d} in range(x.shape[{d}]):")
        indent += "    "
    # numba lowers no lone Ellipsis: leading integers select one matrix of the stack
    at = "".join(f"b{d}, " for d in range(batch))
    lines.append(f"{indent}a = np.ascontiguousarray(x[{at}])" if batch else f"{indent}a = x")
    lines += [indent + line for line in call]
    for j, (core, _) in enumerate(outs):
        target = f"o{j}[{at}]" if batch else f"o{j}[{'()' if core == '()' else ':'}]"
        lines.append(f"{indent}{target} = r{j}")
    lines.append(f"    return {', '.join(f'o{j}' for j in range(len(outs)))}")
    return "\n".join(lines) + "\n"


def _kernel(source: str) -> Callable:
    return compile_source(source, "kernel", {})


def _out(node: Apply, j: int = 0) -> str:
    return node.outputs[j].type.dtype


@numba_funcify.register(Cholesky)
def _cholesky(op: Cholesky, node: Apply) -> Callable:
    _real_floats(node)
    # the upper factor U of the matrix read from its upper triangle: (chol of A^T)^T, A real
    call = ["r0 = np.linalg.cholesky(a)" if op.lower else "r0 = np.linalg.cholesky(a.T).T"]
    # scipy.linalg.cholesky checks finiteness (numba's cholesky would factor NaNs)
    check = [
        "if not np.isfinite(a).all():",
        "    raise ValueError('array must not contain infs or NaNs')",
    ]
    if op.on_error == "nan":  # that matrix's factor is NaN, the others are factored
        body = ["    " + line for line in check + call]
        call = ["try:", *body, "except Exception:", "    r0 = np.full(a.shape, np.nan)"]
        check = []
    return _kernel(_batched(node, [("(m, n)", _out(node))], check + call, True))


#: An empty matrix (numba's ``np.linalg`` refuses them): NumPy's results, built here
_EMPTY = "if m == 0 or n == 0:"


@numba_funcify.register(SVD)
def _svd(op: SVD, node: Apply) -> Callable:
    _real_floats(node)
    s_empty = "    r{j} = np.zeros(0, dtype=a.dtype)"
    if not op.compute_uv:
        call = [_EMPTY, s_empty.format(j=0), "else:"]
        call += ["    r0 = np.linalg.svd(a, full_matrices=False)[1]"]
        return _kernel(_batched(node, [("(k,)", _out(node))], call, False))
    full = op.full_matrices
    outs = [
        ("(m, m)" if full else "(m, k)", _out(node, 0)),
        ("(k,)", _out(node, 1)),
        ("(n, n)" if full else "(k, n)", _out(node, 2)),
    ]
    # NumPy's full factors of an empty matrix are identities, its reduced ones empty
    u, v = ("np.eye(m)", "np.eye(n)") if full else ("np.zeros((m, k))", "np.zeros((k, n))")
    call = [_EMPTY, f"    r0 = {u}.astype(a.dtype)", s_empty.format(j=1)]
    call += [f"    r2 = {v}.astype(a.dtype)", "else:"]
    call += [f"    r0, r1, r2 = np.linalg.svd(a, full_matrices={full})"]
    return _kernel(_batched(node, outs, call, False))


def _qr_of_empty(mode: str) -> list[str]:
    """NumPy's QR factors of an empty matrix: ``Q`` the identity (complete) or empty (in
    double precision, as the factors of the others, cast when stored)."""
    if mode == "r":
        return [_EMPTY, "    r0 = np.zeros((k, n), dtype=np.float64)", "else:"]
    q = "np.eye(m)" if mode == "complete" else "np.zeros((m, k))"
    r = "(m, n)" if mode == "complete" else "(k, n)"
    return [
        _EMPTY,
        f"    r0 = {q}.astype(np.float64)",
        f"    r1 = np.zeros({r}, dtype=np.float64)",
        "else:",
    ]


def _indented(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


@numba_funcify.register(QR)
def _qr(op: QR, node: Apply) -> Callable:
    _real_floats(node)
    if op.mode == "raw":  # the Householder vectors and factors of ?geqr2, transposed as NumPy
        outs = [("(n, m)", _out(node, 0)), ("(k,)", _out(node, 1))]
        call = ["r0, r1 = householder(a)"]
        return compile_source(
            _batched(node, outs, call, False), "kernel", {"householder": householder_qr}
        )
    if op.mode == "r":
        outs, call = [("(k, n)", _out(node))], ["r0 = lapack(a)[1]"]
    elif op.mode == "reduced":
        outs, call = [("(m, k)", _out(node, 0)), ("(k, n)", _out(node, 1))], ["r0, r1 = lapack(a)"]
    else:
        outs, call = [("(m, m)", _out(node, 0)), ("(m, n)", _out(node, 1))], ["r0, r1 = lapack(a)"]
    source = _batched(node, outs, _qr_of_empty(op.mode) + _indented(call), False)
    return compile_source(source, "kernel", {"lapack": qr_function(op.mode == "complete")})


@numba_funcify.register(PivotedQR)
def _pivoted_qr(op: PivotedQR, node: Apply) -> Callable:
    if node.inputs[0].type.dtype not in _FLOATS:  # (the permutation is int32)
        raise NotNative("PivotedQR", f"dtype {node.inputs[0].type.dtype}: real floats only")
    factors = {
        "r": [("(k, n)", _out(node))],
        "reduced": [("(m, k)", _out(node, 0)), ("(k, n)", _out(node, 1))],
        "complete": [("(m, m)", _out(node, 0)), ("(m, n)", _out(node, 1))],
    }[op.mode]
    outs = [*factors, ("(n,)", "int32")]
    last = len(factors)  # the permutation's output
    empty = _qr_of_empty(op.mode)
    empty.insert(-1, f"    r{last} = np.arange(n).astype(np.int32)")  # SciPy's: no move
    names = ", ".join(f"r{j}" for j in range(last + 1))
    call = [
        # scipy.linalg.qr checks finiteness (LAPACK would factor the NaNs)
        "if not np.isfinite(a).all():",
        "    raise ValueError('array must not contain infs or NaNs')",
        f"{names} = lapack(a)" if op.mode != "r" else f"_, r0, r{last} = lapack(a)",
    ]
    source = _batched(node, outs, empty + _indented(call), False)
    return compile_source(source, "kernel", {"lapack": pivoted_qr_function(op.mode == "complete")})


@numba_funcify.register(MatrixPinv)
def _pinv(op: MatrixPinv, node: Apply) -> Callable:
    _real_floats(node)
    eps = f"np.finfo(np.{node.inputs[0].type.dtype}).eps"
    # NumPy's default cutoff (rtol=None) is max(m, n) * eps relative to the largest value
    cutoff = f"max(m, n) * {eps}" if op.cutoff is None else repr(float(op.cutoff))
    call = [f"r0 = np.linalg.pinv(a, rcond={cutoff})"]
    if op.hermitian:
        # NumPy's hermitian branch: A = V diag(w) V^T from the lower triangle (eigh), so
        # A+ = V diag(1/w) V^T over the |w| above the cutoff times the largest |w|
        call = [
            "w, v = np.linalg.eigh(a)",
            f"keep = np.abs(w) > {cutoff} * np.abs(w).max()",
            "inv = np.where(keep, 1 / np.where(keep, w, 1), 0).astype(a.dtype)",
            "r0 = np.dot(v * inv, np.ascontiguousarray(v.T))",
        ]
    return _kernel(_batched(node, [("(n, m)", _out(node))], call, False))


@numba_funcify.register(BlockDiagonal)
def _block_diagonal(op: BlockDiagonal, node: Apply) -> Callable:
    dtype = _out(node)
    args = [f"i{k}" for k in range(len(node.inputs))]
    rows = " + ".join(f"{a}.shape[0]" for a in args)
    cols = " + ".join(f"{a}.shape[1]" for a in args)
    lines = [
        f"def kernel({', '.join(args)}):",
        f"    out = np.zeros(({rows}, {cols}), dtype=np.{dtype})",
        "    r, c = 0, 0",
    ]
    for a in args:
        lines += [
            f"    out[r:r + {a}.shape[0], c:c + {a}.shape[1]] = {a}",
            f"    r += {a}.shape[0]",
            f"    c += {a}.shape[1]",
        ]
    return _kernel("\n".join(lines + ["    return out"]) + "\n")


@numba_funcify.register(Expm)
def _expm(op: Expm, node: Apply) -> Callable:
    _real_floats(node)
    source = _batched(node, [("(m, n)", _out(node))], ["r0 = expm(a)"], True)
    return compile_source(source, "kernel", {"expm": expm})
