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

from arignote.tensor import derived

# By module path: ``arignote.tensor.shape`` as an attribute is the ``shape`` function.
basic, extra_ops, math, shape, special, subtensor = (
    import_module(f"arignote.tensor.{name}")
    for name in ("basic", "extra_ops", "math", "shape", "special", "subtensor")
)


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# module -> names it also holds, each taken from the arignote.tensor namespace
PYTENSOR_PATHS: dict[ModuleType, tuple[str, ...]] = {
    basic: _names(
        "ARange Alloc AllocDiag AllocEmpty Choose ExtractDiag Eye Join Nonzero Split alloc "
        "arange as_tensor atleast_1d atleast_2d atleast_3d cast choose concatenate diag "
        "diagonal empty empty_like expand_dims eye fill flatten full full_like identity "
        "identity_like join matrix_transpose moveaxis nonzero ones ones_like roll second "
        "split stack swapaxes switch take_along_axis tile trace transpose tri tril triu "
        "where zeros zeros_like "
        # arignote.tensor.derived
        "atleast_Nd flatnonzero get_underlying_scalar_constant_value get_vector_length "
        "horizontal_stack inverse_permutation is_flat nonzero_values stacklists tensor_copy "
        "tril_indices tril_indices_from triu_indices triu_indices_from vertical_stack alloc_diag "
        "ix_ mgrid ogrid extract_diag "
        # arignote.tensor.static_shape
        "infer_static_shape transfer"
    ),
    math: _names(
        "All Argmax Dot Max Min Prod Sum all allclose any argmax argmin dot matmul max "
        "max_and_argmax mean min outer prod ptp std sum tensordot var "
        # arignote.tensor.derived
        "isposinf isneginf nan_to_num floor_div ceil_intdiv iround largest smallest "
        "complex_from_polar vecdot matvec vecmat dense_dot cov median tri_gamma chi2sf gammau "
        "gammal "
        # arignote.tensor.special_functions
        "betaincinv gammainccinv gammaincinv hyp2f1 ive kn kv kve owens_t "
        # arignote.tensor.prod_without_zeros
        "MulWithoutZeros ProdWithoutZeros mul_without_zeros"
    ),
    extra_ops: _names(
        "Unique bincount broadcast_arrays broadcast_shape broadcast_to diff linspace "
        "searchsorted squeeze unique "
        # arignote.tensor.derived
        "bartlett compress fill_diagonal fill_diagonal_offset geomspace logspace to_one_hot "
        # arignote.tensor.ravel
        "RavelMultiIndex UnravelIndex ravel_multi_index unravel_index "
        # arignote.tensor.combine
        "concat_with_broadcast "
        # arignote.tensor.extra_op_classes
        "Bartlett FillDiagonal FillDiagonalOffset bartlett_ fill_diagonal_ fill_diagonal_offset_"
    ),
    shape: ("Reshape", "reshape"),
    special: ("xlog1py", "xlogy"),
    subtensor: _names(
        "advanced_subtensor flip take "
        # arignote.tensor.derived
        "advanced_subtensor1 advanced_inc_subtensor1 advanced_set_subtensor1 "
        "advanced_inc_subtensor advanced_set_subtensor basic_subtensor"
    ),
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
    """Serve each listed name, taken from ``namespace`` (or from ``derived``), from its
    PyTensor module."""
    namespace = {**vars(derived), **namespace}
    for module, names in PYTENSOR_PATHS.items():
        missing = [name for name in names if name not in module.__dict__]
        module.__getattr__ = _module_getattr(module, namespace, missing)
