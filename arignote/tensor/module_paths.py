"""PyTensor's module paths for names that arignote defines in another module.

PyTensor keeps ``alloc``, ``stack`` or ``Join`` in ``pytensor.tensor.basic`` and ``sum`` or
``dot`` in ``pytensor.tensor.math``; arignote defines them in family modules that sit *above*
``basic`` and ``math`` in the layer order, so those modules cannot import them. This module,
loaded last by ``arignote.tensor``, binds the names at PyTensor's paths too, so that
``from arignote.tensor.basic import alloc`` works as ``from pytensor.tensor.basic import alloc``.
"""

from importlib import import_module
from types import ModuleType

# By module path: ``arignote.tensor.shape`` as an attribute is the ``shape`` function.
basic, extra_ops, math, shape, special, subtensor = (
    import_module(f"arignote.tensor.{name}")
    for name in ("basic", "extra_ops", "math", "shape", "special", "subtensor")
)

# module -> names it also holds, each taken from the arignote.tensor namespace
PYTENSOR_PATHS: dict[ModuleType, tuple[str, ...]] = {
    basic: [
        "ARange",
        "Alloc",
        "AllocDiag",
        "AllocEmpty",
        "Choose",
        "ExtractDiag",
        "Eye",
        "Join",
        "Nonzero",
        "Split",
        "alloc",
        "arange",
        "as_tensor",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "cast",
        "choose",
        "concatenate",
        "diag",
        "diagonal",
        "empty",
        "empty_like",
        "expand_dims",
        "eye",
        "fill",
        "flatten",
        "full",
        "full_like",
        "identity",
        "identity_like",
        "join",
        "matrix_transpose",
        "moveaxis",
        "nonzero",
        "ones",
        "ones_like",
        "roll",
        "second",
        "split",
        "stack",
        "swapaxes",
        "switch",
        "take_along_axis",
        "tile",
        "trace",
        "transpose",
        "tri",
        "tril",
        "triu",
        "where",
        "zeros",
        "zeros_like",
    ],
    math: [
        "All",
        "Argmax",
        "Dot",
        "Max",
        "Min",
        "Prod",
        "Sum",
        "all",
        "allclose",
        "any",
        "argmax",
        "argmin",
        "dot",
        "matmul",
        "max",
        "max_and_argmax",
        "mean",
        "min",
        "outer",
        "prod",
        "ptp",
        "std",
        "sum",
        "tensordot",
        "var",
    ],
    extra_ops: [
        "Unique",
        "bincount",
        "broadcast_arrays",
        "broadcast_shape",
        "broadcast_to",
        "diff",
        "linspace",
        "searchsorted",
        "squeeze",
        "unique",
    ],
    shape: ("Reshape", "reshape"),
    special: ("xlog1py", "xlogy"),
    subtensor: ("advanced_subtensor", "flip", "take"),
}


def bind_pytensor_paths(namespace: dict) -> None:
    """Bind each listed name, taken from ``namespace``, on its PyTensor module."""
    for module, names in PYTENSOR_PATHS.items():
        for name in names:
            if not hasattr(module, name):
                setattr(module, name, namespace[name])
