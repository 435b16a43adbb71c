"""The Theano tutorial's restricted Boltzmann machine (``rbm.py``): binary units, Gibbs sampling
written as a ``theano.scan`` over ``gibbs_hvh`` with binomial draws inside the step, training
by contrastive divergence (CD-k) or persistent CD with a shared chain, the scan's random-state
updates merged into the parameter updates, and ``T.grad(..., consider_constant=[chain_end])``.
Only the import lines differ from Theano; the data are small synthetic binary patterns."""

import numpy
import pytest

import arignote as theano
import arignote.tensor as T
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from arignote.tensor.shared_randomstreams import RandomStreams


class RBM:
    """Restricted Boltzmann machine with binary visible and hidden units."""

    def __init__(
        self,
        input=None,
        n_visible=16,
        n_hidden=8,
        W=None,
        hbias=None,
        vbias=None,
        numpy_rng=None,
        theano_rng=None,
    ):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        if numpy_rng is None:
            numpy_rng = numpy.random.RandomState(1234)
        if theano_rng is None:
            theano_rng = RandomStreams(numpy_rng.randint(2**30))
        if W is None:
            bound = 4 * numpy.sqrt(6.0 / (n_hidden + n_visible))
            initial_W = numpy.asarray(
                numpy_rng.uniform(low=-bound, high=bound, size=(n_visible, n_hidden)),
                dtype=theano.config.floatX,
            )
            W = theano.shared(value=initial_W, name="W", borrow=True)
        if hbias is None:
            hbias = theano.shared(
                value=numpy.zeros(n_hidden, dtype=theano.config.floatX), name="hbias", borrow=True
            )
        if vbias is None:
            vbias = theano.shared(
                value=numpy.zeros(n_visible, dtype=theano.config.floatX), name="vbias", borrow=True
            )
        self.input = input if input is not None else T.matrix("input")
        self.W = W
        self.hbias = hbias
        self.vbias = vbias
        self.theano_rng = theano_rng
        self.params = [self.W, self.hbias, self.vbias]

    def free_energy(self, v_sample):
        wx_b = T.dot(v_sample, self.W) + self.hbias
        vbias_term = T.dot(v_sample, self.vbias)
        hidden_term = T.sum(T.log(1 + T.exp(wx_b)), axis=1)
        return -hidden_term - vbias_term

    def propup(self, vis):
        pre_sigmoid_activation = T.dot(vis, self.W) + self.hbias
        return [pre_sigmoid_activation, T.nnet.sigmoid(pre_sigmoid_activation)]

    def sample_h_given_v(self, v0_sample):
        pre_sigmoid_h1, h1_mean = self.propup(v0_sample)
        h1_sample = self.theano_rng.binomial(
            size=h1_mean.shape, n=1, p=h1_mean, dtype=theano.config.floatX
        )
        return [pre_sigmoid_h1, h1_mean, h1_sample]

    def propdown(self, hid):
        pre_sigmoid_activation = T.dot(hid, self.W.T) + self.vbias
        return [pre_sigmoid_activation, T.nnet.sigmoid(pre_sigmoid_activation)]

    def sample_v_given_h(self, h0_sample):
        pre_sigmoid_v1, v1_mean = self.propdown(h0_sample)
        v1_sample = self.theano_rng.binomial(
            size=v1_mean.shape, n=1, p=v1_mean, dtype=theano.config.floatX
        )
        return [pre_sigmoid_v1, v1_mean, v1_sample]

    def gibbs_hvh(self, h0_sample):
        pre_sigmoid_v1, v1_mean, v1_sample = self.sample_v_given_h(h0_sample)
        pre_sigmoid_h1, h1_mean, h1_sample = self.sample_h_given_v(v1_sample)
        return [pre_sigmoid_v1, v1_mean, v1_sample, pre_sigmoid_h1, h1_mean, h1_sample]

    def gibbs_vhv(self, v0_sample):
        pre_sigmoid_h1, h1_mean, h1_sample = self.sample_h_given_v(v0_sample)
        pre_sigmoid_v1, v1_mean, v1_sample = self.sample_v_given_h(h1_sample)
        return [pre_sigmoid_h1, h1_mean, h1_sample, pre_sigmoid_v1, v1_mean, v1_sample]

    def get_cost_updates(self, lr=0.1, persistent=None, k=1):
        pre_sigmoid_ph, ph_mean, ph_sample = self.sample_h_given_v(self.input)
        # CD starts the chain from the data's hidden sample; PCD from the kept chain.
        chain_start = ph_sample if persistent is None else persistent
        (
            [pre_sigmoid_nvs, nv_means, nv_samples, pre_sigmoid_nhs, nh_means, nh_samples],
            updates,
        ) = theano.scan(
            self.gibbs_hvh,
            outputs_info=[None, None, None, None, None, chain_start],
            n_steps=k,
            name="gibbs_hvh",
        )
        chain_end = nv_samples[-1]
        cost = T.mean(self.free_energy(self.input)) - T.mean(self.free_energy(chain_end))
        # The chain's end is a sample: the gradient must not flow through the sampler.
        gparams = T.grad(cost, self.params, consider_constant=[chain_end])
        for gparam, param in zip(gparams, self.params):
            updates[param] = param - gparam * T.cast(lr, dtype=theano.config.floatX)
        if persistent:
            updates[persistent] = nh_samples[-1]
            monitoring_cost = self.get_pseudo_likelihood_cost(updates)
        else:
            monitoring_cost = self.get_reconstruction_cost(updates, pre_sigmoid_nvs[-1])
        return monitoring_cost, updates

    def get_pseudo_likelihood_cost(self, updates):
        bit_i_idx = theano.shared(value=0, name="bit_i_idx")
        xi = T.round(self.input)
        fe_xi = self.free_energy(xi)
        xi_flip = T.set_subtensor(xi[:, bit_i_idx], 1 - xi[:, bit_i_idx])
        fe_xi_flip = self.free_energy(xi_flip)
        cost = T.mean(self.n_visible * T.log(T.nnet.sigmoid(fe_xi_flip - fe_xi)))
        updates[bit_i_idx] = (bit_i_idx + 1) % self.n_visible
        return cost

    def get_reconstruction_cost(self, updates, pre_sigmoid_nv):
        cross_entropy = T.mean(
            T.sum(
                self.input * T.log(T.nnet.sigmoid(pre_sigmoid_nv))
                + (1 - self.input) * T.log(1 - T.nnet.sigmoid(pre_sigmoid_nv)),
                axis=1,
            )
        )
        return cross_entropy


def binary_patterns(n=120, n_visible=16, seed=7):
    """Noisy copies of three binary prototypes: an easy distribution for a small RBM."""
    rng = numpy.random.RandomState(seed)
    prototypes = rng.uniform(size=(3, n_visible)) > 0.5
    rows = prototypes[rng.randint(0, 3, size=n)]
    flips = rng.uniform(size=rows.shape) < 0.05
    return numpy.asarray(rows ^ flips, dtype=theano.config.floatX)


def train_rbm(theano_rng_class, persistent, k=1, n_epochs=8, batch_size=20, lr=0.1):
    data = binary_patterns()
    train_set_x = theano.shared(data, borrow=True)
    n_train_batches = data.shape[0] // batch_size
    index = T.lscalar()
    x = T.matrix("x")
    numpy_rng = numpy.random.RandomState(123)
    theano_rng = theano_rng_class(numpy_rng.randint(2**30))
    rbm = RBM(input=x, n_visible=16, n_hidden=8, numpy_rng=numpy_rng, theano_rng=theano_rng)
    persistent_chain = None
    if persistent:
        persistent_chain = theano.shared(
            numpy.zeros((batch_size, 8), dtype=theano.config.floatX), borrow=True
        )
    cost, updates = rbm.get_cost_updates(lr=lr, persistent=persistent_chain, k=k)
    train_rbm = theano.function(
        [index],
        cost,
        updates=updates,
        givens={x: train_set_x[index * batch_size : (index + 1) * batch_size]},
        name="train_rbm",
    )
    free_energy = theano.function([x], rbm.free_energy(x))
    noise = numpy.asarray(
        numpy.random.RandomState(3).uniform(size=data.shape) > 0.5, dtype=theano.config.floatX
    )
    fe_before = free_energy(data).mean() - free_energy(noise).mean()
    epoch_costs = []
    for _epoch in range(n_epochs):
        epoch_costs.append(numpy.mean([train_rbm(i) for i in range(n_train_batches)]))
    fe_after = free_energy(data).mean() - free_energy(noise).mean()
    return rbm, epoch_costs, fe_before, fe_after, persistent_chain


@pytest.mark.parametrize("rng_class", [RandomStreams, MRG_RandomStreams])
def test_rbm_cd_learns_the_patterns(rng_class):
    _rbm, costs, fe_before, fe_after, _ = train_rbm(rng_class, persistent=False, k=1)
    # The reconstruction log-likelihood (the monitoring cost of CD) rises as the RBM learns.
    assert numpy.all(numpy.isfinite(costs))
    assert costs[-1] > costs[0] + 3.0, costs
    # Training data end with lower free energy than random binary vectors.
    assert fe_after < fe_before - 4.0, (fe_before, fe_after)


def test_rbm_persistent_cd_keeps_the_chain():
    rbm, costs, fe_before, fe_after, chain = train_rbm(MRG_RandomStreams, persistent=True, k=3)
    state = chain.get_value()
    # The shared chain was advanced by the scan: binary hidden samples, not the zeros it began as.
    assert set(numpy.unique(state)) <= {0.0, 1.0}
    assert state.any()
    assert numpy.all(numpy.isfinite(costs))
    assert fe_after < fe_before - 4.0, (fe_before, fe_after)


def test_rbm_samples_from_a_persistent_visible_chain():
    rbm, _costs, _fe0, _fe1, _chain = train_rbm(MRG_RandomStreams, persistent=True, k=3)
    data = binary_patterns(n=10, seed=11)
    # The tutorial's sampling code: a shared visible chain advanced by gibbs_vhv in scan.
    persistent_vis_chain = theano.shared(numpy.asarray(data, dtype=theano.config.floatX))
    plot_every = 5
    (
        [presig_hids, hid_mfs, hid_samples, presig_vis, vis_mfs, vis_samples],
        updates,
    ) = theano.scan(
        rbm.gibbs_vhv,
        outputs_info=[None, None, None, None, None, persistent_vis_chain],
        n_steps=plot_every,
        name="gibbs_vhv",
    )
    updates.update({persistent_vis_chain: vis_samples[-1]})
    sample_fn = theano.function(
        [], [vis_mfs[-1], vis_samples[-1]], updates=updates, name="sample_fn"
    )
    free_energy = theano.function([rbm.input], rbm.free_energy(rbm.input))
    noise = numpy.asarray(
        numpy.random.RandomState(5).uniform(size=data.shape) > 0.5, dtype=theano.config.floatX
    )
    draws = [sample_fn() for _ in range(4)]
    for vis_mf, vis_sample in draws:
        assert set(numpy.unique(vis_sample)) <= {0.0, 1.0}
        assert numpy.all((vis_mf > 0) & (vis_mf < 1))
        # the chain stays where the model puts its mass: below the free energy of noise
        assert free_energy(vis_sample).mean() < free_energy(noise).mean() - 1.0
    # each call continues the chain from the previous call's last sample
    numpy.testing.assert_array_equal(persistent_vis_chain.get_value(), draws[-1][1])
    assert not numpy.array_equal(draws[0][1], draws[-1][1])
