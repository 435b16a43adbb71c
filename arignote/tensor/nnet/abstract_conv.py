"""Theano's ``tensor.nnet.abstract_conv`` path: the convolution ops and helpers of
:mod:`arignote.tensor.conv.abstract_conv` under their old module name."""

from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    BaseAbstractConv,
    conv2d,
    conv2d_grad_wrt_inputs,
    conv2d_grad_wrt_weights,
    conv2d_transpose,
    conv3d,
    conv_output_length,
    get_conv_output_shape,
)

__all__ = [
    "AbstractConv",
    "AbstractConv_gradInputs",
    "AbstractConv_gradWeights",
    "BaseAbstractConv",
    "conv2d",
    "conv2d_grad_wrt_inputs",
    "conv2d_grad_wrt_weights",
    "conv2d_transpose",
    "conv3d",
    "conv_output_length",
    "get_conv_output_shape",
]
