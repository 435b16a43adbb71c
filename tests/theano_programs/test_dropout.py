"""A dropout multilayer perceptron in the style of the Theano-era dropout programs: rectified
hidden layers whose outputs are masked by ``MRG_RandomStreams.binomial`` draws during training,
and a separate deterministic network sharing the weights (scaled by the keep probability) for
testing; trained with momentum. Only the import lines differ from Theano."""

import numpy

import arignote as theano
import arignote.tensor as T
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from tests.theano_programs.test_logistic_regression import LogisticRegression, load_data
from tests.theano_programs.test_mlp import HiddenLayer


def _dropout_from_layer(rng, layer, p):
    """p is the probability of dropping a unit."""
    srng = MRG_RandomStreams(rng.randint(999999))
    mask = srng.binomial(n=1, p=1 - p, size=layer.shape)
    output = layer * T.cast(mask, theano.config.floatX)
    return output


class DropoutHiddenLayer(HiddenLayer):
    def __init__(self, rng, input, n_in, n_out, activation, dropout_rate, W=None, b=None):
        super().__init__(
            rng=rng, input=input, n_in=n_in, n_out=n_out, W=W, b=b, activation=activation
        )
        self.output = _dropout_from_layer(rng, self.output, p=dropout_rate)


class DropoutMLP:
    def __init__(self, rng, input, layer_sizes, dropout_rates, activation):
        self.dropout_layers = []
        self.layers = []
        next_layer_input = input
        next_dropout_layer_input = _dropout_from_layer(rng, input, p=dropout_rates[0])
        weight_matrix_sizes = list(zip(layer_sizes, layer_sizes[1:]))  # noqa: RUF007
        for layer_counter, (n_in, n_out) in enumerate(weight_matrix_sizes[:-1]):
            next_dropout_layer = DropoutHiddenLayer(
                rng=rng,
                input=next_dropout_layer_input,
                activation=activation,
                n_in=n_in,
                n_out=n_out,
                dropout_rate=dropout_rates[layer_counter + 1],
            )
            self.dropout_layers.append(next_dropout_layer)
            next_dropout_layer_input = next_dropout_layer.output
            next_layer = HiddenLayer(
                rng=rng,
                input=next_layer_input,
                activation=activation,
                W=next_dropout_layer.W * (1 - dropout_rates[layer_counter]),
                b=next_dropout_layer.b,
                n_in=n_in,
                n_out=n_out,
            )
            self.layers.append(next_layer)
            next_layer_input = next_layer.output
        n_in, n_out = weight_matrix_sizes[-1]
        dropout_output_layer = LogisticRegression(
            input=next_dropout_layer_input, n_in=n_in, n_out=n_out
        )
        self.dropout_layers.append(dropout_output_layer)
        output_layer = LogisticRegression(input=next_layer_input, n_in=n_in, n_out=n_out)
        output_layer.W = dropout_output_layer.W * (1 - dropout_rates[-1])
        output_layer.p_y_given_x = T.nnet.softmax(
            T.dot(next_layer_input, output_layer.W) + dropout_output_layer.b
        )
        output_layer.y_pred = T.argmax(output_layer.p_y_given_x, axis=1)
        self.layers.append(output_layer)
        self.dropout_negative_log_likelihood = self.dropout_layers[-1].negative_log_likelihood
        self.errors = self.layers[-1].errors
        self.params = [param for layer in self.dropout_layers for param in layer.params]


def test_dropout_mlp(learning_rate=0.1, momentum=0.5, n_epochs=6, batch_size=20):
    datasets = load_data()
    train_set_x, train_set_y = datasets[0]
    test_set_x, test_set_y = datasets[2]
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_test_batches = test_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    rng = numpy.random.RandomState(1234)
    classifier = DropoutMLP(
        rng=rng,
        input=x,
        layer_sizes=[28 * 28, 80, 10],
        dropout_rates=[0.2, 0.5],
        activation=T.nnet.relu,
    )
    dropout_cost = classifier.dropout_negative_log_likelihood(y)

    test_model = theano.function(
        inputs=[index],
        outputs=classifier.errors(y),
        givens={
            x: test_set_x[index * batch_size : (index + 1) * batch_size],
            y: test_set_y[index * batch_size : (index + 1) * batch_size],
        },
    )
    gparams = [T.grad(dropout_cost, param) for param in classifier.params]
    gparams_mom = [
        theano.shared(numpy.zeros(param.get_value(borrow=True).shape, dtype=theano.config.floatX))
        for param in classifier.params
    ]
    updates = []
    for gparam_mom, gparam in zip(gparams_mom, gparams):
        updates.append((gparam_mom, momentum * gparam_mom - learning_rate * gparam))
    for param, gparam_mom in zip(classifier.params, gparams_mom):
        updates.append(
            (param, param + momentum * gparam_mom - learning_rate * T.grad(dropout_cost, param))
        )
    train_model = theano.function(
        inputs=[index],
        outputs=dropout_cost,
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
    assert costs[-1] < 0.5 * costs[0]
    assert test_score < 0.2
    # the masks change from call to call (the MRG states advance by their default updates)
    assert train_model(0) != train_model(0)
