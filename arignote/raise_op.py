"""Run-time checks: ``Assert``, ``CheckAndRaise`` and ``assert_op`` (PyTensor's
``pytensor.raise_op``). The ops live in :mod:`arignote.tensor.raise_op`, so that tensor code
can use them too."""

from arignote.tensor.raise_op import Assert, CheckAndRaise, assert_op

__all__ = ["Assert", "CheckAndRaise", "assert_op"]
