"""``ShapeFeature``: symbolic shapes of every variable of a graph, from each op's ``infer_shape``.

With it attached, ``fgraph.shape_feature.shape_of[var]`` is a tuple of int64 0-d variables (or
constants) computing ``var.shape`` from the graph's inputs *without* computing ``var`` itself,
which is what lets the shape rewrites drop an op when only the shape of its output is needed.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Constant, Variable
from arignote.graph.features import AlreadyThere, Feature
from arignote.graph.utils import MethodNotDefined
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import cast
from arignote.tensor.shape import Shape_i
from arignote.tensor.type import TensorType


class ShapeError(ValueError):
    """An op's ``infer_shape`` returned something that is not a shape of its outputs."""


def _is_shape_i_of(entry: Variable, var: Variable) -> bool:
    owner = entry.owner
    return owner is not None and isinstance(owner.op, Shape_i) and owner.inputs[0] is var


class ShapeFeature(Feature):
    """Tracks ``shape_of[var]`` for the tensor variables of a graph.

    Shapes are computed on demand (:meth:`shape_tuple`) and cached: attaching the feature costs
    nothing, and a graph whose rewrites never ask for a shape never calls ``infer_shape``.
    """

    def on_attach(self, fgraph: Any) -> None:
        if getattr(fgraph, "shape_feature", None) is not None:
            raise AlreadyThere("a ShapeFeature is already attached")
        fgraph.shape_feature = self
        self.fgraph = fgraph
        self.shape_of: dict[Variable, tuple | None] = {}
        # var -> variables whose recorded shape mentions Shape_i(var): updated on replacement
        self.users_of_shape: dict[Variable, set] = {}

    def on_detach(self, fgraph: Any) -> None:
        self.shape_of = {}
        self.users_of_shape = {}
        fgraph.shape_feature = None

    def clone(self) -> ShapeFeature:
        return ShapeFeature()

    # -- reading ----------------------------------------------------------------------------

    def shape_tuple(self, var: Variable) -> tuple | None:
        """The symbolic shape of ``var`` (None for non-tensors), inferred if not known yet."""
        if var not in self.shape_of:
            self._infer_upto(var)
        return self.shape_of[var]

    def get_shape(self, var: Variable, i: int) -> Variable:
        return self.shape_tuple(var)[i]

    def default_shape(self, var: Variable) -> tuple | None:
        """Shape entries read off ``var`` itself: static lengths, else ``Shape_i``."""
        if not isinstance(var.type, TensorType):
            return None
        if isinstance(var, Constant):
            return tuple(_int64(s) for s in np.shape(var.data))
        return tuple(
            _int64(s) if s is not None else Shape_i(i)(var) for i, s in enumerate(var.type.shape)
        )

    def init_r(self, var: Variable) -> None:
        if var not in self.shape_of:
            self.set_shape(var, self.default_shape(var))

    def _infer_upto(self, var: Variable) -> None:
        """Infer the shapes of ``var`` and of the variables it needs (no recursion: graphs
        thousands of nodes deep are common)."""
        stack = [var]
        while stack:
            current = stack[-1]
            if current in self.shape_of:
                stack.pop()
                continue
            node = current.owner
            if node is None or not isinstance(current.type, TensorType):
                self.init_r(current)
                stack.pop()
                continue
            missing = [i for i in node.inputs if i not in self.shape_of]
            if missing:
                stack.extend(missing)
                continue
            for out, shape in zip(node.outputs, self._infer(self.fgraph, node)):
                self.set_shape(out, shape)
            stack.pop()

    # -- recording ----------------------------------------------------------------------------

    def set_shape(self, var: Variable, shape: Any) -> None:
        if shape is None or not isinstance(var.type, TensorType):
            self.shape_of[var] = (
                None if not isinstance(var.type, TensorType) else self.default_shape(var)
            )
            return
        if len(shape) != var.type.ndim:
            raise ShapeError(f"shape {shape} has {len(shape)} entries for {var} of type {var.type}")
        entries = tuple(self._entry(var, i, s) for i, s in enumerate(shape))
        self.shape_of[var] = entries
        for entry in entries:
            owner = entry.owner
            if owner is not None and isinstance(owner.op, Shape_i):
                self.users_of_shape.setdefault(owner.inputs[0], set()).add(var)

    def _entry(self, var: Variable, i: int, s: Any) -> Variable:
        static = var.type.shape[i]
        if static is not None:
            return _int64(static)
        if not isinstance(s, Variable):
            return _int64(int(s))
        s = as_tensor_variable(s)
        if s.type.ndim != 0 or s.type.dtype not in _INTEGER_DTYPES:
            raise ShapeError(f"shape entry {s} of {var} must be an integer scalar, got {s.type}")
        return cast(s, "int64")

    def _infer(self, fgraph: Any, node: Any) -> list:
        infer = getattr(node.op, "infer_shape", None)
        if infer is not None:
            try:
                shapes = infer(fgraph, node, [self.shape_of[i] for i in node.inputs])
                return self._checked(node, shapes)
            except (MethodNotDefined, NotImplementedError):
                pass
            except Exception as err:
                if config.on_rewrite_error == "raise":
                    raise
                warnings.warn(
                    f"infer_shape of {node.op} failed ({err}); its outputs will be "
                    "computed to know their shapes",
                    stacklevel=2,
                )
        return [self.default_shape(out) for out in node.outputs]

    def _checked(self, node: Any, shapes: Any) -> list:
        if not isinstance(shapes, (list, tuple)) or len(shapes) != len(node.outputs):
            raise ShapeError(
                f"{node.op}.infer_shape returned {shapes!r} for {len(node.outputs)} outputs"
            )
        return list(shapes)

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        users = self.users_of_shape.pop(var, None)
        if not users:
            return
        # Shapes recorded as Shape_i(var) should now read the replacement's shape.
        replacement = self.shape_tuple(new_var)
        for user in users:
            recorded = self.shape_of.get(user)
            if recorded is None:
                continue
            updated = tuple(
                replacement[e.owner.op.i] if _is_shape_i_of(e, var) else e for e in recorded
            )
            self.shape_of[user] = updated
            for e in updated:
                if e.owner is not None and isinstance(e.owner.op, Shape_i):
                    self.users_of_shape.setdefault(e.owner.inputs[0], set()).add(user)


_INTEGER_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _int64(value: int) -> Variable:
    return as_tensor_variable(np.int64(value))
