"""The gallery's example programs run and reach what they claim (small sizes, seeded)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_separates_the_spirals():
    assert _load("mlp").main(epochs=300) > 0.8  # chance is 0.5


def test_rnn_learns_the_running_mean():
    first, last = _load("rnn_scan").main(iterations=400)
    assert last < 0.5 * first


def test_hmc_finds_the_exact_posterior_mean():
    assert _load("bayesian_hmc").main(n_samples=1000) < 0.1
