"""
Logistic regression
===================

Logistic regression trained by gradient descent: the main job of arignote's README.

Builds the model symbolically, takes its gradient with arignote.grad, compiles one training
step whose parameter updates are applied by the compiled function, and trains on generated
data, printing the loss as it falls and the final accuracy.
"""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt


def make_data(rng: np.random.Generator, n: int = 400, features: int = 20):
    true_w = rng.normal(size=features)
    x = rng.normal(size=(n, features))
    y = (x @ true_w + 0.5 * rng.normal(size=n) > 0).astype("float64")
    return x, y


def build_model(features: int, rng: np.random.Generator, learning_rate: float = 0.1):
    x = pt.dmatrix("x")
    y = pt.dvector("y")
    w = arignote.shared(rng.normal(scale=0.01, size=features), name="w")
    b = arignote.shared(0.0, name="b")
    p_1 = pt.sigmoid(pt.dot(x, w) + b)  # probability that the label is 1
    cross_entropy = -y * pt.log(p_1) - (1 - y) * pt.log(1 - p_1)
    cost = cross_entropy.mean() + 0.01 * (w**2).sum()
    gw, gb = arignote.grad(cost, [w, b])
    train = arignote.function(
        [x, y],
        cost,
        updates=[(w, w - learning_rate * gw), (b, b - learning_rate * gb)],
        name="train",
    )
    predict = arignote.function([x], p_1 > 0.5, name="predict")
    return train, predict


def main(steps: int = 200) -> float:
    rng = np.random.default_rng(0)
    x, y = make_data(rng)
    train, predict = build_model(x.shape[1], rng)
    for step in range(steps + 1):
        loss = train(x, y)
        if step % 20 == 0:
            print(f"step {step:4d}  loss {float(loss):.4f}")
    accuracy = float(np.mean(predict(x) == y))
    print(f"final accuracy: {accuracy:.3f}")
    return accuracy


if __name__ == "__main__":
    main()
