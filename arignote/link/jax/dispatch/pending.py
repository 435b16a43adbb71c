"""Ops of the newest families that the JAX backend does not convert yet, with the reason.

Compiling a graph holding one in JAX mode raises :class:`UnsupportedOpError` naming the op and
its node; the Python VM and DebugMode run them. Each entry leaves this list when its
conversion is written in the family's dispatch module.
"""

from arignote.link.jax.dispatch.basic import register_unsupported

_NOT_YET = "no JAX conversion is written for this op yet (it landed after the JAX backend)"

for _name in (
    "arignote.tensor.alloc.BroadcastLength",
    "arignote.tensor.blockwise.Blockwise",
    "arignote.tensor.conv.abstract_conv.AbstractConv",
    "arignote.tensor.conv.abstract_conv.AbstractConv_gradInputs",
    "arignote.tensor.conv.abstract_conv.AbstractConv_gradWeights",
    "arignote.tensor.conv.abstract_conv.BaseAbstractConv",
    "arignote.tensor.ravel.RavelMultiIndex",
    "arignote.tensor.ravel.UnravelIndex",
    "arignote.tensor.signal.pool.AveragePoolGrad",
    "arignote.tensor.signal.pool.DownsampleFactorMaxGradGrad",
    "arignote.tensor.signal.pool.MaxPoolGrad",
    "arignote.tensor.signal.pool.Pool",
    "arignote.tensor.signal.pool.PoolBase",
):
    register_unsupported(_name, _NOT_YET)

for _name in ("Kv", "Kve", "Kn", "Ive", "GammaIncInv", "GammaIncCInv", "BetaIncInv"):
    register_unsupported(
        f"arignote.scalar.special_more.{_name}",
        "jax.scipy.special has no such function (SciPy's value cannot be traced)",
    )

register_unsupported(
    "arignote.sandbox.rng_mrg.MRGUniform",
    "Theano's MRG31k3p generator keeps int32 state advanced by Python-side updates; JAX mode "
    "draws with jax.random keys instead (use arignote.tensor.random)",
)
