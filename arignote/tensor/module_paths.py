"""PyTensor's module paths for names that arignote defines in another module.

PyTensor keeps ``alloc``, ``stack`` or ``Join`` in ``pytensor.tensor.basic`` and ``sum`` or
``dot`` in ``pytensor.tensor.math``; arignote defines them in family modules that sit *above*
``basic`` and ``math`` in the layer order, so those modules cannot import them. This module,
loaded last by ``arignote.tensor``, serves the names at PyTensor's paths too (through a module
``__getattr__``), so that ``from arignote.tensor.basic import alloc`` works as
``from pytensor.tensor.basic import alloc``.
"""

from collections.abc import Callable, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

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


def _module_getattr(module: ModuleType, namespace: dict, names: Sequence[str]) -> Callable:
    """A module ``__getattr__`` (PEP 562) serving ``names`` from ``namespace``.

    Attribute access from outside (``from arignote.tensor.math import sum``) finds them, while
    the module's own code keeps seeing Python's builtins (``sum``, ``any``, ``max``...), which
    binding the names into the module's globals would shadow.
    """
    served = {name: namespace[name] for name in names}
    previous = module.__dict__.get("__getattr__")

    def __getattr__(name: str) -> Any:
        if name in served:
            return served[name]
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    return __getattr__


def bind_pytensor_paths(namespace: dict) -> None:
    """Serve each listed name, taken from ``namespace``, from its PyTensor module."""
    for module, names in PYTENSOR_PATHS.items():
        missing = [name for name in names if name not in module.__dict__]
        module.__getattr__ = _module_getattr(module, namespace, missing)
