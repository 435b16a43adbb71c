"""Synthetic stand-ins for the MNIST files of the Theano tutorials: the same shapes (rows of
784 pixels in [0, 1], labels 0-9), drawn around ten random class prototypes so that the models
can learn them quickly. Only data creation lives here; the programs are the test modules."""

from __future__ import annotations

import numpy


def mnist_like(n_train=200, n_valid=60, n_test=60, seed=1234, pixels=784):
    """``[(train_x, train_y), (valid_x, valid_y), (test_x, test_y)]`` as NumPy arrays."""
    rng = numpy.random.RandomState(seed)
    prototypes = (rng.uniform(size=(10, pixels)) > 0.7).astype("float64")

    def split(n):
        labels = rng.randint(0, 10, size=n)
        images = prototypes[labels] * rng.uniform(0.6, 1.0, size=(n, pixels))
        images += rng.uniform(0.0, 0.3, size=(n, pixels)) * (rng.uniform(size=(n, pixels)) > 0.8)
        return numpy.clip(images, 0.0, 1.0), labels

    return [split(n_train), split(n_valid), split(n_test)]
