"""Ops of the newest families that the JAX backend does not convert yet, with the reason.

Compiling a graph holding one in JAX mode raises :class:`UnsupportedOpError` naming the op and
its node; the Python VM and DebugMode run them. Each entry leaves this list when its
conversion is written in the family's dispatch module.
"""

from arignote.link.jax.dispatch.basic import register_unsupported

_NOT_YET = "no JAX conversion is written for this op yet (it landed after the JAX backend)"

for _name in ():
    register_unsupported(_name, _NOT_YET)
