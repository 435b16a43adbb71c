"""The Theano tutorial's convolutional network (``convolutional_mlp.py``, LeNet5): two
convolution + max-pooling layers, a tanh layer and logistic regression, on 28x28 images; only
the import lines differ (``conv2d`` from ``tensor.nnet``, ``pool`` from ``tensor.signal``)."""

import numpy

import arignote as theano
import arignote.tensor as T
from arignote.tensor.nnet import conv2d
from arignote.tensor.signal import pool
from tests.theano_programs.test_logistic_regression import LogisticRegression, load_data
from tests.theano_programs.test_mlp import HiddenLayer


class LeNetConvPoolLayer:
    def __init__(self, rng, input, filter_shape, image_shape, poolsize=(2, 2)):
        assert image_shape[1] == filter_shape[1]
        self.input = input
        fan_in = numpy.prod(filter_shape[1:])
        fan_out = filter_shape[0] * numpy.prod(filter_shape[2:]) // numpy.prod(poolsize)
        W_bound = numpy.sqrt(6.0 / (fan_in + fan_out))
        self.W = theano.shared(
            numpy.asarray(
                rng.uniform(low=-W_bound, high=W_bound, size=filter_shape),
                dtype=theano.config.floatX,
            ),
            borrow=True,
        )
        b_values = numpy.zeros((filter_shape[0],), dtype=theano.config.floatX)
        self.b = theano.shared(value=b_values, borrow=True)
        conv_out = conv2d(
            input=input, filters=self.W, filter_shape=filter_shape, input_shape=image_shape
        )
        pooled_out = pool.pool_2d(input=conv_out, ws=poolsize, ignore_border=True)
        self.output = T.tanh(pooled_out + self.b.dimshuffle("x", 0, "x", "x"))
        self.params = [self.W, self.b]
        self.input = input


def evaluate_lenet5(learning_rate=0.1, n_epochs=6, nkerns=(8, 12), batch_size=20):
    rng = numpy.random.RandomState(23455)
    datasets = load_data()
    train_set_x, train_set_y = datasets[0]
    test_set_x, test_set_y = datasets[2]
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_test_batches = test_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    layer0_input = x.reshape((batch_size, 1, 28, 28))
    layer0 = LeNetConvPoolLayer(
        rng,
        input=layer0_input,
        image_shape=(batch_size, 1, 28, 28),
        filter_shape=(nkerns[0], 1, 5, 5),
        poolsize=(2, 2),
    )
    layer1 = LeNetConvPoolLayer(
        rng,
        input=layer0.output,
        image_shape=(batch_size, nkerns[0], 12, 12),
        filter_shape=(nkerns[1], nkerns[0], 5, 5),
        poolsize=(2, 2),
    )
    layer2_input = layer1.output.flatten(2)
    layer2 = HiddenLayer(
        rng, input=layer2_input, n_in=nkerns[1] * 4 * 4, n_out=100, activation=T.tanh
    )
    layer3 = LogisticRegression(input=layer2.output, n_in=100, n_out=10)
    cost = layer3.negative_log_likelihood(y)

    test_model = theano.function(
        [index],
        layer3.errors(y),
        givens={
            x: test_set_x[index * batch_size : (index + 1) * batch_size],
            y: test_set_y[index * batch_size : (index + 1) * batch_size],
        },
    )
    params = layer3.params + layer2.params + layer1.params + layer0.params
    grads = T.grad(cost, params)
    updates = [
        (param_i, param_i - learning_rate * grad_i) for param_i, grad_i in zip(params, grads)
    ]
    train_model = theano.function(
        [index],
        cost,
        updates=updates,
        givens={
            x: train_set_x[index * batch_size : (index + 1) * batch_size],
            y: train_set_y[index * batch_size : (index + 1) * batch_size],
        },
    )

    costs = []
    for _epoch in range(n_epochs):
        costs.append(numpy.mean([train_model(i) for i in range(n_train_batches)]))
    test_score = numpy.mean([test_model(i) for i in range(n_test_batches)])
    return layer1, costs, test_score


def test_lenet5_learns():
    layer1, costs, test_score = evaluate_lenet5()
    assert layer1.output.type.shape == (20, 12, 4, 4)  # static shapes from the shape hints
    assert costs[-1] < 0.5 * costs[0]
    assert test_score < 0.25
