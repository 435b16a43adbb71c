"""The Theano tutorial's logistic regression (``logistic_sgd.py``), trained by minibatch SGD
with ``givens`` slicing shared datasets; only the import lines differ from Theano."""

import numpy

import arignote as theano
import arignote.tensor as T
from tests.theano_programs.synthetic import mnist_like


class LogisticRegression:
    """Multi-class logistic regression: softmax of an affine map of the input."""

    def __init__(self, input, n_in, n_out):
        self.W = theano.shared(
            value=numpy.zeros((n_in, n_out), dtype=theano.config.floatX), name="W", borrow=True
        )
        self.b = theano.shared(
            value=numpy.zeros((n_out,), dtype=theano.config.floatX), name="b", borrow=True
        )
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]
        self.input = input

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        if y.ndim != self.y_pred.ndim:
            raise TypeError(
                "y should have the same shape as self.y_pred",
                ("y", y.type, "y_pred", self.y_pred.type),
            )
        if y.dtype.startswith("int"):
            return T.mean(T.neq(self.y_pred, y))
        else:
            raise NotImplementedError()


def shared_dataset(data_xy, borrow=True):
    data_x, data_y = data_xy
    shared_x = theano.shared(numpy.asarray(data_x, dtype=theano.config.floatX), borrow=borrow)
    shared_y = theano.shared(numpy.asarray(data_y, dtype=theano.config.floatX), borrow=borrow)
    return shared_x, T.cast(shared_y, "int32")


def load_data():
    return [shared_dataset(split) for split in mnist_like()]


def sgd_optimization_mnist(learning_rate=0.13, n_epochs=8, batch_size=20):
    datasets = load_data()
    train_set_x, train_set_y = datasets[0]
    test_set_x, test_set_y = datasets[2]
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_test_batches = test_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    classifier = LogisticRegression(input=x, n_in=28 * 28, n_out=10)
    cost = classifier.negative_log_likelihood(y)

    test_model = theano.function(
        inputs=[index],
        outputs=classifier.errors(y),
        givens={
            x: test_set_x[index * batch_size : (index + 1) * batch_size],
            y: test_set_y[index * batch_size : (index + 1) * batch_size],
        },
    )
    g_W = T.grad(cost=cost, wrt=classifier.W)
    g_b = T.grad(cost=cost, wrt=classifier.b)
    updates = [
        (classifier.W, classifier.W - learning_rate * g_W),
        (classifier.b, classifier.b - learning_rate * g_b),
    ]
    train_model = theano.function(
        inputs=[index],
        outputs=cost,
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
    return costs, test_score


def test_logistic_regression_learns():
    costs, test_score = sgd_optimization_mnist()
    assert costs[-1] < 0.5 * costs[0]
    assert test_score < 0.2  # chance is 0.9
