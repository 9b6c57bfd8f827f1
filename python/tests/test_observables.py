"""Observables (issue 11): a model's auxiliaries listed under observables are saved beside the state at
every save, computed from the saved state, named, on the CPU (the GPU's run-by-run check: test_gpu.py
and gpu_vs_cpu_test)."""

import numpy
import pytest

import batchode
from conftest import quiet


@pytest.fixture
def observed():
    return batchode.Model(equations="energy = (v^2 + w^2 * x^2) / 2\nxv = x * v\ndx = v\ndv = -w^2 * x",
                          states={"x": 1.0, "v": 0.0}, parameters={"w": 2.0}, observables=["energy", "xv"],
                          name="observed_oscillator")


@pytest.mark.parametrize("save", [dict(save_every=0.25), dict(save_at=[0.1, 0.33, 0.9]),
                                  dict(save_at=[[0.1, 0.2], [0.5, 1.0], [0.3, 0.7]])])
def test_observables_are_saved_beside_the_state(observed, save):
    w = numpy.array([0.5, 1.0, 3.0])
    r = batchode.solve_ivp(observed, t_span=(0.0, 1.0), parameters={"w": w}, method="dopri5", rtol=1e-10,
                           atol=1e-10, backend="cpu", **save, **quiet())
    assert observed.observables == ["energy", "xv"]
    assert r.observable_names == ["energy", "xv"]
    assert r.observables.shape == r.state.shape[:2] + (2,)
    x, v = r.state[..., 0], r.state[..., 1]
    numpy.testing.assert_array_equal(r.observables[..., 1], x * v)  # the same product of the same values
    numpy.testing.assert_allclose(r.observables[..., 0], (v * v + (w[:, None] * x) ** 2) / 2, rtol=1e-15)
    numpy.testing.assert_allclose(r.observables[..., 0], numpy.broadcast_to(w[:, None] ** 2 / 2, x.shape),
                                  rtol=1e-8)


def test_no_saves_no_observables(observed):
    r = batchode.solve_ivp(observed, t_span=(0.0, 1.0), backend="cpu", **quiet())
    assert r.observables is None and r.observable_names == ["energy", "xv"]


def test_an_observable_must_be_an_auxiliary():
    with pytest.raises(batchode.ModelError, match="observable 'nope' is not an auxiliary"):
        batchode.Model(equations="dx = -x", states={"x": 1.0}, observables=["nope"])
