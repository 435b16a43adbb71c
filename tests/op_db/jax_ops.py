"""op_db entry: a JAX function wrapped by ``arignote.wrap_jax`` (registered when jax is
installed; it is in the ``test`` extra)."""

from __future__ import annotations

import importlib.util

import numpy as np

from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register

NOT_PICKLABLE = (
    "the op holds the user's JAX function, a closure pickle cannot store (as in PyTensor)"
)


def _samples(rng):
    return [Sample((rng.normal(size=(3, 4)), rng.uniform(0.5, 2, size=(4,))), name="bc")]


def _build(x, y):
    jnp = importlib.import_module("jax.numpy")
    wrap_jax = importlib.import_module("arignote.link.jax.ops").wrap_jax
    specify_shape = importlib.import_module("arignote.tensor").specify_shape
    x, y = specify_shape(x, (3, 4)), specify_shape(y, (4,))
    return wrap_jax(lambda a, b: jnp.sin(a) * jnp.log(b) + a**2)(x, y)


def _ref(x, y):
    return np.sin(x) * np.log(y) + x**2


if importlib.util.find_spec("jax") is not None:
    register(
        OpInfo(
            "wrap_jax",
            _build,
            _ref,
            _samples,
            FLOAT_DTYPES,
            rtol=1e-5,
            directives=[Directive("props", NOT_PICKLABLE, kind="skip")],
        )
    )
