"""The Numba backend: ``function(..., mode="NUMBA")`` compiles the whole graph natively.

Only this package imports numba; ``import arignote`` does not (the mode named "NUMBA" imports
it the first time it is used, see ``arignote.compile.mode``).

The rewritten graph (default pipeline with fusion, without in-place rewrites) becomes one
generated Python function calling each node's kernel in topological order, compiled by
``numba.njit`` as a whole at the first call: a call is one native call. Kernels are
registered per op class with :func:`numba_funcify` in ``dispatch/<family>.py``. A node without
a native kernel runs its ``perform`` in object mode; :data:`FALLBACKS` lists every op allowed
to do so with the reason, and ``f.runner.fallbacks`` maps the nodes of a compiled function
that do to the reason (``native_report(f.runner)`` prints it per node). Random draws are
native, with NumPy's numbers for the same generator state (``dispatch/random.py``); a graph
holding values numba cannot take (float16) runs on the Python VM as a whole
(:data:`WHOLE_GRAPH_FALLBACKS`). The default mode is tiered (:mod:`arignote.link.tiered`):
the VM first, then, once a function is hot, native code compiled in a background thread by
:mod:`arignote.link.numba.tiered`. Native code is cached on disk and shared by processes
(:mod:`arignote.link.numba.cache`; ``config.cache_dir`` or ``$ARIGNOTE_CACHE_DIR`` overrides
the location; ``python -m arignote.cache info|clear``).
"""

import os

# Numba highlights its messages with colorama, which reassigns sys.stdout/sys.stderr (to the
# streams it saw first) around each message: from a background compilation (tiered
# execution) that can undo a redirection the main thread made meanwhile (pytest's capsys,
# contextlib.redirect_stdout). Plain messages touch neither; read when numba is imported.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

from arignote.link.numba import unique_ids

# before anything is compiled: ids unique across processes, so cached code cannot collide
unique_ids.install()

from arignote.link.basic import register_linker
from arignote.link.numba.dispatch import FALLBACKS, NotNative, numba_funcify
from arignote.link.numba.linker import (
    WHOLE_GRAPH_FALLBACKS,
    NumbaLinker,
    native_report,
)

register_linker("numba", NumbaLinker)

__all__ = [
    "FALLBACKS",
    "WHOLE_GRAPH_FALLBACKS",
    "NotNative",
    "NumbaLinker",
    "native_report",
    "numba_funcify",
]
