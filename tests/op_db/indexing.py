"""op_db entries: indexing, set/inc of subtensors, sorting and searching.

An index is given to ``build`` and ``ref`` as a function of the index arrays (kwarg ``index``):
``index(*arrays)`` builds the same Python index from symbolic tensors and from NumPy arrays.
Integer array arguments become symbolic inputs unless listed in ``static``.
"""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register

ALL_DTYPES = (*FLOAT_DTYPES, "int64")
ANY_SUBTENSOR = (pt.Subtensor, pt.AdvancedSubtensor1, pt.AdvancedSubtensor)


def _ints(*values):
    return np.asarray(values, dtype="int64")


def _getitem(x, *arrays, index):
    return x[index(*arrays)]


def _set_ref(x, y, *arrays, index):
    out = x.copy()
    out[index(*arrays)] = y
    return out


def _inc_ref(x, y, *arrays, index):
    out = x.copy()
    np.add.at(out, index(*arrays), y)
    return out


def _set_build(x, y, *arrays, index):
    return pt.set_subtensor(x[index(*arrays)], y)


def _inc_build(x, y, *arrays, index):
    return pt.inc_subtensor(x[index(*arrays)], y)


# -- basic indexing ------------------------------------------------------------------------


def _basic_samples(rng):
    m, t = rng.normal(size=(4, 5)), rng.normal(size=(3, 4, 5))
    cases = {
        "int": (m, lambda: (1,)),
        "negative_int": (t, lambda: (-1, 2)),
        "slices": (m, lambda: (slice(1, None), slice(None, None, -2))),
        "negative_step": (t, lambda: (slice(-1, 0, -1), slice(4, None, -3))),
        "empty_slice": (m, lambda: (slice(3, 1),)),
        "newaxis_ellipsis": (t, lambda: (None, -1, ..., None)),
        "ellipsis_int": (t, lambda: (..., 2)),
        "out_of_range_slice": (m, lambda: (slice(-9, 9), slice(2, 99))),
        "vector_int": (rng.normal(size=(6,)), lambda: (3,)),
    }
    return [Sample((x,), {"index": index}, name=name) for name, (x, index) in cases.items()]


def _symbolic_bounds_samples(rng):
    m = rng.normal(size=(5, 4))
    cases = {
        "forward": (1, -1, 1),
        "step2": (-4, 5, 2),
        "backward": (-1, 0, -2),
        "backward_all": (7, -7, -1),
        "empty": (3, 1, 1),
    }
    return [
        Sample(
            (m, *_ints(*bounds)),
            {"index": lambda a, b, c: (slice(a, b, c), slice(None, b))},
            name=name,
        )
        for name, bounds in cases.items()
    ]


def _symbolic_int_samples(rng):
    t = rng.normal(size=(3, 4, 5))
    return [
        Sample((t, *_ints(1, -2)), {"index": lambda i, j: (i, slice(None), j)}, name="two"),
        Sample((t, *_ints(-3)), {"index": lambda i: (slice(1, None), i)}, name="negative"),
    ]


# -- advanced indexing ---------------------------------------------------------------------


def _advanced1_samples(rng):
    m = rng.normal(size=(5, 3))
    return [
        Sample((m, _ints(4, 0, 0, -1)), {"index": lambda i: i}, name="repeated_negative"),
        Sample((rng.normal(size=(6,)), _ints(2, 5)), {"index": lambda i: i}, name="vector"),
        Sample((m, _ints()), {"index": lambda i: (i, ...)}, name="empty"),
    ]


def _advanced_samples(rng):
    t = rng.normal(size=(3, 4, 5))
    mask = rng.random((3, 4)) > 0.5
    cases = {
        "two_arrays": ((_ints(0, 2, 2), _ints(-1, 1, 3)), lambda a, b: (a, b)),
        "slice_array": ((_ints(4, 0, 4),), lambda a: (slice(None), slice(1, 3), a)),
        "matrix_index": ((_ints(1, 0, 2, 2).reshape(2, 2),), lambda a: (slice(None), a)),
        "separated": ((_ints(0, 2), _ints(1, 4)), lambda a, b: (a, slice(None, None, -1), b)),
        "int_and_array": ((_ints(3, 1),), lambda a: (slice(None), 1, a)),
        "newaxis_between": ((_ints(0, 1), _ints(2, 3)), lambda a, b: (slice(None), a, None, b)),
        "ellipsis_between": ((_ints(0, 1), _ints(2, 3)), lambda a, b: (slice(None), a, ..., b)),
        "broadcast_arrays": ((_ints(0, 2).reshape(2, 1), _ints(1, 2, 3)), lambda a, b: (a, b)),
        "mask_2d": ((mask,), lambda m: m),
        "mask_and_slice": ((mask[0],), lambda m: (slice(None), m, slice(1, None))),
        "mask_and_array": ((mask[:, 0], _ints(1)), lambda m, a: (m, a)),
        "scalar_mask": ((np.asarray(True),), lambda m: (slice(None), m)),
    }
    return [
        Sample((t, *arrays), {"index": index}, name=name) for name, (arrays, index) in cases.items()
    ]


def _mask_expression_samples(rng):
    return [Sample((rng.normal(size=(3, 4)),), name="matrix")]


# -- set / inc -------------------------------------------------------------------------------


def _set_basic_samples(rng):
    m = rng.normal(size=(4, 5))
    cases = {
        "row": (rng.normal(size=(5,)), (), lambda: (2,)),
        "block": (rng.normal(size=(2, 3)), (), lambda: (slice(1, 3), slice(None, None, -2))),
        "broadcast_row": (rng.normal(size=(1, 5)), (), lambda: slice(1, None)),
        "broadcast_lower_ndim": (rng.normal(size=(2,)), (), lambda: (slice(0, 3), slice(1, 3))),
        "scalar": (np.asarray(rng.normal()), (), lambda: (-1, 0)),
        "symbolic_bounds": (rng.normal(size=(2, 5)), _ints(3, 1), lambda a, b: slice(a, b, -1)),
    }
    return [
        Sample((m, y, *arrays), {"index": index}, name=name)
        for name, (y, arrays, index) in cases.items()
    ]


def _set_advanced1_samples(rng):
    m = rng.normal(size=(5, 3))
    return [
        Sample(
            (m, rng.normal(size=(4, 3)), _ints(4, 0, 0, -1)),
            {"index": lambda i: i},
            name="repeated",
        ),
        Sample(
            (m, rng.normal(size=(1, 3)), _ints(1, 1, 2)),
            {"index": lambda i: i},
            name="broadcast_repeated",
        ),
        Sample(
            (m, rng.normal(size=(3,)), _ints(2, 3)), {"index": lambda i: i}, name="broadcast_row"
        ),
    ]


def _set_advanced_samples(rng):
    t = rng.normal(size=(3, 4, 5))
    mask = rng.random((3, 4)) > 0.4
    cases = {
        "two_arrays_repeated": (
            rng.normal(size=(3, 5)),
            (_ints(0, 2, 0), _ints(1, 1, 1)),
            lambda a, b: (a, b),
        ),
        "slice_array": (
            rng.normal(size=(3, 2, 2)),
            (_ints(4, 4),),
            lambda a: (slice(None), slice(1, 3), a),
        ),
        "separated_broadcast": (
            rng.normal(size=(1, 4)),
            (_ints(0, 2), _ints(1, 1)),
            lambda a, b: (a, slice(None), b),
        ),
        "mask": (rng.normal(size=(int(mask.sum()), 5)), (mask,), lambda m: m),
        "mask_broadcast": (rng.normal(size=(5,)), (mask,), lambda m: m),
    }
    return [
        Sample((t, y, *arrays), {"index": index}, name=name)
        for name, (y, arrays, index) in cases.items()
    ]


register(
    OpInfo("getitem[basic]", _getitem, _getitem, _basic_samples, ALL_DTYPES, pt.Subtensor),
    OpInfo(
        "getitem[symbolic_slice]",
        _getitem,
        _getitem,
        _symbolic_bounds_samples,
        FLOAT_DTYPES,
        pt.Subtensor,
    ),
    OpInfo(
        "getitem[symbolic_int]",
        _getitem,
        _getitem,
        _symbolic_int_samples,
        FLOAT_DTYPES,
        pt.Subtensor,
    ),
    OpInfo(
        "getitem[advanced1]",
        _getitem,
        _getitem,
        _advanced1_samples,
        ALL_DTYPES,
        pt.AdvancedSubtensor1,
    ),
    OpInfo(
        "getitem[advanced]", _getitem, _getitem, _advanced_samples, ALL_DTYPES, pt.AdvancedSubtensor
    ),
    OpInfo(
        "getitem[mask_expression]",
        lambda x: x[x > 0],
        lambda x: x[x > 0],
        _mask_expression_samples,
        FLOAT_DTYPES,
        pt.AdvancedSubtensor,
    ),
    OpInfo(
        "set_subtensor[basic]",
        _set_build,
        _set_ref,
        _set_basic_samples,
        ALL_DTYPES,
        pt.IncSubtensor,
    ),
    OpInfo(
        "inc_subtensor[basic]",
        _inc_build,
        _inc_ref,
        _set_basic_samples,
        ALL_DTYPES,
        pt.IncSubtensor,
    ),
    OpInfo(
        "set_subtensor[advanced1]",
        _set_build,
        _set_ref,
        _set_advanced1_samples,
        ALL_DTYPES,
        pt.AdvancedIncSubtensor1,
    ),
    OpInfo(
        "inc_subtensor[advanced1]",
        _inc_build,
        _inc_ref,
        _set_advanced1_samples,
        ALL_DTYPES,
        pt.AdvancedIncSubtensor1,
    ),
    OpInfo(
        "set_subtensor[advanced]",
        _set_build,
        _set_ref,
        _set_advanced_samples,
        ALL_DTYPES,
        pt.AdvancedIncSubtensor,
    ),
    OpInfo(
        "inc_subtensor[advanced]",
        _inc_build,
        _inc_ref,
        _set_advanced_samples,
        ALL_DTYPES,
        pt.AdvancedIncSubtensor,
    ),
)


# -- take, take_along_axis, nonzero, where ---------------------------------------------------


def _take_samples(rng):
    m = rng.normal(size=(4, 5))
    return [
        Sample((m, _ints(3, 0, 3, -1)), {"axis": None}, name="flat"),
        Sample((m, _ints(4, 0, 4)), {"axis": 1}, name="axis1"),
        Sample((m, _ints(1, 2, 0, 3).reshape(2, 2)), {"axis": 0}, name="matrix_indices"),
        Sample((m, _ints(7, -6)), {"axis": 1, "mode": "wrap"}, name="wrap"),
        Sample((m, _ints(9, -2, 1)), {"axis": 0, "mode": "clip"}, name="clip"),
        Sample((m, np.asarray(2)), {"axis": 1}, name="scalar_index"),
    ]


def _take_along_samples(rng):
    m = rng.normal(size=(3, 4))
    return [
        Sample((m, rng.integers(-4, 4, size=(3, 6))), {"axis": 1}, name="axis1_repeated"),
        Sample((m, rng.integers(0, 3, size=(2, 4))), {"axis": 0}, name="axis0"),
        Sample((m, rng.integers(0, 4, size=(1, 2))), {"axis": -1}, name="broadcast_indices"),
        Sample((m, rng.integers(0, 12, size=(5,))), {"axis": None}, name="flat"),
    ]


def _nonzero_samples(rng):
    m = rng.normal(size=(3, 4))
    m[m < 0.3] = 0
    return [
        Sample((m,), name="matrix"),
        Sample((m[0],), name="vector"),
        Sample((np.zeros((2, 3)),), name="all_zero"),
    ]


def _where_samples(rng):
    m = rng.normal(size=(3, 4))
    return [
        Sample((m > 0, m, rng.normal(size=(4,))), name="three_args"),
        Sample((m > 0.2,), name="one_arg"),
    ]


register(
    OpInfo("take", pt.take, np.take, _take_samples, ALL_DTYPES, ANY_SUBTENSOR),
    OpInfo(
        "take_along_axis",
        pt.take_along_axis,
        np.take_along_axis,
        _take_along_samples,
        ALL_DTYPES,
        pt.TakeAlongAxis,
    ),
    OpInfo(
        "nonzero", pt.nonzero, np.nonzero, _nonzero_samples, FLOAT_DTYPES, pt.Nonzero, grad=False
    ),
    OpInfo(
        "where",
        pt.where,
        np.where,
        _where_samples,
        FLOAT_DTYPES,
        pt.Nonzero,
        directives=[
            Directive(
                "grad",
                "no float input: one-argument where is nonzero",
                samples=["one_arg"],
                kind="skip",
            ),
        ],
    ),
)


# -- sort, argsort, searchsorted, unique ----------------------------------------------------


def _distinct(rng, shape):
    """Values at least 0.5 apart, so finite differences never reorder them."""
    values = rng.permutation(int(np.prod(shape))) * 0.5 + rng.uniform(0, 0.1, int(np.prod(shape)))
    return values.reshape(shape) - values.mean()


def _sort_samples(rng):
    m = _distinct(rng, (3, 5))
    return [
        Sample((m,), {"axis": -1}, name="last"),
        Sample((m,), {"axis": 0, "kind": "stable"}, name="axis0_stable"),
        Sample((m,), {"axis": None, "kind": "mergesort"}, name="flat"),
        Sample((_distinct(rng, (2, 3, 4)),), {"axis": 1, "kind": "heapsort"}, name="tensor3"),
    ]


def _ties_samples(rng):
    return [
        Sample((rng.integers(0, 3, size=(4, 6)).astype("float64"),), {"axis": a}, name=f"axis{a}")
        for a in (0, 1)
    ]


def _searchsorted_samples(rng):
    a = np.sort(rng.normal(size=(7,)))
    return [
        Sample((a, rng.normal(size=(3, 2))), {"side": "left"}, name="left"),
        Sample((a, np.concatenate([a[2:4], a[:1]])), {"side": "right"}, name="right_ties"),
        Sample(
            (a[::-1].copy(), rng.normal(size=(4,)), _ints(6, 5, 4, 3, 2, 1, 0)),
            {"side": "left"},
            name="sorter",
        ),
    ]


def _searchsorted_ref(a, v, *sorter, side):
    return np.searchsorted(a, v, side=side, sorter=sorter[0] if sorter else None)


def _searchsorted_build(a, v, *sorter, side):
    return pt.searchsorted(a, v, side=side, sorter=sorter[0] if sorter else None)


def _unique_samples(rng):
    ties = rng.integers(0, 4, size=(5, 3)).astype("float64")
    flags = {"return_index": True, "return_inverse": True, "return_counts": True}
    return [
        Sample((_distinct(rng, (3, 4)),), {}, name="distinct"),
        Sample((_distinct(rng, (4, 3)),), {"axis": 0}, name="distinct_rows"),
        Sample((ties,), flags, name="ties_all_outputs"),
        Sample((ties[:, :2],), {**flags, "axis": 0}, name="rows_all_outputs"),
        Sample((ties,), {"return_inverse": True, "axis": 1}, name="columns_inverse"),
    ]


def _unique_build(x, **kwargs):
    return pt.unique(x, **kwargs)


def _unique_ref(x, **kwargs):
    return np.unique(x, **kwargs)


def _with_ties(name):
    return Directive(
        name,
        "ties make unique/sort non-differentiable; the shape would change",
        samples=["ties_all_outputs", "rows_all_outputs", "columns_inverse"],
        kind="skip",
    )


register(
    OpInfo("sort", pt.sort, np.sort, _sort_samples, FLOAT_DTYPES, pt.Sort),
    OpInfo(
        "sort[ties]", pt.sort, np.sort, _ties_samples, ("float64", "int64"), pt.Sort, grad=False
    ),
    OpInfo("argsort", pt.argsort, np.argsort, _sort_samples, ALL_DTYPES, pt.Argsort, grad=False),
    OpInfo(
        "argsort[stable_ties]",
        lambda x, axis: pt.argsort(x, axis=axis, kind="stable"),
        lambda x, axis: np.argsort(x, axis=axis, kind="stable"),
        _ties_samples,
        ("float64", "int64"),
        pt.Argsort,
        grad=False,
    ),
    OpInfo(
        "searchsorted",
        _searchsorted_build,
        _searchsorted_ref,
        _searchsorted_samples,
        ALL_DTYPES,
        pt.SearchSorted,
        grad=False,
    ),
    OpInfo(
        "unique",
        _unique_build,
        _unique_ref,
        _unique_samples,
        ALL_DTYPES,
        pt.Unique,
        directives=[_with_ties(t) for t in ("grad", "rop", "adjoint")],
    ),
)


# -- bincount, diff, choose ------------------------------------------------------------------


def _bincount_samples(rng):
    x = rng.integers(0, 6, size=(9,))
    return [
        Sample((x,), name="counts"),
        Sample((x, rng.normal(size=(9,))), name="weights"),
        Sample((x,), {"minlength": 10}, name="minlength"),
        Sample((x[:0],), {"minlength": 3}, name="empty"),
    ]


def _diff_samples(rng):
    m = rng.normal(size=(4, 6))
    return [
        Sample((m,), name="default"),
        Sample((m,), {"n": 2, "axis": 0}, name="second_order_axis0"),
        Sample((m[0],), {"n": 0}, name="order0"),
        Sample((m > 0,), name="bool"),
    ]


def _diff_edges_samples(rng):
    m = rng.normal(size=(4, 6))
    return [
        Sample((m, rng.normal(size=(4, 2)), rng.normal(size=(4, 1))), name="arrays"),
        Sample((m, rng.normal(size=(1, 6)), 2.5), {"n": 2, "axis": 0}, name="scalar_append"),
        Sample((m, np.asarray(-1.0), np.asarray(3.0)), {"axis": 0}, name="0d_edges"),
        Sample((m > 0, True, np.zeros((4, 1), dtype=bool)), name="bool"),
    ]


def _diff_edges_build(a, prepend, append, **kwargs):
    return pt.diff(a, prepend=prepend, append=append, **kwargs)


def _diff_edges_ref(a, prepend, append, **kwargs):
    return np.diff(a, prepend=prepend, append=append, **kwargs)


def _choose_samples(rng):
    a = rng.integers(0, 3, size=(3, 4))
    choices = [rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(1, 4))]
    return [
        Sample((a, choices[0], choices[1], choices[2]), name="broadcast"),
        Sample((a + 2, choices[0], choices[1]), {"mode": "wrap"}, name="wrap"),
        Sample((a - 1, choices[0], choices[1]), {"mode": "clip"}, name="clip"),
    ]


def _choose_build(a, *choices, mode="raise"):
    return pt.choose(a, list(choices), mode=mode)


def _choose_ref(a, *choices, mode="raise"):
    return np.choose(a, choices, mode=mode)


register(
    OpInfo("bincount", pt.bincount, np.bincount, _bincount_samples, FLOAT_DTYPES, pt.BinCount),
    OpInfo("diff", pt.diff, np.diff, _diff_samples, ALL_DTYPES, pt.Subtensor),
    OpInfo(
        "diff[prepend_append]",
        _diff_edges_build,
        _diff_edges_ref,
        _diff_edges_samples,
        ALL_DTYPES,
        (pt.Subtensor, pt.Join, pt.Alloc),
    ),
    OpInfo("choose", _choose_build, _choose_ref, _choose_samples, ALL_DTYPES, pt.Choose),
)
