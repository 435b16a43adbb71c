"""choice(replace=False) is a ChoiceWithoutReplacement node (PyTensor's op class for it), with
NumPy's draws."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.random.basic import ChoiceRV, ChoiceWithoutReplacement


def test_choice_without_replacement_has_its_own_op_class_and_numpys_draws():
    rng = pt.random.shared_rng(np.random.default_rng(5))
    a = pt.dvector("a")
    draw = pt.random.choice(a, size=(3,), replace=False, rng=rng)
    op = draw.owner.op
    assert isinstance(op, ChoiceWithoutReplacement) and isinstance(op, ChoiceRV)
    assert op.replace is False
    assert not isinstance(
        pt.random.choice(a, size=(3,), rng=rng).owner.op, ChoiceWithoutReplacement
    )
    values = np.arange(10.0)
    got = arignote.function([a], draw)(values)
    expected = np.random.default_rng(5).choice(values, size=(3,), replace=False)
    np.testing.assert_array_equal(got, expected)
    assert len(set(got)) == 3
    with pytest.raises(ValueError, match="without replacement"):
        ChoiceWithoutReplacement(ndim_supp=0, ndims_params=(1, 1), replace=True)
