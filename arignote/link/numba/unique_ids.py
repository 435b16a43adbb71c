"""Numba's function ids made unique across processes, so cached machine code cannot collide.

Numba names every compiled function (and the global holding its ``Environment``) after its
qualified name, argument types and a *unique id*, taken from a counter that starts at 1 in
every process. Within one process that is unique; across processes it is not: two processes
that compile the same sequence of functions give the same ids in the same order. Our disk
cache (:mod:`.cache`) loads machine code compiled by other processes, and our generated
functions share names (every kernel is ``kernel``, every generator copy ``copy_rng``), so a
process could hold two definitions of one symbol: LLVM resolves both to the first, and a
function then runs another one's body, or finds its ``Environment`` global never set
("missing Environment", seen in CI when a test run loaded entries an earlier run wrote).

:func:`install` replaces the counter with random 64-bit ids, checked unique within the
process: a collision across processes is then a 2**-64 event per pair of same-named
functions, and a forked child (which copies the counter's state) draws its own ids too.
"""

from __future__ import annotations

import secrets
import threading

from numba.core.bytecode import FunctionIdentity

#: Random ids are drawn from [1, 2**64): numba prints them in decimal inside mangled names.
_ID_BITS = 64


class RandomIds:
    """An endless iterator of distinct random positive integers (numba only calls ``next``)."""

    def __init__(self) -> None:
        self._issued: set[int] = set()
        self._lock = threading.Lock()

    def __iter__(self) -> RandomIds:
        return self

    def __next__(self) -> int:
        with self._lock:
            uid = self._fresh()
            self._issued.add(uid)
            return uid

    def _fresh(self) -> int:
        while True:
            uid = secrets.randbits(_ID_BITS)
            if uid and uid not in self._issued:
                return uid


def install() -> None:
    """Make numba draw random function ids from now on (idempotent)."""
    if not isinstance(FunctionIdentity._unique_ids, RandomIds):
        FunctionIdentity._unique_ids = RandomIds()
