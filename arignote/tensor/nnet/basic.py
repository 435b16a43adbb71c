"""Theano's ``tensor.nnet`` activations and cross-entropies, as thin names over the existing
ops: ``softmax`` is :class:`arignote.tensor.special.Softmax`, ``sigmoid`` the ``sigmoid``
elementwise op, and the cross-entropies are the plain formulas, which the stabilizing rewrites
turn into ``log_softmax`` / ``softplus`` forms when compiled.

Theano's ``softmax`` of a matrix normalizes each row: these names use ``axis=-1``.
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Variable
from arignote.tensor import math as tm
from arignote.tensor.alloc import arange
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.products import dot, tensordot
from arignote.tensor.reduction import argmax
from arignote.tensor.reduction import sum as tsum
from arignote.tensor.special import Softmax, log_softmax, softmax

sigmoid = tm.sigmoid
softplus = tm.softplus
# Theano's piecewise approximations of the sigmoid were a speed trick of its C backend; here
# the exact sigmoid is as fast, and keeps its stabilizing rewrites.
ultra_fast_sigmoid = tm.sigmoid
scalar_sigmoid = tm.sigmoid

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def hard_sigmoid(x: Any) -> Variable:
    """The piecewise-linear sigmoid ``clip(0.2 x + 0.5, 0, 1)``."""
    return tm.clip(0.2 * as_tensor_variable(x) + 0.5, 0, 1)


def softsign(x: Any) -> Variable:
    """``x / (1 + |x|)``."""
    x = as_tensor_variable(x)
    return x / (1 + tm.abs(x))


def relu(x: Any, alpha: Any = 0) -> Variable:
    """The rectifier ``max(x, 0)``; with ``alpha``, the leaky rectifier ``x`` for positive
    ``x`` and ``alpha x`` elsewhere."""
    x = as_tensor_variable(x)
    if isinstance(alpha, (int, float)) and alpha == 0:
        return tm.maximum(x, 0)
    return tm.switch(x > 0, x, alpha * x)


def elu(x: Any, alpha: Any = 1) -> Variable:
    """The exponential linear unit: ``x`` for positive ``x``, ``alpha (e^x - 1)`` elsewhere."""
    x = as_tensor_variable(x)
    return tm.switch(x > 0, x, alpha * tm.expm1(x))


def selu(x: Any) -> Variable:
    """The scaled exponential linear unit (Klambauer et al. 2017)."""
    return SELU_SCALE * elu(x, SELU_ALPHA)


def nnet_softmax(c: Any, axis: int = -1) -> Variable:
    """The softmax of each row (last axis) of ``c`` (Theano's ``nnet.softmax``)."""
    return softmax(c, axis=axis)


def logsoftmax(c: Any, axis: int = -1) -> Variable:
    """The log of the softmax of each row (last axis) of ``c``."""
    return log_softmax(c, axis=axis)


def softmax_with_bias(x: Any, b: Any) -> Variable:
    """``softmax(x + b)`` row by row, ``b`` a vector broadcast over the rows."""
    return nnet_softmax(as_tensor_variable(x) + b)


def _rows(x: Variable) -> Variable:
    return arange(x.shape[0])


def _log_probabilities(p: Variable) -> Variable:
    """``log(p)``, taken as ``log_softmax(x)`` when ``p`` is ``softmax(x)`` by rows.

    The compiled forward value is stabilized by the rewrites either way, but the gradient of
    ``log(softmax(x))`` divides by the softmax, which underflows to zero for large logits:
    Theano's dedicated cross-entropy ops avoided that, and so does building ``log_softmax``.
    """
    op = p.owner.op if p.owner is not None else None
    if isinstance(op, Softmax) and op.axis == (p.type.ndim - 1,):
        return log_softmax(p.owner.inputs[0], axis=-1)
    return tm.log(p)


def categorical_crossentropy(coding_dist: Any, true_dist: Any) -> Variable:
    """The cross-entropy of each row of ``coding_dist`` (probabilities) against ``true_dist``:
    one-hot or soft rows of the same shape, or one integer class per row."""
    coding_dist, true_dist = as_tensor_variable(coding_dist), as_tensor_variable(true_dist)
    log_p = _log_probabilities(coding_dist)
    if true_dist.type.ndim == coding_dist.type.ndim:
        return -tsum(true_dist * log_p, axis=coding_dist.type.ndim - 1)
    if true_dist.type.ndim == coding_dist.type.ndim - 1 == 1:
        return -log_p[_rows(coding_dist), true_dist]
    raise TypeError(
        f"categorical_crossentropy: true_dist {true_dist.type} must be like coding_dist "
        f"{coding_dist.type} or a vector of class indices for a matrix"
    )


def crossentropy_categorical_1hot(coding_dist: Any, true_one_of_n: Any) -> Variable:
    """``-log(coding_dist[i, true_one_of_n[i]])`` for each row ``i``."""
    coding_dist = as_tensor_variable(coding_dist)
    return -_log_probabilities(coding_dist)[_rows(coding_dist), true_one_of_n]


def binary_crossentropy(output: Any, target: Any) -> Variable:
    """``-(target log(output) + (1 - target) log(1 - output))``, elementwise.

    When ``output`` is ``sigmoid(z)`` this is :func:`sigmoid_binary_crossentropy` of ``z``,
    whose gradient stays finite where the sigmoid saturates (see ``_log_probabilities``).
    """
    output = as_tensor_variable(output)
    if output.owner is not None and output.owner.op == tm.sigmoid:
        return sigmoid_binary_crossentropy(output.owner.inputs[0], target)
    return -(target * tm.log(output) + (1.0 - target) * tm.log1p(-output))


def sigmoid_binary_crossentropy(output: Any, target: Any) -> Variable:
    """:func:`binary_crossentropy` of ``sigmoid(output)``, from the logits directly:
    ``softplus(output) - target output``, exact where the sigmoid saturates."""
    output = as_tensor_variable(output)
    return tm.softplus(output) - target * output


def crossentropy_softmax_1hot(x: Any, y_idx: Any) -> tuple[Variable, Variable]:
    """``(nll, softmax(x))`` with ``nll[i] = -log(softmax(x)[i, y_idx[i]])``."""
    x = as_tensor_variable(x)
    nll = -logsoftmax(x)[_rows(x), y_idx]
    return nll, nnet_softmax(x)


def crossentropy_softmax_1hot_with_bias(x: Any, b: Any, y_idx: Any) -> tuple[Variable, Variable]:
    """:func:`crossentropy_softmax_1hot` of ``x + b``."""
    return crossentropy_softmax_1hot(as_tensor_variable(x) + b, y_idx)


def crossentropy_softmax_argmax_1hot_with_bias(x: Any, b: Any, y_idx: Any) -> tuple:
    """``(nll, softmax, argmax)`` of ``x + b`` row by row."""
    z = as_tensor_variable(x) + b
    nll, sm = crossentropy_softmax_1hot(z, y_idx)
    return nll, sm, argmax(z, axis=-1)


def crossentropy_softmax_max_and_argmax_1hot(x: Any, y_idx: Any) -> tuple:
    """``(nll, softmax, max, argmax)`` of ``x`` row by row."""
    x = as_tensor_variable(x)
    nll, sm = crossentropy_softmax_1hot(x, y_idx)
    return nll, sm, x.max(axis=-1), argmax(x, axis=-1)


def h_softmax(
    x: Any,
    batch_size: Any,
    n_outputs: int,
    n_classes: int,
    n_outputs_per_class: int,
    W1: Any,
    b1: Any,
    W2: Any,
    b2: Any,
    target: Any = None,
) -> Variable:
    """The two-level hierarchical softmax: ``P(output) = P(class) P(output | class)``.

    Parameters
    ----------
    x : matrix (batch_size, n_hidden)
    batch_size : int or scalar
    n_outputs, n_classes, n_outputs_per_class : int
        Outputs are numbered class by class; ``n_classes * n_outputs_per_class >= n_outputs``.
    W1, b1 : (n_hidden, n_classes), (n_classes,)
        The class layer.
    W2, b2 : (n_classes, n_hidden, n_outputs_per_class), (n_classes, n_outputs_per_class)
        One output layer per class.
    target : int vector, optional
        When given, only the probability of each row's target is computed.

    Returns
    -------
    TensorVariable
        ``(batch_size, n_outputs)`` probabilities, or ``(batch_size,)`` for ``target``.
    """
    x = as_tensor_variable(x)
    class_probs = nnet_softmax(dot(x, W1) + b1)
    if target is None:
        scores = tensordot(x, W2, axes=[[1], [1]]) + b2  # (batch, class, output in class)
        within = nnet_softmax(scores)
        joint = class_probs.dimshuffle(0, 1, "x") * within
        return joint.reshape((batch_size, n_classes * n_outputs_per_class))[:, :n_outputs]
    target = as_tensor_variable(target)
    rows = _rows(x)
    classes, positions = target // n_outputs_per_class, target % n_outputs_per_class
    W2, b2 = as_tensor_variable(W2), as_tensor_variable(b2)
    scores = tsum(x.dimshuffle(0, 1, "x") * W2[classes], axis=1) + b2[classes]
    return class_probs[rows, classes] * nnet_softmax(scores)[rows, positions]


__all__ = [
    "binary_crossentropy",
    "categorical_crossentropy",
    "crossentropy_categorical_1hot",
    "crossentropy_softmax_1hot",
    "crossentropy_softmax_1hot_with_bias",
    "crossentropy_softmax_argmax_1hot_with_bias",
    "crossentropy_softmax_max_and_argmax_1hot",
    "elu",
    "h_softmax",
    "hard_sigmoid",
    "logsoftmax",
    "relu",
    "scalar_sigmoid",
    "selu",
    "sigmoid",
    "sigmoid_binary_crossentropy",
    "softmax_with_bias",
    "softplus",
    "softsign",
    "ultra_fast_sigmoid",
]
