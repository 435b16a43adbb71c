"""
A multilayer perceptron
=======================

A two-layer network classifying points of two interleaved spirals: tanh hidden units, a softmax
output, cross-entropy with L2 regularization, and one compiled training step that applies the
parameter updates of plain gradient descent with momentum.
"""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt


def spirals(rng: np.random.Generator, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Two spirals of ``n`` noisy points each, labelled 0 and 1."""
    t = np.sqrt(rng.uniform(size=n)) * 3 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / 10
    x = np.concatenate([arm, -arm]) + 0.05 * rng.normal(size=(2 * n, 2))
    return x, np.repeat([0, 1], n).astype("int64")


def build(rng: np.random.Generator, hidden: int = 32, rate: float = 0.2, momentum: float = 0.9):
    x, y = pt.dmatrix("x"), pt.lvector("y")
    sizes = [(2, hidden), (hidden, 2)]
    weights = [arignote.shared(rng.normal(scale=1 / np.sqrt(a), size=(a, b))) for a, b in sizes]
    biases = [arignote.shared(np.zeros(b)) for _, b in sizes]
    h = pt.tanh(x @ weights[0] + biases[0])
    log_p = pt.special.log_softmax(h @ weights[1] + biases[1], axis=1)
    cost = -log_p[pt.arange(y.shape[0]), y].mean() + 1e-4 * sum((w**2).sum() for w in weights)
    params = weights + biases
    velocities = [arignote.shared(np.zeros_like(p.get_value())) for p in params]
    updates = []
    for p, v, g in zip(params, velocities, arignote.grad(cost, params)):
        updates += [(v, momentum * v - rate * g), (p, p + momentum * v - rate * g)]
    train = arignote.function([x, y], cost, updates=updates)
    predict = arignote.function([x], log_p.argmax(axis=1))
    return train, predict


def main(epochs: int = 300) -> float:
    rng = np.random.default_rng(0)
    x, y = spirals(rng)
    train, predict = build(rng)
    for epoch in range(epochs):
        cost = train(x, y)
        if epoch % 100 == 0:
            print(f"epoch {epoch:4d}: cost {float(cost):.4f}")
    accuracy = float((predict(x) == y).mean())
    print(f"training accuracy: {accuracy:.3f}")
    return accuracy


if __name__ == "__main__":
    main()
