"""Building loops with ``scan`` (arignote/scan/basic.py)."""

import numpy as np

import arignote
import arignote.tensor as pt


def test_a_non_sequence_given_twice_is_one_loop_input():
    # found by the seed-17 differential run (program 5863): the inner function got the same
    # placeholder twice and refused to compile
    v = pt.dscalar("v")
    steps = arignote.scan(lambda a, b: a + b, non_sequences=[v, v], n_steps=3, return_updates=False)
    np.testing.assert_allclose(arignote.function([v], steps)(2.0), [4.0, 4.0, 4.0])
    slope = arignote.function([v], arignote.grad(steps.sum(), v))(2.0)
    np.testing.assert_allclose(slope, 6.0)
