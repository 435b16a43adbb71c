"""
Bayesian regression with a hand-written HMC sampler
===================================================

A Bayesian linear regression's log-density and its gradient are built once as a graph and
compiled; a small Hamiltonian Monte Carlo sampler written in NumPy calls the compiled function
thousands of times, which is how probabilistic-programming libraries use arignote. The
posterior mean is compared with the exact one (the model is conjugate).
"""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt


def log_density(x_data: np.ndarray, y_data: np.ndarray, noise: float, prior: float):
    """The compiled ``theta -> (log p(theta | data) + const, its gradient)``."""
    theta = pt.dvector("theta")
    residual = pt.constant(y_data) - pt.constant(x_data) @ theta
    logp = -0.5 * (residual**2).sum() / noise**2 - 0.5 * (theta**2).sum() / prior**2
    return arignote.function([theta], [logp, arignote.grad(logp, theta)], trust_input=True)


def hmc(logp_and_grad, start, rng, n_samples=2000, step=0.05, n_leapfrog=10):
    theta = np.asarray(start, dtype="float64")
    logp, grad = logp_and_grad(theta)
    samples, accepted = [], 0
    for _ in range(n_samples):
        momentum = rng.normal(size=theta.shape)
        new, new_grad, p = theta.copy(), grad.copy(), momentum + 0.5 * step * grad
        for i in range(n_leapfrog):
            new = new + step * p
            new_logp, new_grad = logp_and_grad(new)
            p = p + (step if i < n_leapfrog - 1 else 0.5 * step) * new_grad
        log_ratio = new_logp - 0.5 * p @ p - (logp - 0.5 * momentum @ momentum)
        if np.log(rng.uniform()) < log_ratio:
            theta, logp, grad = new, new_logp, new_grad
            accepted += 1
        samples.append(theta)
    return np.array(samples), accepted / n_samples


def main(n_samples: int = 2000) -> float:
    rng = np.random.default_rng(7)
    x_data = rng.normal(size=(100, 3))
    y_data = x_data @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=100)
    noise, prior = 0.3, 10.0
    samples, rate = hmc(log_density(x_data, y_data, noise, prior), np.zeros(3), rng, n_samples)
    precision = x_data.T @ x_data / noise**2 + np.eye(3) / prior**2
    exact = np.linalg.solve(precision, x_data.T @ y_data / noise**2)
    estimate = samples[n_samples // 4 :].mean(axis=0)
    print(f"acceptance rate {rate:.2f}")
    print("posterior mean, HMC:  ", np.round(estimate, 3))
    print("posterior mean, exact:", np.round(exact, 3))
    return float(np.abs(estimate - exact).max())


if __name__ == "__main__":
    main()
