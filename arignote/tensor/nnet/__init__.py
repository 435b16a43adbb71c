"""``arignote.tensor.nnet``: Theano's neural-network names, kept so that Theano programs run.

Activations and cross-entropies (thin names over the existing ops, see ``basic``), the
convolutions (``conv2d`` is the current signature, ``nnet.conv.conv2d`` the original one,
``nnet.abstract_conv`` the ops), and ``nnet.neighbours``.

A namespace (``pt.nnet.softmax``), not a family re-exported into ``arignote.tensor``: its
``softmax`` normalizes rows where ``pt.softmax`` normalizes all axes. So it has no ``__all__``.
"""

from arignote.tensor.conv.abstract_conv import conv2d, conv2d_transpose, conv3d
from arignote.tensor.nnet import abstract_conv, conv, neighbours
from arignote.tensor.nnet.basic import *
from arignote.tensor.nnet.basic import nnet_softmax as softmax
from arignote.tensor.nnet.neighbours import images2neibs, neibs2images

softmax_graph = softmax
