"""
A recurrent network with scan
=============================

An Elman network learns to output, at every step, the running mean of its input sequence. The
recurrence is one ``arignote.scan`` over the time steps; its gradient (back-propagation
through time) is another scan, built by ``arignote.grad``.
"""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt


def build(rng: np.random.Generator, hidden: int = 16, rate: float = 0.3):
    xs = pt.dmatrix("xs")  # (time, 1)
    targets = pt.dvector("targets")  # (time,)
    w_in = arignote.shared(rng.normal(scale=0.5, size=(1, hidden)), name="w_in")
    w_rec = arignote.shared(rng.normal(scale=0.5 / np.sqrt(hidden), size=(hidden, hidden)))
    w_out = arignote.shared(rng.normal(scale=0.5, size=hidden), name="w_out")

    def step(x_t, h_prev, w_in, w_rec):
        return pt.tanh(x_t @ w_in + h_prev @ w_rec)

    states = arignote.scan(
        step,
        sequences=xs,
        outputs_info=pt.zeros(hidden),
        non_sequences=[w_in, w_rec],
        return_updates=False,
    )
    outputs = states @ w_out
    cost = ((outputs - targets) ** 2).mean()
    params = [w_in, w_rec, w_out]
    updates = [(p, p - rate * g) for p, g in zip(params, arignote.grad(cost, params))]
    return arignote.function([xs, targets], cost, updates=updates)


def sequence(rng: np.random.Generator, length: int = 20) -> tuple[np.ndarray, np.ndarray]:
    x = rng.uniform(-1, 1, size=length)
    return x[:, None], np.cumsum(x) / np.arange(1, length + 1)


def main(iterations: int = 400) -> tuple[float, float]:
    rng = np.random.default_rng(3)
    train = build(rng)
    costs = [float(train(*sequence(rng))) for _ in range(iterations)]
    first, last = np.mean(costs[:50]), np.mean(costs[-50:])
    print(f"mean cost over the first 50 sequences {first:.4f}, over the last 50 {last:.4f}")
    return first, last


if __name__ == "__main__":
    main()
