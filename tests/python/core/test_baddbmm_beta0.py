"""baddbmm with beta=0 ignores self, NaN and inf included (PyTorch's documented behaviour), for
every self shape that broadcasts. torch 1.13's CPU kernel returns uninitialised memory in this
case (NaN in about a third of runs), so the reference is alpha * bmm in float64."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("self_shape", [(2, 3, 5), (3, 5), (5,), ()])
def test_baddbmm_beta0_is_alpha_bmm(self_shape):
    rng = np.random.default_rng(0)
    b1, b2 = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    self_ = ember.full(self_shape, float("nan"), dtype=ember.float64)
    for _ in range(20):  # fresh outputs over memory that held NaN
        junk = [ember.full((2, 3, 5), float("nan"), dtype=ember.float64) for _ in range(3)]
        del junk
        out = ember.baddbmm(self_, ember.tensor(b1), ember.tensor(b2), beta=0, alpha=3)
        np.testing.assert_allclose(out.numpy(), 3 * (b1 @ b2), rtol=1e-13, atol=1e-13)
