"""Convolutions (``arignote.tensor.conv``): ``conv2d``, ``conv3d``, ``conv2d_transpose`` and
the ops behind them (``abstract_conv``), with NumPy im2col kernels (``kernels``)."""

from arignote.tensor.conv.abstract_conv import *
