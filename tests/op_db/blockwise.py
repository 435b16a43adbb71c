"""op_db entries: ``Blockwise`` (arignote.tensor.blockwise) over a core op that does not batch
(``Dot``) and over one that does (``MatrixInverse``, lifted off by a rewrite)."""

from __future__ import annotations

import numpy as np

from arignote.tensor.blockwise import Blockwise
from arignote.tensor.linalg.inverse import MatrixInverse
from arignote.tensor.products import Dot
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _matvec_samples(rng):
    return [
        Sample((rng.normal(size=(2, 3, 4)), rng.normal(size=(4,))), name="shared_vector"),
        Sample((rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4))), name="batched_both"),
        Sample((rng.normal(size=(3, 4)), rng.normal(size=(2, 5, 4))), name="batched_vector"),
    ]


def _inverse_samples(rng):
    return [Sample((rng.normal(size=(2, 3, 3)) + 3 * np.eye(3),), name="stack")]


register(
    OpInfo(
        "Blockwise[dot]",
        lambda a, v: Blockwise(Dot(), "(m,k),(k)->(m)")(a, v),
        lambda a, v: np.einsum("...mk,...k->...m", a, v),
        _matvec_samples,
        dtypes=FLOAT_DTYPES,
        op_class=Blockwise,
    ),
    OpInfo(
        "Blockwise[inv]",
        lambda a: Blockwise(MatrixInverse(), "(m,m)->(m,m)")(a),
        np.linalg.inv,
        _inverse_samples,
        dtypes=FLOAT_DTYPES,
        op_class=Blockwise,
    ),
)
