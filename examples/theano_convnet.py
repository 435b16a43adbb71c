"""
A Theano-era convolutional network
==================================

A convolutional network written for Theano, run by arignote with only its imports changed.

The program is in the style of the Theano tutorials of the 2010s: shared variables for the
data and the parameters, ``givens`` to slice minibatches, ``T.nnet.conv2d`` and
``pool.pool_2d`` layers, dropout from ``MRG_RandomStreams``, and plain SGD updates. In a Theano
program the first lines read ``import theano``, ``import theano.tensor as T``,
``from theano.tensor.nnet import conv2d``, ``from theano.tensor.signal import pool`` and
``from theano.sandbox.rng_mrg import MRG_RandomStreams``; nothing else differs.

The data are generated: 16x16 images of a horizontal bar, a vertical bar, a diagonal, or a
square ring, at random places, with noise. ``python examples/theano_convnet.py`` trains the
network and prints its test error.
"""

import numpy

import arignote as theano
import arignote.tensor as T
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from arignote.tensor.nnet import conv2d
from arignote.tensor.signal import pool


def make_shapes(n, rng, size=16):
    """``n`` noisy images of four kinds of shapes, and their labels."""
    images = numpy.zeros((n, size * size), dtype=theano.config.floatX)
    labels = rng.randint(0, 4, size=n)
    for i, label in enumerate(labels):
        canvas = numpy.zeros((size, size))
        r, c = rng.randint(2, size - 8, size=2)
        if label == 0:
            canvas[r + 3, c : c + 6] = 1.0
        elif label == 1:
            canvas[r : r + 6, c + 3] = 1.0
        elif label == 2:
            canvas[r + numpy.arange(6), c + numpy.arange(6)] = 1.0
        else:
            canvas[r : r + 6, c : c + 6] = 1.0
            canvas[r + 1 : r + 5, c + 1 : c + 5] = 0.0
        images[i] = (canvas + 0.2 * rng.uniform(size=canvas.shape)).ravel()
    return images, labels


def shared_dataset(data_xy):
    data_x, data_y = data_xy
    shared_x = theano.shared(numpy.asarray(data_x, dtype=theano.config.floatX), borrow=True)
    shared_y = theano.shared(numpy.asarray(data_y, dtype=theano.config.floatX), borrow=True)
    return shared_x, T.cast(shared_y, "int32")


class ConvPoolLayer:
    def __init__(self, rng, input, filter_shape, image_shape, poolsize=(2, 2)):
        fan_in = numpy.prod(filter_shape[1:])
        bound = numpy.sqrt(
            6.0 / (fan_in + filter_shape[0] * numpy.prod(filter_shape[2:]) / numpy.prod(poolsize))
        )
        self.W = theano.shared(
            numpy.asarray(
                rng.uniform(-bound, bound, size=filter_shape), dtype=theano.config.floatX
            ),
            borrow=True,
        )
        self.b = theano.shared(
            numpy.zeros((filter_shape[0],), dtype=theano.config.floatX), borrow=True
        )
        conv_out = conv2d(
            input=input, filters=self.W, filter_shape=filter_shape, input_shape=image_shape
        )
        pooled = pool.pool_2d(input=conv_out, ws=poolsize, ignore_border=True)
        self.output = T.nnet.relu(pooled + self.b.dimshuffle("x", 0, "x", "x"))
        self.params = [self.W, self.b]


class SoftmaxLayer:
    def __init__(self, rng, input, n_in, n_out):
        self.W = theano.shared(
            numpy.asarray(rng.normal(0, 0.01, size=(n_in, n_out)), dtype=theano.config.floatX),
            borrow=True,
        )
        self.b = theano.shared(numpy.zeros((n_out,), dtype=theano.config.floatX), borrow=True)
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]

    def negative_log_likelihood(self, y):
        return T.mean(T.nnet.categorical_crossentropy(self.p_y_given_x, y))

    def errors(self, y):
        return T.mean(T.neq(self.y_pred, y))


def build(rng, batch_size, nkerns, dropout, learning_rate, train_set, test_set):
    index = T.lscalar("index")
    x = T.matrix("x")
    y = T.ivector("y")
    srng = MRG_RandomStreams(rng.randint(1, 2**30))

    layer0 = ConvPoolLayer(
        rng,
        x.reshape((batch_size, 1, 16, 16)),
        filter_shape=(nkerns[0], 1, 3, 3),
        image_shape=(batch_size, 1, 16, 16),
    )
    layer1 = ConvPoolLayer(
        rng,
        layer0.output,
        filter_shape=(nkerns[1], nkerns[0], 3, 3),
        image_shape=(batch_size, nkerns[0], 7, 7),
    )
    features = layer1.output.flatten(2)
    keep = srng.binomial(size=features.shape, p=1 - dropout, dtype=theano.config.floatX)
    train_out = SoftmaxLayer(rng, features * keep / (1 - dropout), nkerns[1] * 2 * 2, 4)
    test_out = SoftmaxLayer(rng, features, nkerns[1] * 2 * 2, 4)
    test_out.W, test_out.b = train_out.W, train_out.b
    test_out.p_y_given_x = T.nnet.softmax(T.dot(features, train_out.W) + train_out.b)
    test_out.y_pred = T.argmax(test_out.p_y_given_x, axis=1)

    params = layer0.params + layer1.params + train_out.params
    cost = train_out.negative_log_likelihood(y)
    grads = T.grad(cost, params)
    batch = slice(index * batch_size, (index + 1) * batch_size)
    train_model = theano.function(
        [index],
        cost,
        updates=[(p, p - learning_rate * g) for p, g in zip(params, grads)],
        givens={x: train_set[0][batch], y: train_set[1][batch]},
    )
    test_model = theano.function(
        [index], test_out.errors(y), givens={x: test_set[0][batch], y: test_set[1][batch]}
    )
    return train_model, test_model


def main(
    n_train=400,
    n_test=100,
    n_epochs=10,
    batch_size=20,
    nkerns=(6, 12),
    dropout=0.3,
    learning_rate=0.1,
    seed=7,
):
    rng = numpy.random.RandomState(seed)
    train_set = shared_dataset(make_shapes(n_train, rng))
    test_set = shared_dataset(make_shapes(n_test, rng))
    train_model, test_model = build(
        rng, batch_size, nkerns, dropout, learning_rate, train_set, test_set
    )
    for epoch in range(n_epochs):
        cost = numpy.mean([train_model(i) for i in range(n_train // batch_size)])
        print(f"epoch {epoch}, training cost {cost:.4f}")
    error = numpy.mean([test_model(i) for i in range(n_test // batch_size)])
    print(f"test error {100 * error:.2f} %")
    return error


if __name__ == "__main__":
    main()
