"""Theano's original ``tensor.nnet.conv.conv2d`` signature (``image_shape``, ``filter_shape``,
"valid" or "full" borders, ``subsample``), computed by the current convolution op."""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Variable
from arignote.tensor.conv.abstract_conv import conv2d as _conv2d


def conv2d(
    input: Any,
    filters: Any,
    image_shape: Any = None,
    filter_shape: Any = None,
    border_mode: str = "valid",
    subsample: Any = (1, 1),
    **kargs: Any,
) -> Variable:
    """The 2-D convolution (filters flipped) of ``input`` (batch, channels, rows, columns) with
    ``filters`` (out_channels, channels, rows, columns), border "valid" or "full".

    The tuning arguments of Theano's C implementation (``unroll_batch``, ``unroll_kern``,
    ``imshp_logical``, ...) are accepted and have no effect.
    """
    if border_mode not in ("valid", "full"):
        raise ValueError(
            f"nnet.conv.conv2d: border_mode must be 'valid' or 'full', got {border_mode!r}"
        )
    return _conv2d(
        input,
        filters,
        input_shape=image_shape,
        filter_shape=filter_shape,
        border_mode=border_mode,
        subsample=subsample,
    )


__all__ = ["conv2d"]
