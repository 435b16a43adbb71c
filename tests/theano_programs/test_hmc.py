"""The Theano tutorial's Hamiltonian Monte Carlo sampler (``hmc.py``): leapfrog integration of
Hamiltonian dynamics written as a ``theano.scan`` with ``outputs_info`` and ``non_sequences``,
a Metropolis accept/reject step drawing from random streams, and a compiled ``simulate``
function whose updates move the shared position and adapt the shared step size towards a
target acceptance rate. Sampling a correlated Gaussian, the sample mean and covariance must
match the truth. Only the import lines differ from Theano."""

import numpy
import pytest

import arignote as theano
import arignote.tensor as T
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from arignote.tensor.shared_randomstreams import RandomStreams

sharedX = lambda X, name: theano.shared(  # noqa: E731
    numpy.asarray(X, dtype=theano.config.floatX), name=name
)


def kinetic_energy(vel):
    return 0.5 * (vel**2).sum(axis=1)


def hamiltonian(pos, vel, energy_fn):
    return energy_fn(pos) + kinetic_energy(vel)


def metropolis_hastings_accept(energy_prev, energy_next, s_rng):
    ediff = energy_prev - energy_next
    return (T.exp(ediff) - s_rng.uniform(size=energy_prev.shape)) >= 0


def simulate_dynamics(initial_pos, initial_vel, stepsize, n_steps, energy_fn):
    def leapfrog(pos, vel, step):
        # from pos(t) and vel(t - stepsize / 2), compute vel(t + stepsize / 2)
        dE_dpos = T.grad(energy_fn(pos).sum(), pos)
        new_vel = vel - step * dE_dpos
        # from vel(t + stepsize / 2) compute pos(t + stepsize)
        new_pos = pos + step * new_vel
        return [new_pos, new_vel], {}

    # The first half step of the velocity, outside the loop.
    initial_energy = energy_fn(initial_pos)
    dE_dpos = T.grad(initial_energy.sum(), initial_pos)
    vel_half_step = initial_vel - 0.5 * stepsize * dE_dpos
    pos_full_step = initial_pos + stepsize * vel_half_step

    (all_pos, all_vel), scan_updates = theano.scan(
        leapfrog,
        outputs_info=[dict(initial=pos_full_step), dict(initial=vel_half_step)],  # noqa: C408
        non_sequences=[stepsize],
        n_steps=n_steps - 1,
    )
    final_pos = all_pos[-1]
    final_vel = all_vel[-1]
    # The leapfrog step always leaves the velocity half a step ahead; take it back.
    assert not scan_updates
    energy = energy_fn(final_pos)
    final_vel = final_vel - 0.5 * stepsize * T.grad(energy.sum(), final_pos)
    return final_pos, final_vel


def hmc_move(s_rng, positions, energy_fn, stepsize, n_steps):
    initial_vel = s_rng.normal(size=positions.shape)
    final_pos, final_vel = simulate_dynamics(
        initial_pos=positions,
        initial_vel=initial_vel,
        stepsize=stepsize,
        n_steps=n_steps,
        energy_fn=energy_fn,
    )
    accept = metropolis_hastings_accept(
        energy_prev=hamiltonian(positions, initial_vel, energy_fn),
        energy_next=hamiltonian(final_pos, final_vel, energy_fn),
        s_rng=s_rng,
    )
    return accept, final_pos


def hmc_updates(
    positions,
    stepsize,
    avg_acceptance_rate,
    final_pos,
    accept,
    target_acceptance_rate,
    stepsize_inc,
    stepsize_dec,
    stepsize_min,
    stepsize_max,
    avg_acceptance_slowness,
):
    # broadcast the per-chain acceptance over the position's other dimensions
    accept_matrix = accept.dimshuffle(0, *(("x",) * (final_pos.ndim - 1)))
    new_positions = T.switch(accept_matrix, final_pos, positions)
    _new_stepsize = T.switch(
        avg_acceptance_rate > target_acceptance_rate,
        stepsize * stepsize_inc,
        stepsize * stepsize_dec,
    )
    new_stepsize = T.clip(_new_stepsize, stepsize_min, stepsize_max)
    mean_dtype = theano.scalar.upcast(accept.dtype, avg_acceptance_rate.dtype)
    new_acceptance_rate = T.add(
        avg_acceptance_slowness * avg_acceptance_rate,
        (1.0 - avg_acceptance_slowness) * accept.mean(dtype=mean_dtype),
    )
    return [
        (positions, new_positions),
        (stepsize, new_stepsize),
        (avg_acceptance_rate, new_acceptance_rate),
    ]


class HMC_sampler:
    """Keeps the shared state of a batch of HMC chains and the compiled ``simulate``."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    @classmethod
    def new_from_shared_positions(
        cls,
        shared_positions,
        energy_fn,
        initial_stepsize=0.01,
        target_acceptance_rate=0.9,
        n_steps=20,
        stepsize_dec=0.98,
        stepsize_min=0.001,
        stepsize_max=0.25,
        stepsize_inc=1.02,
        avg_acceptance_slowness=0.9,
        seed=12345,
        rng_class=RandomStreams,
    ):
        stepsize = sharedX(initial_stepsize, "hmc_stepsize")
        avg_acceptance_rate = sharedX(target_acceptance_rate, "avg_acceptance_rate")
        s_rng = rng_class(seed)
        accept, final_pos = hmc_move(s_rng, shared_positions, energy_fn, stepsize, n_steps)
        simulate_updates = hmc_updates(
            shared_positions,
            stepsize,
            avg_acceptance_rate,
            final_pos=final_pos,
            accept=accept,
            stepsize_min=stepsize_min,
            stepsize_max=stepsize_max,
            stepsize_inc=stepsize_inc,
            stepsize_dec=stepsize_dec,
            target_acceptance_rate=target_acceptance_rate,
            avg_acceptance_slowness=avg_acceptance_slowness,
        )
        simulate = theano.function([], [], updates=simulate_updates)
        return cls(
            positions=shared_positions,
            stepsize=stepsize,
            stepsize_min=stepsize_min,
            stepsize_max=stepsize_max,
            avg_acceptance_rate=avg_acceptance_rate,
            target_acceptance_rate=target_acceptance_rate,
            s_rng=s_rng,
            _updates=simulate_updates,
            simulate=simulate,
        )

    def draw(self, **kwargs):
        self.simulate()
        return self.positions.get_value(borrow=False)


def sampler_on_gaussian(rng_class, dim=5, batchsize=25, burnin=200, n_samples=200, seed=123):
    rng = numpy.random.RandomState(seed)
    # a random mean and a random positive-definite covariance
    mu = numpy.array(rng.rand(dim) * 10, dtype=theano.config.floatX)
    cov = numpy.array(rng.rand(dim, dim), dtype=theano.config.floatX)
    cov = (cov + cov.T) / 2.0
    cov[numpy.arange(dim), numpy.arange(dim)] = 1.0
    cov_inv = numpy.linalg.inv(cov)

    def gaussian_energy(x):
        return 0.5 * (T.dot((x - mu), cov_inv) * (x - mu)).sum(axis=1)

    position = rng.randn(batchsize, dim).astype(theano.config.floatX)
    position = theano.shared(position)
    sampler = HMC_sampler.new_from_shared_positions(
        position, gaussian_energy, initial_stepsize=1e-3, stepsize_max=0.5, rng_class=rng_class
    )
    [sampler.draw() for r in range(burnin)]
    _samples = numpy.asarray([sampler.draw() for r in range(n_samples)])
    samples = _samples.T.reshape(dim, -1).T
    return sampler, samples, mu, cov


@pytest.mark.parametrize("rng_class", [RandomStreams, MRG_RandomStreams])
def test_hmc_samples_a_gaussian(rng_class):
    sampler, samples, mu, cov = sampler_on_gaussian(rng_class, burnin=300, n_samples=300)
    # 300 draws of 25 chains after a burn-in long enough for the step size to grow from 1e-3:
    # the empirical moments are close to the truth (errors ~0.04 on these seeds).
    numpy.testing.assert_allclose(samples.mean(axis=0), mu, atol=0.12)
    numpy.testing.assert_allclose(numpy.cov(samples.T), cov, atol=0.15)
    # the step size adapted towards the target acceptance rate
    acceptance = sampler.avg_acceptance_rate.get_value()
    assert 0.8 < acceptance < 0.98, acceptance
    assert 0.1 < sampler.stepsize.get_value() <= 0.5
