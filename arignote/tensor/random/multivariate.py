"""Distributions with vector parameters or vector draws, and draws from given items.

``multivariate_normal``, ``dirichlet``, ``multinomial`` and ``multivariate_hypergeometric``
draw vectors; ``categorical`` draws indices from probability vectors; ``choice``,
``permutation`` and ``permuted`` pick or shuffle given items. Where NumPy's method accepts only
one parameter vector, a batch of parameters is drawn one entry at a time in C order (see
:func:`~arignote.tensor.random.op.draw_batched`), which keeps the numbers reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.scalar.basic import discrete_dtypes
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    get_scalar_constant_value,
)
from arignote.tensor.lapack_checks import require_finite
from arignote.tensor.math import cast
from arignote.tensor.random.op import (
    RandomVariable,
    draw_batched,
    draw_function,
    has_batch_dims,
    static_size,
)
from arignote.tensor.random.type import is_none_const

_INTEGER_DTYPES = frozenset(discrete_dtypes) - {"bool"}


class MvNormalRV(RandomVariable):
    """Multivariate normal draws, ``Generator.multivariate_normal(mean, cov, size, ...)``.

    Batched ``mean``/``cov`` are drawn one batch entry at a time, in C order.
    """

    __props__ = (
        "name",
        "ndim_supp",
        "ndims_params",
        "dtype",
        "inplace",
        "check_valid",
        "tol",
        "method",
    )
    name = "multivariate_normal"
    ndim_supp = 1
    ndims_params = (1, 2)

    def __init__(
        self,
        *args: Any,
        check_valid: str = "warn",
        tol: float = 1e-8,
        method: str = "svd",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError(
                f"check_valid must be 'warn', 'raise' or 'ignore', got {check_valid!r}"
            )
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError(f"method must be 'svd', 'eigh' or 'cholesky', got {method!r}")
        self.check_valid = check_valid
        self.tol = float(tol)
        self.method = method

    def make_node(self, rng: Any, size: Any, *params: Any) -> Apply:
        node = super().make_node(rng, size, *params)
        mean, cov = node.inputs[2:]
        lengths = {mean.type.shape[-1], cov.type.shape[-1], cov.type.shape[-2]} - {None}
        if len(lengths) > 1:
            raise ValueError(
                f"{self}: mean {mean.type} and cov {cov.type} must have the same length k and "
                "cov must be k x k"
            )
        return node

    def _static_supp_from_core(self, params):
        mean, cov = params
        return (mean.type.shape[-1] if mean.type.shape[-1] is not None else cov.type.shape[-1],)

    def rng_fn(self, rng, mean, cov, size):
        def draw(m, c, size=None):
            if self.method == "svd":  # (LAPACK's gesdd loops forever on an infinity)
                require_finite("SVD", np.asarray(c))
            return rng.multivariate_normal(
                m, c, size=size, check_valid=self.check_valid, tol=self.tol, method=self.method
            )

        if has_batch_dims((mean, cov), self.ndims_params):
            return draw_batched(draw, (mean, cov), self.ndims_params, size)
        return draw(mean, cov, size)


class DirichletRV(RandomVariable):
    """Dirichlet draws, ``Generator.dirichlet(alpha, size)``; batched ``alpha`` in C order."""

    name = "dirichlet"
    ndim_supp = 1
    ndims_params = (1,)

    def rng_fn(self, rng, alpha, size):
        if has_batch_dims((alpha,), self.ndims_params):
            return draw_batched(rng.dirichlet, (alpha,), self.ndims_params, size)
        return rng.dirichlet(alpha, size=size)


class MultinomialRV(RandomVariable):
    """Multinomial counts, ``Generator.multinomial(n, pvals, size)`` (NumPy broadcasts)."""

    name = "multinomial"
    ndim_supp = 1
    ndims_params = (0, 1)
    dtype = "int64"

    def _static_supp_from_core(self, params):
        return (params[1].type.shape[-1],)

    def _symbolic_supp_shape(self, params, param_shapes):
        return (param_shapes[1][-1],)


class MultivariateHypergeometricRV(RandomVariable):
    """Counts per color, ``Generator.multivariate_hypergeometric(colors, nsample, size)``.

    Batched parameters are drawn one batch entry at a time, in C order.
    """

    __props__ = ("name", "ndim_supp", "ndims_params", "dtype", "inplace", "method")
    name = "multivariate_hypergeometric"
    ndim_supp = 1
    ndims_params = (1, 0)
    dtype = "int64"

    def __init__(self, *args: Any, method: str = "marginals", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if method not in ("marginals", "count"):
            raise ValueError(f"method must be 'marginals' or 'count', got {method!r}")
        self.method = method

    def rng_fn(self, rng, colors, nsample, size):
        def draw(c, n, size=None):
            return rng.multivariate_hypergeometric(c, int(n), size=size, method=self.method)

        if has_batch_dims((colors, nsample), self.ndims_params):
            return draw_batched(draw, (colors, nsample), self.ndims_params, size)
        return draw(colors, nsample, size)


class CategoricalRV(RandomVariable):
    """Category indices drawn with probabilities ``p`` (last axis).

    The numbers are those of ``Generator.choice(k, size, p=p)``: one ``Generator.random``
    uniform per draw, located in the cumulative probabilities normalized by their total. A
    batch of probability vectors (``p`` of ndim > 1) follows the same rule row by row, with the
    uniforms drawn at once, in C order, by ``Generator.random(batch_shape)``.
    """

    name = "categorical"
    ndims_params = (1,)
    dtype = "int64"

    def rng_fn(self, rng, p, size):
        p = np.asarray(p)
        if p.ndim == 1:
            return rng.choice(p.shape[0], size=size, p=p)
        probabilities = np.asarray(p, dtype="float64")
        _check_probabilities(self, probabilities, p.dtype)
        batch = size if size is not None else probabilities.shape[:-1]
        cdf = np.cumsum(probabilities, axis=-1)
        cdf /= cdf[..., -1:]
        uniforms = rng.random(batch)
        # searchsorted(cdf, u, side="right") for every row: the count of cdf entries <= u.
        return np.sum(np.broadcast_to(cdf, (*batch, cdf.shape[-1])) <= uniforms[..., None], -1)


def _check_probabilities(op: RandomVariable, p: np.ndarray, dtype: np.dtype) -> None:
    """The checks ``Generator.choice`` makes on ``p``, applied to every probability vector."""
    atol = np.sqrt(np.finfo(np.float64).eps)
    if np.issubdtype(dtype, np.floating):
        atol = max(atol, np.sqrt(np.finfo(dtype).eps))
    totals = p.sum(axis=-1)
    if np.any(np.isnan(totals)):
        raise ValueError(f"{op}: probabilities contain NaN")
    if np.any(p < 0):
        raise ValueError(f"{op}: probabilities are not non-negative")
    if np.any(np.abs(totals - 1.0) > atol):
        raise ValueError(f"{op}: probabilities do not sum to 1")


class ChoiceRV(RandomVariable):
    """Items of ``a`` (or of ``range(a)`` for an integer) picked by ``Generator.choice``.

    Inputs are ``(rng, size, a, p)`` with ``p`` possibly ``NoneConst``. NumPy's ``choice``
    does not batch its parameters: ``ndims_params`` is ``(a.ndim, 1)`` and the draw's shape is
    ``a.shape`` with dimension ``axis`` replaced by ``size``.
    """

    __props__ = (
        "name",
        "ndim_supp",
        "ndims_params",
        "dtype",
        "inplace",
        "replace",
        "axis",
        "shuffle",
    )
    name = "choice"
    dtype = None
    optional_params = (1,)

    def __init__(
        self,
        *args: Any,
        replace: bool = True,
        axis: int = 0,
        shuffle: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.replace = bool(replace)
        self.axis = int(axis)
        self.shuffle = bool(shuffle)

    def make_node(self, rng: Any, size: Any, a: Any, p: Any = None) -> Apply:
        node = super().make_node(rng, size, a, p)
        a, p = node.inputs[2:]
        if a.type.ndim != self.ndims_params[0]:
            raise ValueError(f"{self} expects a {self.ndims_params[0]}-d `a`, got {a.type}")
        if a.type.ndim == 0 and a.type.dtype not in _INTEGER_DTYPES:
            raise TypeError(f"{self}: a 0-d `a` must be an integer, got {a.type}")
        if a.type.ndim and not 0 <= self.axis < a.type.ndim:
            raise np.exceptions.AxisError(
                f"{self}: axis {self.axis} is out of range for `a` of {a.type}"
            )
        self._check_p(a, p)
        self._check_sample_fits(a, node.inputs[1])
        return node

    def _population(self, a: Variable) -> int | None:
        if a.type.ndim:
            return a.type.shape[self.axis]
        try:
            return int(get_scalar_constant_value(a))
        except NotScalarConstantError:
            return None

    def _check_p(self, a: Variable, p: Variable) -> None:
        if is_none_const(p):
            return
        if p.type.ndim != 1:
            raise ValueError(f"{self}: p must be a vector, got {p.type}")
        population = self._population(a)
        if None not in (population, p.type.shape[0]) and population != p.type.shape[0]:
            raise ValueError(f"{self}: a and p must have the same size ({population} items)")

    def _check_sample_fits(self, a: Variable, size: Variable) -> None:
        fixed = static_size(size)
        population = self._population(a)
        if self.replace or fixed is None or None in fixed or population is None:
            return
        if int(np.prod(fixed)) > population:
            raise ValueError(
                f"{self}: cannot take a larger sample ({fixed}) than the population "
                f"({population}) without replacement"
            )

    def _static_supp_shape(self, params):
        a = params[0]
        return tuple(s for d, s in enumerate(a.type.shape) if d != self.axis)

    def _symbolic_supp_shape(self, params, param_shapes):
        return tuple(s for d, s in enumerate(param_shapes[0]) if d != self.axis)

    def _assemble(self, batch, supp):
        return tuple(supp[: self.axis]) + tuple(batch) + tuple(supp[self.axis :])

    def _output_dtype(self, params):
        a = params[0]
        return "int64" if a.type.ndim == 0 else a.type.dtype

    def rng_fn(self, rng, a, p, size):
        a = int(a) if np.ndim(a) == 0 else a
        return rng.choice(
            a, size=size, replace=self.replace, p=p, axis=self.axis, shuffle=self.shuffle
        )


class ChoiceWithoutReplacement(ChoiceRV):
    """The op of ``choice(..., replace=False)``: items of ``a`` picked at most once each
    (``Generator.choice(replace=False)``). PyTensor gives this case its own op class; here it
    is ``ChoiceRV`` with ``replace`` fixed to False, so code testing
    ``isinstance(node.op, ChoiceWithoutReplacement)`` finds these draws."""

    name = "choice_without_replacement"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.pop("replace", False):
            raise ValueError("ChoiceWithoutReplacement draws without replacement")
        super().__init__(*args, replace=False, **kwargs)


class PermutationRV(RandomVariable):
    """A shuffled copy of ``x`` along ``axis`` (or of ``arange(x)``): ``Generator.permutation``.

    NumPy's ``permutation`` has no ``size``: the size input is always ``NoneConst``.
    """

    __props__ = ("name", "ndim_supp", "ndims_params", "dtype", "inplace", "axis")
    name = "permutation"
    dtype = None

    def __init__(self, *args: Any, axis: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.axis = int(axis)

    def make_node(self, rng: Any, size: Any, x: Any) -> Apply:
        if size is not None and not is_none_const(size):
            raise TypeError(f"{self} takes no size (NumPy's permutation has none)")
        node = super().make_node(rng, size, x)
        x = node.inputs[2]
        if x.type.ndim != self.ndims_params[0]:
            raise ValueError(f"{self} expects a {self.ndims_params[0]}-d x, got {x.type}")
        if x.type.ndim == 0 and x.type.dtype not in _INTEGER_DTYPES:
            raise TypeError(f"{self}: a 0-d x must be an integer, got {x.type}")
        if x.type.ndim and not 0 <= self.axis < x.type.ndim:
            raise np.exceptions.AxisError(
                f"{self}: axis {self.axis} is out of range for x of {x.type}"
            )
        return node

    def _static_supp_shape(self, params):
        (x,) = params
        if x.type.ndim:
            return x.type.shape
        try:
            return (int(get_scalar_constant_value(x)),)
        except NotScalarConstantError:
            return (None,)

    def _symbolic_supp_shape(self, params, param_shapes):
        (x,) = params
        return param_shapes[0] if x.type.ndim else (cast(x, "int64"),)

    def _output_dtype(self, params):
        return "int64" if params[0].type.ndim == 0 else params[0].type.dtype

    def rng_fn(self, rng, x, size):
        return rng.permutation(int(x) if np.ndim(x) == 0 else x, axis=self.axis)


class PermutedRV(RandomVariable):
    """``x`` with each slice along ``axis`` shuffled independently: ``Generator.permuted``.

    ``axis=None`` shuffles all the entries (the shape is kept).
    """

    __props__ = ("name", "ndim_supp", "ndims_params", "dtype", "inplace", "axis")
    name = "permuted"
    dtype = None

    def __init__(self, *args: Any, axis: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.axis = None if axis is None else int(axis)

    def make_node(self, rng: Any, size: Any, x: Any) -> Apply:
        if size is not None and not is_none_const(size):
            raise TypeError(f"{self} takes no size (NumPy's permuted has none)")
        node = super().make_node(rng, size, x)
        x = node.inputs[2]
        if x.type.ndim != self.ndims_params[0] or x.type.ndim == 0:
            raise ValueError(f"{self} expects a {self.ndims_params[0]}-d array (ndim >= 1)")
        if self.axis is not None and not 0 <= self.axis < x.type.ndim:
            raise np.exceptions.AxisError(
                f"{self}: axis {self.axis} is out of range for x of {x.type}"
            )
        return node

    def _static_supp_shape(self, params):
        return params[0].type.shape

    def _symbolic_supp_shape(self, params, param_shapes):
        return param_shapes[0]

    def _output_dtype(self, params):
        return params[0].type.dtype

    def rng_fn(self, rng, x, size):
        # NumPy shuffles the slices in the order of x's memory: a C-ordered copy makes the
        # draws depend on the values only (a Fortran-ordered x gave other draws)
        return rng.permuted(np.ascontiguousarray(x), axis=self.axis)


multivariate_normal_rv = MvNormalRV()
dirichlet_rv = DirichletRV()
multinomial_rv = MultinomialRV()
multivariate_hypergeometric_rv = MultivariateHypergeometricRV()
categorical_rv = CategoricalRV()


def _normalized_axis(axis: int, ndim: int, what: str) -> int:
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(f"{what}: axis {axis} is out of range for {ndim} dimensions")
    return axis % max(ndim, 1)


@draw_function
def multivariate_normal(
    mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd", **kwargs
):
    """Multivariate normal draws, ``Generator.multivariate_normal``.

    Batched parameters (``mean`` of ndim > 1 or ``cov`` of ndim > 2) are drawn one batch entry
    at a time, in C order.

    Parameters
    ----------
    mean : array_like, (..., k)
        Mean vector(s).
    cov : array_like, (..., k, k)
        Covariance matrix (symmetric, positive semi-definite).
    check_valid : {"warn", "raise", "ignore"}
        What NumPy does when ``cov`` is not positive semi-definite.
    tol : float
        Tolerance of that check.
    method : {"svd", "eigh", "cholesky"}
        The factorization NumPy uses (it changes the numbers).
    """
    if (check_valid, tol, method) == ("warn", 1e-8, "svd"):
        op = multivariate_normal_rv
    else:
        op = MvNormalRV(check_valid=check_valid, tol=tol, method=method)
    return op(mean, cov, size=size, **kwargs)


@draw_function
def dirichlet(alpha, size=None, **kwargs):
    """Dirichlet draws, ``Generator.dirichlet``; batched ``alpha`` is drawn in C order.

    Parameters
    ----------
    alpha : array_like, (..., k)
        Positive concentration parameters.
    """
    return dirichlet_rv(alpha, size=size, **kwargs)


@draw_function
def multinomial(n, pvals, size=None, **kwargs):
    """Multinomial counts, ``Generator.multinomial``.

    Parameters
    ----------
    n : array_like of int
        Number of trials.
    pvals : array_like, (..., k)
        Probabilities of the k outcomes (summing to 1).
    """
    return multinomial_rv(n, pvals, size=size, **kwargs)


@draw_function
def multivariate_hypergeometric(colors, nsample, size=None, method="marginals", **kwargs):
    """Counts per color of a draw without replacement, ``Generator.multivariate_hypergeometric``.

    Parameters
    ----------
    colors : array_like of int, (..., k)
        Number of items of each color.
    nsample : array_like of int
        Number of items drawn.
    method : {"marginals", "count"}
        NumPy's algorithm (it changes the numbers).
    """
    if method == "marginals":
        op = multivariate_hypergeometric_rv
    else:
        op = MultivariateHypergeometricRV(method=method)
    return op(colors, nsample, size=size, **kwargs)


@draw_function
def categorical(p, size=None, **kwargs):
    """Category indices ``0..k-1`` drawn with probabilities ``p`` along its last axis.

    The numbers are those of ``Generator.choice(k, size, p=p)``; a batch of probability
    vectors uses the same rule (one ``Generator.random`` uniform per draw and the normalized
    cumulative probabilities), see :class:`CategoricalRV`.

    Parameters
    ----------
    p : array_like, (..., k)
        Probabilities (non-negative, summing to 1).
    """
    return categorical_rv(p, size=size, **kwargs)


@draw_function
def choice(a, size=None, replace=True, p=None, axis=0, shuffle=True, **kwargs):
    """Items picked from ``a``, ``Generator.choice``.

    Parameters
    ----------
    a : int or array_like
        The items (along ``axis``), or ``range(a)`` for an integer.
    replace : bool
        Whether an item may be picked more than once.
    p : array_like, optional
        Probabilities of the items (uniform when None).
    axis : int
        The axis of ``a`` along which items are picked.
    shuffle : bool
        Whether the picks are shuffled when ``replace=False``.
    """
    a = as_tensor_variable(a)
    axis = _normalized_axis(axis, a.type.ndim, "choice")
    op_class = ChoiceRV if replace else ChoiceWithoutReplacement
    op = op_class(
        ndim_supp=max(a.type.ndim - 1, 0),
        ndims_params=(a.type.ndim, 1),
        replace=replace,
        axis=axis,
        shuffle=shuffle,
    )
    return op(a, p, size=size, **kwargs)


@draw_function
def permutation(x, axis=0, **kwargs):
    """A shuffled copy of ``x`` along ``axis``, or a permutation of ``range(x)``.

    The numbers are those of ``Generator.permutation``; there is no ``size`` argument.

    Parameters
    ----------
    x : int or array_like
        What to shuffle.
    axis : int
        The axis along which ``x`` is shuffled.
    """
    x = as_tensor_variable(x)
    axis = _normalized_axis(axis, x.type.ndim, "permutation")
    op = PermutationRV(ndim_supp=max(x.type.ndim, 1), ndims_params=(x.type.ndim,), axis=axis)
    return op(x, **kwargs)


@draw_function
def permuted(x, axis=None, **kwargs):
    """``x`` with its slices along ``axis`` shuffled independently, ``Generator.permuted``.

    Parameters
    ----------
    x : array_like
        What to shuffle (at least 1-d).
    axis : int, optional
        The axis of the slices; None shuffles all entries.
    """
    x = as_tensor_variable(x)
    if axis is not None:
        axis = _normalized_axis(axis, x.type.ndim, "permuted")
    op = PermutedRV(ndim_supp=x.type.ndim, ndims_params=(x.type.ndim,), axis=axis)
    return op(x, **kwargs)


__all__ = [
    "CategoricalRV",
    "ChoiceRV",
    "ChoiceWithoutReplacement",
    "DirichletRV",
    "MultinomialRV",
    "MultivariateHypergeometricRV",
    "MvNormalRV",
    "PermutationRV",
    "PermutedRV",
    "categorical",
    "categorical_rv",
    "choice",
    "dirichlet",
    "dirichlet_rv",
    "multinomial",
    "multinomial_rv",
    "multivariate_hypergeometric",
    "multivariate_hypergeometric_rv",
    "multivariate_normal",
    "multivariate_normal_rv",
    "permutation",
    "permuted",
]
