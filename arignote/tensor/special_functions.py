"""Elementwise special functions of :mod:`arignote.scalar.special_more` on tensors (Bessel
functions of the second kind and scaled ones, inverse incomplete gamma and beta integrals,
``hyp2f1``, ``owens_t``); PyTensor keeps them in ``tensor.math``."""

from arignote.scalar import special_more as psm
from arignote.tensor.elemwise import Elemwise

kv = Elemwise(psm.kv)
kve = Elemwise(psm.kve)
kn = Elemwise(psm.kn)
ive = Elemwise(psm.ive)
gammaincinv = Elemwise(psm.gammaincinv)
gammainccinv = Elemwise(psm.gammainccinv)
betaincinv = Elemwise(psm.betaincinv)
hyp2f1 = Elemwise(psm.hyp2f1)
owens_t = Elemwise(psm.owens_t)

__all__ = [
    "betaincinv",
    "gammainccinv",
    "gammaincinv",
    "hyp2f1",
    "ive",
    "kn",
    "kv",
    "kve",
    "owens_t",
]
