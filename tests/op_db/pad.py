"""op_db entries: pad (modes constant, edge and reflect)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _pad_samples(mode):
    def samples(rng):
        cases = [
            Sample((rng.normal(size=(3, 4)), 1), name="int"),
            Sample((rng.normal(size=(3, 4)), ((1, 2), (0, 2))), name="per-axis"),
            Sample((rng.normal(size=(5,)), (2, 3)), name="vector"),
            Sample((rng.normal(size=(2, 3, 4)), ((0, 0), (1, 0), (0, 2))), name="3d"),
            Sample((rng.normal(size=(3, 4)), (np.asarray(2), 1)), name="symbolic-width"),
        ]
        if mode == "reflect":
            cases.append(Sample((rng.normal(size=(3, 4)), ((4, 5), (7, 1))), name="wide"))
        if mode == "constant":
            cases.append(
                Sample(
                    (rng.normal(size=(3, 4)), 2),
                    {"constant_values": ((1.5, -2.0), (0.25, 3.0))},
                    name="values",
                )
            )
        return cases

    return samples


def _pad(mode):
    def build(x, pad_width, **kwargs):
        return pt.pad(x, pad_width, mode, **kwargs)

    def ref(x, pad_width, **kwargs):
        widths = np.asarray(pad_width, dtype=object)
        widths = np.vectorize(int, otypes=[np.int64])(widths) if widths.ndim else int(widths)
        return np.pad(x, widths, mode, **kwargs)

    return build, ref


register(
    *[
        OpInfo(
            f"pad[{mode}]",
            *_pad(mode),
            _pad_samples(mode),
            dtypes=FLOAT_DTYPES,
            op_class=pt.Join,
        )
        for mode in ("constant", "edge", "reflect")
    ]
)
