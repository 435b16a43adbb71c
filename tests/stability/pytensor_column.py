"""The PyTensor column of the audit table: the same expressions built with PyTensor (when it
is installed), compiled in its default mode, evaluated at the audit's points, and compared
with the same high-precision reference.

``python -m tests.stability.pytensor_column`` records ``docs/stability_pytensor.json``; the
docs page shows it next to arignote's results.
"""

from __future__ import annotations

import json
import types

import numpy as np

from arignote.stability.audit import _combinations, _error, _tolerance
from arignote.stability.exact import Unresolved, evaluate_exact
from tests.stability import cases
from tests.stability.table import ROOT, Entry, entries

RECORD = ROOT / "docs" / "stability_pytensor.json"


def _namespace():
    import pytensor.tensor as T
    import pytensor.tensor.special as S

    names = {name: getattr(T, name) for name in dir(T) if not name.startswith("_")}
    names.update({name: getattr(S, name) for name in ("logit", "softmax", "log_softmax")})
    return types.SimpleNamespace(**names)


def _pytensor_entry(entry: Entry, namespace):
    import pytensor

    saved = cases.pt
    cases.pt = namespace
    try:
        outputs, _ = entry.case.build()
    finally:
        cases.pt = saved
    inputs = list(pytensor.graph.basic.explicit_graph_inputs([outputs]))
    if entry.wrt is not None:
        var = next(i for i in inputs if i.name == entry.wrt)
        cost = outputs.sum() if outputs.ndim else outputs
        outputs = pytensor.grad(cost, var)
    return pytensor.function(inputs, outputs, on_unused_input="ignore"), inputs


def _verdict(entry: Entry, namespace) -> str:
    fn, pyt_inputs = _pytensor_entry(entry, namespace)
    outputs, inputs, points = entry.build()
    combos = _combinations(inputs, points, 400)
    worst, text = 0.0, "ok"
    for combo in combos:
        try:
            exact, _ = evaluate_exact([outputs], dict(zip(inputs, combo)))
        except Unresolved:
            continue
        by_name = dict(zip([i.name for i in inputs], combo))
        with np.errstate(all="ignore"):
            got = np.asarray(fn(*[by_name[i.name] for i in pyt_inputs]))
        error, _ = _error(got, exact[outputs], outputs.type.dtype, entry.case.atol)
        if error > max(worst, _tolerance(entry.case.rtol, outputs.type.dtype)):
            worst = error
            text = f"unstable at {_where(by_name)}"
    return text


def _where(values: dict) -> str:
    parts = []
    for name, value in values.items():
        flat = np.asarray(value).reshape(-1)
        shown = f"{flat[0]:.6g}" if np.all(flat == flat[0]) else str(flat.tolist())
        parts.append(f"{name}={shown}")
    return ", ".join(parts)


def record() -> dict[str, str]:
    namespace = _namespace()
    results = {}
    for entry in entries():
        try:
            results[entry.name] = _verdict(entry, namespace)
        except Exception as exc:
            results[entry.name] = f"n/a ({type(exc).__name__})"
    return results


if __name__ == "__main__":
    RECORD.write_text(json.dumps(record(), indent=1) + "\n")
