"""The code cells of the loop and condition tutorials, run in JAX mode as well as the default.

Each cell is executed as written, with ``arignote.function`` replaced by a function that
compiles the graph both ways and checks, at every call, that the JAX function returns what the
VM returns and leaves the shared variables it updates in the same state (random draws: the
same shapes, since JAX's generator is not NumPy's). Two loop examples return every state of a
loop whose step count is known only at run time; JAX must refuse them with a DynamicShapeError
saying what to make static, and their static versions must agree.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.link.jax import DynamicShapeError
from arignote.scan.utils import until
from arignote.tensor.random.type import RandomGeneratorType
from tests.link.jax._compare import check_vm_and_jax_agree

DOCS = Path(__file__).resolve().parents[3] / "docs" / "tutorial"
CELL = re.compile(r"```\{code-cell\} ipython3\n(.*?)```", re.DOTALL)


def _cells(name: str) -> list[str]:
    return CELL.findall((DOCS / name).read_text())


def _updated(kwargs: dict) -> list:
    updates = kwargs.get("updates") or []
    pairs = updates.items() if isinstance(updates, dict) else updates
    return [var for var, _ in pairs]


def _agree(expected, got, random: bool) -> None:
    many = isinstance(expected, (list, tuple))
    for e, g in zip(expected if many else [expected], got if many else [got]):
        assert np.shape(g) == np.shape(e)
        if not random:
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-9)


class _BothModes:
    """A stand-in for ``arignote.function``: the VM's results, checked against JAX mode's."""

    def __init__(self, function) -> None:
        self.function = function
        self.refused: list[str] = []
        self.compared = 0

    def __call__(self, inputs, outputs, **kwargs):
        vm = self.function(inputs, outputs, **kwargs)
        jx = self.function(inputs, outputs, mode="JAX", **kwargs)
        shared = _updated(kwargs)
        random = any(isinstance(v.type, RandomGeneratorType) for v in shared)

        def call(*args):
            before = [v.get_value() for v in shared]
            expected = vm(*args)
            after = [v.get_value() for v in shared]
            for var, value in zip(shared, before):
                var.set_value(value)
            try:
                got = jx(*args)
            except DynamicShapeError as err:
                self.refused.append(str(err))
                for var, value in zip(shared, after):
                    var.set_value(value)
                return expected
            _agree(expected, got, random)
            if random:  # a JAX key now: the VM's generator goes back for the VM's next call
                for var, value in zip(shared, after):
                    var.set_value(value)
            else:
                _agree(after, [v.get_value() for v in shared], random)
            self.compared += 1
            return expected

        return call


def _run_tutorial(name: str, monkeypatch) -> _BothModes:
    both = _BothModes(arignote.function)
    monkeypatch.setattr(arignote, "function", both)
    namespace: dict = {}
    for code in _cells(name):
        exec(compile(code, f"{name} cell", "exec"), namespace)
    return both


def test_loop_tutorial_in_jax_mode(monkeypatch):
    both = _run_tutorial("loops.md", monkeypatch)
    assert both.compared == 7
    # every state of fibonacci (n_steps=n) and of the until loop: lengths known at run time
    assert len(both.refused) == 2
    assert "make n_steps a constant" in both.refused[0]
    assert "until" in both.refused[1]


def test_static_versions_of_the_refused_loop_examples():
    x0 = pt.dvector("x0")
    fibonacci = arignote.scan(
        lambda two_back, one_back: two_back + one_back,
        outputs_info={"initial": x0, "taps": [-2, -1]},
        n_steps=10,
        return_updates=False,
    )
    check_vm_and_jax_agree([x0], fibonacci, (np.array([0.0, 1.0]),))
    limit = pt.dscalar("limit")
    doubling = arignote.scan(
        lambda value, limit: (value * 2, until(value * 2 > limit)),
        outputs_info=pt.constant(1.0),
        non_sequences=limit,
        n_steps=1000,
        return_updates=False,
    )
    check_vm_and_jax_agree([limit], doubling[-1], (100.0,))


def test_condition_tutorial_in_jax_mode(monkeypatch):
    both = _run_tutorial("conditions.md", monkeypatch)
    assert both.compared >= 6
    assert both.refused == []
