"""Theano's oldest pooling path, ``tensor.signal.downsample.max_pool_2d``."""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Variable
from arignote.tensor.signal.pool import DownsampleFactorMaxGradGrad, pool_2d


def max_pool_2d(
    input: Any,
    ds: Any,
    ignore_border: bool | None = None,
    st: Any = None,
    padding: Any = (0, 0),
    mode: str = "max",
) -> Variable:
    """Pool the last two axes of ``input`` over ``ds`` windows (see ``pool.pool_2d``);
    ``ignore_border=None`` means False, as in Theano."""
    return pool_2d(input, ws=ds, ignore_border=ignore_border, stride=st, pad=padding, mode=mode)


__all__ = ["DownsampleFactorMaxGradGrad", "max_pool_2d"]
