"""save_variables (CuBIE's name): the series keeps only the states and observables named, in the model's
order whatever order they are named in. r.state is (n_runs, n_saves, n_saved) over r.saved_state_names,
r.observables the chosen observables; their values are those of a full series, bit for bit (the steps
do not depend on what is saved). On the CPU; the final state keeps every state."""

import numpy
import pytest

import batchode
from conftest import quiet


@pytest.fixture(scope="module")
def observed():
    return batchode.Model(equations="energy = (v^2 + w^2 * x^2) / 2\nxv = x * v\ndx = v\ndv = -w^2 * x",
                          states={"x": 1.0, "v": 0.0}, parameters={"w": 2.0}, observables=["energy", "xv"],
                          name="saved_oscillator")


W = numpy.array([0.5, 1.0, 3.0])
SAVES = [dict(save_every=0.25), dict(save_at=[0.1, 0.33, 0.9]), dict(save_at=[[0.1, 0.2], [0.5, 1.0], [0.3, 0.7]])]


def solve(model, **options):
    return batchode.solve_ivp(model, t_span=(0.0, 1.0), parameters={"w": W}, method="dopri5", rtol=1e-10,
                              atol=1e-10, backend="cpu", **quiet(**options))


@pytest.mark.parametrize("save", SAVES)
def test_the_chosen_columns_equal_the_full_series(observed, save):
    full = solve(observed, **save)
    r = solve(observed, save_variables=["xv", "x"], **save)  # kept in the model's order: x, then xv
    assert r.saved_state_names == ["x"]
    assert r.observable_names == ["xv"]
    assert r.state.shape == full.state.shape[:2] + (1,)
    assert r.observables.shape == full.observables.shape[:2] + (1,)
    numpy.testing.assert_array_equal(r.state[..., 0], full.state[..., 0])
    numpy.testing.assert_array_equal(r.observables[..., 0], full.observables[..., 1])
    numpy.testing.assert_array_equal(r.t, full.t)
    numpy.testing.assert_array_equal(r.final_state, full.final_state)  # every state, whatever is saved
    assert r.state_names == ["x", "v"]


def test_states_alone_or_observables_alone(observed):
    full = solve(observed, save_every=0.25)
    states = solve(observed, save_every=0.25, save_variables=["v"])
    assert states.saved_state_names == ["v"] and states.observables is None and states.observable_names == []
    numpy.testing.assert_array_equal(states.state, full.state[..., 1:])
    observables = solve(observed, save_every=0.25, save_variables=["energy"])
    assert observables.state is None and observables.saved_state_names == []
    assert observables.observable_names == ["energy"]
    numpy.testing.assert_array_equal(observables.observables, full.observables[..., :1])
    numpy.testing.assert_array_equal(observables.final_state, full.final_state)


def test_none_or_every_name_saves_every_variable(observed):
    full = solve(observed, save_every=0.25)
    assert full.saved_state_names == ["x", "v"] and full.observable_names == ["energy", "xv"]
    assert full.state.shape == (3, 5, 2) and full.observables.shape == (3, 5, 2)
    every = solve(observed, save_every=0.25, save_variables=["xv", "v", "energy", "x"])
    assert every.saved_state_names == ["x", "v"] and every.observable_names == ["energy", "xv"]
    numpy.testing.assert_array_equal(every.state, full.state)
    numpy.testing.assert_array_equal(every.observables, full.observables)
    # Without saves the names still say what a series would keep.
    assert solve(observed).saved_state_names == ["x", "v"]


def test_a_solver_keeps_its_choice_across_solves_and_precisions(observed):
    s = batchode.Solver(observed, t_span=(0.0, 1.0), method="rk4", dt=0.01, save_every=0.5, backend="cpu",
                        precision="float32", save_variables=("v",), **quiet())
    full = batchode.solve_ivp(observed, t_span=(0.0, 1.0), parameters={"w": W}, method="rk4", dt=0.01,
                              save_every=0.5, backend="cpu", precision="float32", **quiet())
    for _ in range(2):
        r = s.solve(parameters={"w": W})
        assert r.state.dtype == numpy.float32 and r.state.shape == (3, 3, 1)
        numpy.testing.assert_array_equal(r.state[..., 0], full.state[..., 1])


def test_bad_save_variables_are_named(observed):
    with pytest.raises(ValueError, match=r"save_variables=\[\] saves nothing: leave it None"):
        solve(observed, save_every=0.25, save_variables=[])
    with pytest.raises(ValueError, match=r"save_variables: no state or observable 'q' \(there are: x, v, energy, xv\)"):
        solve(observed, save_every=0.25, save_variables=["x", "q"])
    with pytest.raises(ValueError, match="'x' twice"):
        solve(observed, save_every=0.25, save_variables=["x", "x"])
    with pytest.raises(ValueError, match="save_variables is set but no series is saved"):
        solve(observed, save_variables=["x"])
    with pytest.raises(TypeError, match="save_variables must be a list of names"):
        solve(observed, save_every=0.25, save_variables="x")
    with pytest.raises(TypeError, match="save_variables must be a list of names"):
        solve(observed, save_every=0.25, save_variables=[0])


def test_to_xarray_names_the_chosen_columns(observed):
    xarray = pytest.importorskip("xarray", reason="xarray is not installed here (Result.to_xarray needs it)")
    full = solve(observed, save_every=0.25).to_xarray()
    assert full["state"].dims == ("run", "time", "variable")
    assert "saved_variable" not in full.coords
    chosen = solve(observed, save_every=0.25, save_variables=["v", "energy"]).to_xarray()
    assert isinstance(chosen, xarray.Dataset)
    assert chosen["state"].dims == ("run", "time", "saved_variable")
    assert list(chosen["saved_variable"].values) == ["v"]
    assert list(chosen["variable"].values) == ["x", "v"]  # the final state's: every state
    assert list(chosen["observable"].values) == ["energy"]
    numpy.testing.assert_array_equal(chosen["state"].sel(saved_variable="v").values,
                                     full["state"].sel(variable="v").values)


def test_output_types_without_a_series_refuses_save_variables_by_name(observed):
    with pytest.raises(ValueError, match="output_types keeps no series"):
        solve(observed, save_every=0.25, output_types=["mean"], save_variables=["x"])
