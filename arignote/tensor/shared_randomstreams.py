"""Theano's ``tensor.shared_randomstreams.RandomStreams``: today's :class:`RandomStream` with
Theano's method signatures (``size`` first, ``avg``/``std``, ``n``/``p``, a ``dtype`` to cast
the draws to), so that programs written for Theano keep their calls."""

from __future__ import annotations

from typing import Any

from arignote.config import config
from arignote.graph.basic import Variable
from arignote.tensor.math import cast
from arignote.tensor.random import basic, multivariate
from arignote.tensor.random.utils import RandomStream


def theano_size(size: Any) -> Any:
    """Theano's ``size=()`` default means "the shape of the parameters" (None today)."""
    return None if size is None or (isinstance(size, tuple) and size == ()) else size


def as_dtype(draw: Variable, dtype: Any) -> Variable:
    return draw if dtype is None or draw.type.dtype == str(dtype) else cast(draw, dtype)


class RandomStreams(RandomStream):
    """Shared random streams with Theano's signatures; every other distribution of
    ``arignote.tensor.random`` is reachable by name, with today's signature."""

    def uniform(
        self, size: Any = (), low: Any = 0.0, high: Any = 1.0, ndim: Any = None, dtype: Any = None
    ):
        """Uniform draws on ``[low, high)`` (dtype: floatX by default)."""
        draw = self.gen(basic.uniform, low, high, size=theano_size(size))
        return as_dtype(draw, dtype or config.floatX)

    def normal(
        self, size: Any = (), avg: Any = 0.0, std: Any = 1.0, ndim: Any = None, dtype: Any = None
    ):
        """Normal draws of mean ``avg`` and deviation ``std`` (dtype: floatX by default)."""
        draw = self.gen(basic.normal, avg, std, size=theano_size(size))
        return as_dtype(draw, dtype or config.floatX)

    def binomial(
        self,
        size: Any = (),
        n: Any = 1,
        p: Any = 0.5,
        ndim: Any = None,
        dtype: Any = "int64",
        prob: Any = None,
    ):
        """Binomial draws of ``n`` trials with probability ``p`` (``prob``: its old name)."""
        p = p if prob is None else prob
        draw = self.gen(basic.binomial, n, p, size=theano_size(size))
        return as_dtype(draw, dtype)

    def random_integers(
        self, size: Any = (), low: Any = 0, high: Any = 1, ndim: Any = None, dtype: Any = "int64"
    ):
        """Integers drawn uniformly from ``[low, high]`` (both ends included)."""
        draw = self.gen(basic.integers, low, high, size=theano_size(size), endpoint=True)
        return as_dtype(draw, dtype)

    def poisson(self, size: Any = (), lam: Any = 1.0, ndim: Any = None, dtype: Any = "int64"):
        """Poisson draws of mean ``lam``."""
        return as_dtype(self.gen(basic.poisson, lam, size=theano_size(size)), dtype)

    def choice(
        self,
        size: Any = (),
        a: Any = 2,
        replace: bool = True,
        p: Any = None,
        ndim: Any = None,
        dtype: Any = "int64",
    ):
        """Draws from ``range(a)`` (or the vector ``a``), with probabilities ``p``."""
        draw = self.gen(multivariate.choice, a, size=theano_size(size), replace=replace, p=p)
        return as_dtype(draw, dtype)

    def multinomial(
        self,
        size: Any = (),
        n: Any = 1,
        pvals: Any = (0.5, 0.5),
        ndim: Any = None,
        dtype: Any = "int64",
    ):
        """Counts of ``n`` trials over the categories of ``pvals``."""
        draw = self.gen(multivariate.multinomial, n, pvals, size=theano_size(size))
        return as_dtype(draw, dtype)
