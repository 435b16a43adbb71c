"""JAX versions of ``gammaln`` and ``betaln`` (``arignote/scalar/special.py``) with SciPy's
values at the poles and infinities.

``jax.scipy.special`` agrees with SciPy (Cephes) inside the domain, but not at its edges, found
by the hostile-input sweep (``tests/reliability/test_hostile_inputs.py``):

* ``gammaln(-inf)`` is ``-inf`` in Cephes' ``lgam`` (JAX: ``+inf``);
* ``betaln`` is NaN in JAX wherever ``lgamma(a) + lgamma(b) - lgamma(a + b)`` is ``inf - inf``:
  at the poles of Gamma and at ``+inf``. Cephes' ``lbeta`` checks a non-positive integer
  ``a`` (then ``b``) first: the limit ``log B(1 - a - b, b)`` is finite for a positive integer
  ``b < 1 - a`` (``B(-2, 1) = -1/2``), and every other pole is ``inf``, NaN included; a pole
  too large for C's ``int`` (``-inf``, ``-1e300``) is ``inf`` too. At ``a = +inf`` its
  asymptotic series ``lgamma(b) - b log(a)`` is ``-inf`` for a finite ``b > 0`` and ``+inf``
  for a finite ``b < 0``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
import jax.scipy.special as jsp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify
from arignote.link.jax.dispatch.scalar import _flt
from arignote.scalar.special import BetaLn, GammaLn

# the range of C's int, which Cephes casts a pole to before taking its limit
_INT_LOW, _INT_HIGH = -(2.0**31), 2.0**31
# beyond it b^4 overflows float64: the last term of Cephes' series at a = inf is inf / inf
_FOURTH_ROOT_MAX = float(np.finfo(np.float64).max ** 0.25)


def _gammaln(x: Any) -> Any:
    x = _flt(x)
    return jnp.where(x == -jnp.inf, -jnp.inf, jsp.gammaln(x))


@jax_funcify.register(GammaLn)
def jax_funcify_GammaLn(op: GammaLn, node: Apply | None = None, **kwargs: Any) -> Callable:
    return _gammaln


def _is_pole(x: Any) -> Any:
    return (x <= 0) & (x == jnp.floor(x))


def _lbeta_at_pole(other: Any, pole: Any) -> Any:
    """SciPy's ``betaln(pole, other)`` for a non-positive integer (or -inf) ``pole``: Cephes'
    ``lbeta_negint``, ``log B(1 - pole - other, other)`` for a positive integer ``other`` with
    ``1 - pole - other > 0``, else ``inf``."""
    rest = 1 - pole - other
    fits = (pole >= _INT_LOW) & (pole < _INT_HIGH)
    finite = fits & (other == jnp.floor(other)) & (other > 0) & (rest > 0)
    value = jsp.betaln(jnp.where(finite, rest, 1.0), jnp.where(finite, other, 1.0))
    return jnp.where(finite, value, jnp.inf)


def _lbeta_at_infinity(other: Any) -> Any:
    """SciPy's ``betaln(inf, other)`` off the poles of ``other``: ``-other * log(inf)`` for a
    finite ``other`` below ``_FOURTH_ROOT_MAX``, NaN beyond, for ``inf`` and for NaN."""
    signed = jnp.where(other > 0, -jnp.inf, jnp.inf)
    return jnp.where(jnp.abs(other) < _FOURTH_ROOT_MAX, signed, jnp.nan)


def _betaln(a: Any, b: Any) -> Any:
    """SciPy's ``betaln`` in Cephes' order of cases: the poles of ``a``, then of ``b``, then
    the infinities."""
    a, b = jnp.broadcast_arrays(_flt(a), _flt(b))
    dtype = jnp.result_type(a, b)
    a, b = a.astype(dtype), b.astype(dtype)
    result = jsp.betaln(a, b)
    result = jnp.where(b == jnp.inf, _lbeta_at_infinity(a), result)
    result = jnp.where(a == jnp.inf, _lbeta_at_infinity(b), result)
    result = jnp.where(_is_pole(b), _lbeta_at_pole(a, b), result)
    return jnp.where(_is_pole(a), _lbeta_at_pole(b, a), result)


@jax_funcify.register(BetaLn)
def jax_funcify_BetaLn(op: BetaLn, node: Apply | None = None, **kwargs: Any) -> Callable:
    return _betaln
