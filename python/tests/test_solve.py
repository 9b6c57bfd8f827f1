"""batchode.solve_ivp and batchode.Solver on the CPU (the GPU's own checks: test_gpu.py): every method
against closed forms, grids both ways, arrays in and out without copies, the C++ path run by run, and
a named error for every bad input."""

import math
import os
import subprocess

import numpy
import pytest

import batchode
from conftest import LORENZ_TOML, quiet, sweep

METHODS = [m["name"] for m in batchode.methods()]
FIXED = {m["name"] for m in batchode.methods() if not m["adaptive"]}


def test_the_method_list_is_batchodes():
    assert {"euler", "rk4", "dopri5", "tsit5", "vern7", "vern9", "rodas4", "rodas5p", "ros3p",
            "rosenbrock4", "kvaerno5", "radau5", "kvaerno3", "kencarp4", "rodas4p2"} <= set(METHODS)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_solves_exponential_decay(decay, method):
    k = numpy.linspace(0.1, 2.0, 8)
    dt = {"euler": 1e-4, "rk4": 1e-3}.get(method)
    r = batchode.solve_ivp(decay, t_span=(0.0, 2.0), parameters={"k": k}, method=method, rtol=1e-10, atol=1e-10,
                           dt=dt, backend="cpu", **quiet())
    assert r.success.all(), r.status
    exact = numpy.exp(-2.0 * k)
    # euler: first order, error x0 k^2 t dt / 2 exp(-kt) <= 4e-4; the others: tolerances 1e-10
    tolerance = 1e-3 if method == "euler" else 1e-7
    numpy.testing.assert_allclose(r.final_state[:, 0], exact, rtol=0, atol=tolerance)
    assert r.method == method


@pytest.mark.parametrize("method", ["rk4", "dopri5", "rodas4"])
def test_float32_solves_in_float32(oscillator, method):
    w = numpy.array([1.0, 2.0, 3.0])
    r = batchode.solve_ivp(oscillator, t_span=(0.0, 1.0), parameters={"w": w}, method=method, dt=1e-3,
                           rtol=1e-6, atol=1e-6, precision="float32", backend="cpu", **quiet())
    assert r.final_state.dtype == numpy.float32
    numpy.testing.assert_allclose(r.final_state[:, 0], numpy.cos(w), atol=1e-4)
    numpy.testing.assert_allclose(r.final_state[:, 1], -w * numpy.sin(w), atol=3e-4)


def test_saved_series_has_times_and_shape(oscillator):
    r = batchode.solve_ivp(oscillator, t_span=(0.0, 1.0), parameters={"w": [1.0, 2.0]}, method="dopri5",
                           rtol=1e-10, atol=1e-10, save_every=0.25, backend="cpu", **quiet())
    numpy.testing.assert_array_equal(r.t, [0.0, 0.25, 0.5, 0.75, 1.0])
    assert r.state.shape == (2, 5, 2)
    numpy.testing.assert_allclose(r.state[1, :, 0], numpy.cos(2.0 * r.t), atol=1e-8)
    numpy.testing.assert_array_equal(r.state[:, -1, :], r.final_state)


def test_save_at_interpolates_without_changing_the_steps(oscillator):
    t = numpy.linspace(0.0, 2.0, 1001)
    kw = dict(t_span=(0.0, 2.0), parameters={"w": [1.0, 2.0]}, method="dopri5", rtol=1e-9, atol=1e-9,
              counters=True, backend="cpu", **quiet())
    plain = batchode.solve_ivp(oscillator, **kw)
    r = batchode.solve_ivp(oscillator, save_at=t, **kw)
    numpy.testing.assert_array_equal(r.t, t)
    assert r.state.shape == (2, 1001, 2)
    numpy.testing.assert_allclose(r.state[1, :, 0], numpy.cos(2.0 * t), atol=1e-7)
    numpy.testing.assert_array_equal(r.counters["accepted_steps"], plain.counters["accepted_steps"])
    numpy.testing.assert_array_equal(r.final_state, plain.final_state)
    landed = batchode.solve_ivp(oscillator, save_at=t, save_mode="land", **kw)
    assert (landed.counters["accepted_steps"] >= 1000).all()
    numpy.testing.assert_allclose(landed.state, r.state, atol=1e-7)


def test_t_eval_is_scipys_name_for_save_at(oscillator):
    kw = dict(t_span=(0.0, 1.0), parameters={"w": [1.0]}, backend="cpu", **quiet())
    a = batchode.solve_ivp(oscillator, save_at=[0.3, 0.7], **kw)
    b = batchode.solve_ivp(oscillator, t_eval=numpy.array([0.3, 0.7]), **kw)
    numpy.testing.assert_array_equal(a.state, b.state)


def test_save_at_per_run_gives_each_run_its_own_times(oscillator):
    w = numpy.array([1.0, 2.0, 3.0])
    t = numpy.array([[0.0, 0.5, 1.0], [0.1, 0.2, 0.3], [1.2, 1.5, 2.0]])
    kw = dict(t_span=(0.0, 2.0), method="dopri5", rtol=1e-10, atol=1e-10, counters=True, backend="cpu", **quiet())
    r = batchode.solve_ivp(oscillator, parameters={"w": w}, save_at=t, **kw)
    assert r.t.shape == (3, 3) and r.state.shape == (3, 3, 2)
    numpy.testing.assert_array_equal(r.t, t)
    numpy.testing.assert_allclose(r.state[:, :, 0], numpy.cos(w[:, None] * t), atol=1e-8)
    for i in range(3):  # each run saves what it would alone with its times shared, bit for bit
        alone = batchode.solve_ivp(oscillator, parameters={"w": w[i:i + 1]}, save_at=t[i], **kw)
        numpy.testing.assert_array_equal(r.state[i], alone.state[0])
        assert r.counters["accepted_steps"][i] == alone.counters["accepted_steps"][0]
    assert "3 saves" in repr(r)
    with pytest.raises(ValueError, match="the batch has 2 runs"):
        batchode.Solver(oscillator, t_span=(0.0, 2.0), save_at=t, backend="cpu", **quiet()).solve(
            parameters={"w": w[:2]})


def test_no_save_every_means_no_series(decay):
    r = batchode.solve_ivp(decay, t_span=(0, 1), backend="cpu", **quiet())
    assert r.state is None and len(r.t) == 0 and r.n_runs == 1


def test_combinatorial_grid_first_axis_slowest(oscillator):
    r = batchode.solve_ivp(oscillator, t_span=(0, 0.1), y0={"x": [1.0, 2.0]}, parameters={"w": [1.0, 2.0, 3.0]},
                           grid_type="combinatorial", backend="cpu", **quiet())
    assert r.n_runs == 6
    numpy.testing.assert_array_equal(r.y0[:, 0], [1, 1, 1, 2, 2, 2])
    numpy.testing.assert_array_equal(r.y0[:, 1], [0] * 6)
    numpy.testing.assert_array_equal(r.parameters[:, 0], [1, 2, 3, 1, 2, 3])


def test_verbatim_grid_pairs_values(oscillator):
    r = batchode.solve_ivp(oscillator, t_span=(0, 0.1), y0={"x": [1.0, 2.0, 3.0]}, parameters={"w": [4, 5, 6]},
                           grid_type="verbatim", backend="cpu", **quiet())
    numpy.testing.assert_array_equal(r.y0[:, 0], [1, 2, 3])
    numpy.testing.assert_array_equal(r.parameters[:, 0], [4, 5, 6])


def test_verbatim_lengths_must_match(oscillator):
    with pytest.raises(ValueError, match="verbatim grid: axis 'w' has 2 values but axis 'x' has 3"):
        batchode.solve_ivp(oscillator, t_span=(0, 1), y0={"x": [1.0, 2.0, 3.0]}, parameters={"w": [4, 5]},
                           grid_type="verbatim", **quiet())


def test_scalars_in_dicts_replace_defaults(oscillator):
    r = batchode.solve_ivp(oscillator, t_span=(0, 0.1), y0={"v": 0.5}, parameters={"w": [1.0, 2.0]},
                           backend="cpu", **quiet())
    numpy.testing.assert_array_equal(r.y0, [[1.0, 0.5], [1.0, 0.5]])


def test_arrays_per_run_and_shared_rows(oscillator):
    y0 = numpy.array([[1.0, 0.0], [0.5, 0.0], [0.0, 1.0]])
    r = batchode.solve_ivp(oscillator, t_span=(0, 0.5), y0=y0, parameters=[2.0], method="rk4", dt=1e-3,
                           backend="cpu", **quiet())
    numpy.testing.assert_array_equal(r.parameters, [[2.0]] * 3)
    numpy.testing.assert_allclose(r.final_state[1, 0], 0.5 * math.cos(1.0), atol=1e-10)
    numpy.testing.assert_allclose(r.final_state[2, 0], math.sin(1.0) / 2.0, atol=1e-10)


def test_results_equal_the_cpp_path_run_by_run(lorenz, tmp_path):
    """The same runs through `batchode run` (C++: RuntimeModel, Solver, .npy writer), bit for bit."""
    cli = os.environ.get("BATCHODE_CLI")
    if not cli:
        pytest.skip("BATCHODE_CLI (the batchode command's path) is not set: CTest sets it")
    rho = numpy.linspace(0.0, 21.0, 64)
    for method, extra in (("dopri5", []), ("rk4", ["--dt", "1e-3"]), ("rodas4", [])):
        out = tmp_path / f"{method}.npy"
        subprocess.run([cli, "run", LORENZ_TOML, "--sweep", "rho=" + ",".join(repr(float(v)) for v in rho),
                        "--t-end", "1", "--method", method, "--backend", "cpu", "--verbosity", "none",
                        "--output", str(out)] + extra, check=True)
        r = batchode.solve_ivp(lorenz, t_span=(0.0, 1.0), parameters={"rho": rho}, method=method,
                               dt=1e-3 if method == "rk4" else None, backend="cpu", **quiet())
        numpy.testing.assert_array_equal(r.final_state, numpy.load(out), err_msg=method)


def test_solver_is_reused_and_a_new_span_rebuilds(decay):
    s = batchode.Solver(decay, method="dopri5", t_span=(0.0, 1.0), rtol=1e-10, atol=1e-10, backend="cpu",
                        **quiet())
    a = s.solve(parameters={"k": [1.0]})
    b = s.solve(parameters={"k": [1.0]}, duration=2.0)
    numpy.testing.assert_allclose(a.final_state[0, 0], math.exp(-1.0), atol=1e-8)
    numpy.testing.assert_allclose(b.final_state[0, 0], math.exp(-2.0), atol=1e-8)


def test_aliases_of_one_method_agree(decay):
    r = batchode.solve_ivp(decay, t_span=(0, 1), method="RK45", algorithm="dormand-prince-54", backend="cpu",
                           **quiet())
    assert r.method == "dopri5"
    # OrdinaryDiffEq.jl's spelling
    assert batchode.solve_ivp(decay, t_span=(0, 1), method="Rodas5P", backend="cpu", **quiet()).method == "rodas5p"
    assert batchode.solve_ivp(decay, t_span=(0, 1), method="Vern9", backend="cpu", **quiet()).method == "vern9"
    # scipy's, CuBIE's and OrdinaryDiffEq.jl's names of Radau IIA 5
    for name in ("Radau", "radau", "RadauIIA5"):
        assert batchode.solve_ivp(decay, t_span=(0, 1), method=name, backend="cpu", **quiet()).method == "radau5"
    for name, method in (("Kvaerno3", "kvaerno3"), ("KenCarp4", "kencarp4"), ("Rodas4P2", "rodas4p2")):
        assert batchode.solve_ivp(decay, t_span=(0, 1), method=name, backend="cpu", **quiet()).method == method


def test_a_new_duration_keeps_the_solvers_start(decay):
    s = batchode.Solver(decay, t_span=(1.0, 2.0), rtol=1e-10, atol=1e-10, backend="cpu", **quiet())
    r = s.solve(parameters={"k": [1.0]}, duration=3.0)  # on [1, 4]: x(4) = exp(-3) from x(1) = 1
    numpy.testing.assert_allclose(r.final_state[0, 0], math.exp(-3.0), atol=1e-8)


def test_parameters_for_a_model_without_any_are_refused():
    m = batchode.Model(equations="dx = -x", states={"x": 1.0}, name="py_no_params")
    with pytest.raises(ValueError, match="has no parameters"):
        batchode.solve_ivp(m, t_span=(0, 1), parameters=numpy.ones((2, 1)), **quiet())
    r = batchode.solve_ivp(m, t_span=(0, 1), y0=numpy.ones((2, 1)), backend="cpu", **quiet())
    assert r.parameters is None and r.n_runs == 2


def test_grid_type_is_checked_for_arrays_too(lorenz):
    with pytest.raises(ValueError, match="diagonal"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0=numpy.ones((2, 3)), parameters=numpy.ones((2, 1)),
                           grid_type="diagonal", **quiet())


def test_cubie_names_are_accepted(decay):
    r = batchode.solve_ivp(decay, duration=1.0, t0=0.0, algorithm="dormand-prince-54", dt_save=0.5,
                           parameters={"k": [1.0]}, backend="cpu", **quiet())
    assert r.method == "dopri5" and list(r.t) == [0.0, 0.5, 1.0]


def test_counters_are_a_structured_view(decay):
    r = batchode.solve_ivp(decay, t_span=(0, 1), parameters={"k": [0.1, 10.0]}, counters=True, backend="cpu",
                           **quiet())
    assert r.counters.dtype.names == ("accepted_steps", "rejected_steps", "rhs_evaluations")
    assert (r.counters["accepted_steps"] > 0).all()
    assert r.counters["accepted_steps"][1] > r.counters["accepted_steps"][0]


def test_failed_runs_have_a_status(decay):
    r = batchode.solve_ivp(decay, t_span=(0, 10), parameters={"k": [1.0, 1e6]}, method="dopri5", max_steps=50,
                           backend="cpu", **quiet())
    assert list(r.status) == [batchode.Status.success, batchode.Status.max_steps_reached]
    assert list(r.success) == [True, False]
    assert r.status_names[r.status[1]] == "max_steps_reached"


def test_each_run_says_when_it_stopped(decay):
    # The options of test_failed_runs_have_a_status: the model compiled there serves.
    r = batchode.solve_ivp(decay, t_span=(0, 10), parameters={"k": [1.0, 1e6]}, method="dopri5", max_steps=50,
                           backend="cpu", **quiet())
    assert r.t_stop.shape == (2,) and r.t_stop.dtype == numpy.float64
    assert r.t_stop[0] == 10.0                # reached t_end
    assert 0.0 < r.t_stop[1] < 10.0           # where max_steps ended it
    assert type(r.t_stop.base).__name__ == "PyCapsule" and not r.t_stop.flags.owndata  # a view, as status


def test_max_step_bounds_the_steps(decay):
    kw = dict(t_span=(0, 10), method="dopri5", counters=True, backend="cpu", **quiet())
    free = batchode.solve_ivp(decay, parameters={"k": [0.5]}, **kw)
    bounded = batchode.solve_ivp(decay, parameters={"k": [0.5]}, max_step=0.1, **kw)
    assert free.counters["accepted_steps"][0] < 50
    assert bounded.counters["accepted_steps"][0] >= 100   # 10 / 0.1
    numpy.testing.assert_allclose(bounded.final_state[0, 0], math.exp(-5.0), rtol=1e-5)
    again = batchode.Solver(decay, max_step=0.1, **kw).solve(parameters={"k": [0.5]})
    numpy.testing.assert_array_equal(again.counters, bounded.counters)


# --- no copies ------------------------------------------------------------------------------------

def test_results_are_views_of_batchode_memory(lorenz):
    r = batchode.solve_ivp(lorenz, t_span=(0, 0.1), parameters={"rho": sweep(16)}, save_every=0.05, backend="cpu",
                           **quiet())
    for array in (r.final_state, r.state, r.status):
        assert not array.flags.owndata
        assert type(array.base).__name__ == "PyCapsule"
    assert r.final_state.flags.c_contiguous and r.final_state.flags.writeable


def test_results_outlive_the_solver(lorenz):
    s = batchode.Solver(lorenz, t_span=(0, 0.1), backend="cpu", **quiet())
    r = s.solve(parameters={"rho": sweep(8)})
    expected = r.final_state.copy()
    del s, r.parameters
    final = r.final_state
    del r
    numpy.testing.assert_array_equal(final, expected)


def conversions():
    return batchode.time_logger.stats("python_input_conversion")["count"]


def test_inputs_of_the_right_layout_are_not_copied(lorenz):
    y0 = numpy.ones((32, 3))
    p = numpy.linspace(0, 21, 32).reshape(32, 1)
    before = conversions()
    r = batchode.solve_ivp(lorenz, t_span=(0, 0.1), y0=y0, parameters=p, backend="cpu", verbosity="default")
    assert r.y0 is y0 and r.parameters is p
    assert conversions() == before


def test_other_layouts_are_converted_once_and_timed(lorenz):
    y0 = numpy.ones((3, 32)).T  # Fortran order
    p = numpy.linspace(0, 21, 32, dtype=numpy.float32).reshape(32, 1)
    before = conversions()
    r = batchode.solve_ivp(lorenz, t_span=(0, 0.1), y0=y0, parameters=p, backend="cpu", verbosity="default")
    assert r.y0 is not y0 and r.y0.flags.c_contiguous
    assert conversions() == before + 2
    reference = batchode.solve_ivp(lorenz, t_span=(0, 0.1), y0=numpy.ascontiguousarray(y0),
                                   parameters=p.astype(numpy.float64), backend="cpu", **quiet())
    numpy.testing.assert_array_equal(r.final_state, reference.final_state)


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("y0, message", [
    (numpy.ones((4, 2)), r"y0 has shape \(4, 2\); the model needs \(n_runs, 3\)"),
    (numpy.ones((2, 3, 1)), r"shape \(2, 3, 1\)"),
    (numpy.array([["a", "b", "c"]]), "dtype"),
    (numpy.ones(5), r"y0 has shape \(5,\)"),
])
def test_wrong_shapes_and_dtypes_are_named(lorenz, y0, message):
    params = None if numpy.ndim(y0) == 1 else numpy.ones((numpy.shape(y0)[0], 1))
    with pytest.raises(ValueError, match=message):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0=y0, parameters=params, backend="cpu", **quiet())


def test_run_counts_must_agree(lorenz):
    with pytest.raises(ValueError, match="y0 has 4 runs but parameters has 5"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0=numpy.ones((4, 3)), parameters=numpy.ones((5, 1)), **quiet())


def test_nan_inputs_name_the_run(lorenz):
    y0 = numpy.ones((8, 3))
    y0[5, 2] = numpy.nan
    with pytest.raises(ValueError, match="run 5"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0=y0, parameters=numpy.ones((8, 1)), backend="cpu", **quiet())
    with pytest.raises(ValueError, match=r"parameter rho \(run 1\) is NaN"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), parameters={"rho": [1.0, numpy.nan]}, **quiet())


@pytest.mark.parametrize("inputs, message", [
    # Issue 44 item 12: these were "GridBuilder: axis 'w' value 0 is not finite" (the cast's inf, an
    # axis index) or, per run, "initial value of run 0 (index 0) is inf".
    (dict(parameters={"w": [1e39]}), r"^parameter w = 1e\+39 \(run 0\) does not fit float32 \(largest 3.4028235e\+38\)$"),
    (dict(y0={"x": 1e300}), r"^state x = 1e\+300 does not fit float32"),
    (dict(y0=[1e300, 0.0]), r"^state x = 1e\+300 does not fit float32"),
    # The run is the first that takes the value: the first axis slowest, states' axes before parameters'.
    (dict(y0={"x": [1.0, -1e39]}, parameters={"w": [1.0, 2.0, 3.0]}), r"^state x = -1e\+39 \(run 3\)"),
    (dict(y0={"x": [1.0, 2.0]}, parameters={"w": [1.0, 2.0, 1e39]}), r"^parameter w = 1e\+39 \(run 2\)"),
    (dict(y0={"x": [1.0, 2.0]}, parameters={"w": [1.0, 1e39]}, grid_type="verbatim"), r"\(run 1\)"),
    (dict(parameters={"w": [1.0, math.nan]}), r"^parameter w \(run 1\) is NaN$"),
    (dict(y0=numpy.zeros((3, 2)), parameters=numpy.array([[1.0], [2.0], [5e38]])),
     r"^parameter w = 5e\+38 \(run 2\) does not fit float32"),
    (dict(y0=[0.0, 1e39], parameters=numpy.ones((2, 1))), r"^state v = 1e\+39 \(run 0\) does not fit float32"),
])
def test_values_float32_cannot_hold_are_named_as_given(oscillator, inputs, message):
    with pytest.raises(ValueError, match=message):
        batchode.solve_ivp(oscillator, t_span=(0, 1), precision="float32", backend="cpu", **inputs, **quiet())


def test_empty_batch_is_refused(lorenz):
    with pytest.raises(ValueError, match="empty"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0=numpy.ones((0, 3)), parameters=numpy.ones((0, 1)), **quiet())
    with pytest.raises(ValueError, match="no values"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), parameters={"rho": []}, **quiet())


def test_unknown_names_are_named(lorenz):
    with pytest.raises(ValueError, match="no parameter named 'sigma'"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), parameters={"sigma": [1.0]}, **quiet())
    with pytest.raises(ValueError, match="no state named 'w'"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0={"w": 1.0}, **quiet())


def test_dicts_do_not_mix_with_rows(lorenz):
    with pytest.raises(ValueError, match="a dict builds a grid"):
        batchode.solve_ivp(lorenz, t_span=(0, 1), y0=numpy.ones((2, 3)), parameters={"rho": [1.0, 2.0]}, **quiet())


@pytest.mark.parametrize("options, error, message", [
    (dict(method="nope"), ValueError, "nope"),
    (dict(method="rk4"), ValueError, "dt"),
    (dict(precision="float16"), ValueError, "float16"),
    (dict(backend="tpu"), ValueError, "tpu"),
    (dict(verbosity="loud"), ValueError, "loud"),
    (dict(rtol=-1.0), ValueError, "rtol"),
    (dict(rtol="tight"), TypeError, "rtol"),
    (dict(grid_type="diagonal"), ValueError, "diagonal"),
    (dict(run_order="sorted"), ValueError, "sorted"),
    (dict(save_every=0.0), ValueError, "save_every"),
    (dict(save_at=[0.5, 0.25]), ValueError, r"save_at must be strictly increasing: save_at\[1\] = 0.25"),
    (dict(save_at=[0.5, 2.0]), ValueError, r"save_at\[1\] = 2 is outside the span \[0, 1\]"),
    (dict(save_at=[[[0.5]]]), ValueError, "save_at must be a 1-D sequence"),
    (dict(save_at=[[0.5], [0.6]]), ValueError, "save_at_per_run holds the save times of 2 runs .* the batch has 1"),
    (dict(save_at=[[0.5, 0.25]]), ValueError, r"strictly increasing \(each run's times\): save_at_per_run\[0\]\[1\]"),
    (dict(save_at=[[0.5]], t_eval=[0.5]), ValueError, "t_eval is one list for all"),
    (dict(save_at=numpy.zeros((1, 0))), ValueError, "at least one run and one time"),
    (dict(save_at=[0.5], t_eval=[0.6]), ValueError, "t_eval"),
    (dict(save_at=[0.5], save_every=0.1), ValueError, "save_every and save_at are both set"),
    (dict(save_mode="landing"), ValueError, "unknown save mode 'landing'"),
    (dict(max_steps=0), ValueError, "max_steps"),
    (dict(max_steps=None), TypeError, "max_steps"),
    (dict(cpu_threads=-1), ValueError, "cpu_threads"),
    (dict(chunks=2.5), TypeError, "chunks"),
    (dict(split_runs=1), TypeError, "split_runs must be True or False"),
    (dict(method="RK45", algorithm="tsit5"), ValueError, "algorithm"),
    (dict(max_step=0.0), ValueError, r"^max_step \(0\) must be positive"),
    (dict(max_step=-1.0), ValueError, r"^max_step \(-1\) must be positive"),
    (dict(max_step=math.nan), ValueError, r"^max_step \(nan\) must be positive"),
    (dict(max_step="small"), TypeError, "max_step must be a number"),
])
def test_bad_options_are_named(decay, options, error, message):
    with pytest.raises(error, match=message):
        batchode.solve_ivp(decay, t_span=(0, 1), parameters={"k": [1.0]}, **options)


def test_spans_are_checked(decay):
    with pytest.raises(ValueError, match="t_span"):
        batchode.solve_ivp(decay, t_span=(0, 1), duration=2.0)
    with pytest.raises(ValueError, match="give the span"):
        batchode.solve_ivp(decay)
    with pytest.raises(ValueError, match="t_end"):
        batchode.solve_ivp(decay, t_span=(1.0, 0.0))
    with pytest.raises(ValueError, match="pair"):
        batchode.solve_ivp(decay, t_span=1.0)


def test_model_must_be_a_model():
    with pytest.raises(TypeError, match="batchode.Model"):
        batchode.solve_ivp("lorenz.toml", t_span=(0, 1))


def test_to_xarray_names_every_axis(oscillator):
    xarray = pytest.importorskip("xarray", reason="xarray is not installed here (Result.to_xarray needs it)")
    r = batchode.solve_ivp(oscillator, t_span=(0, 1), parameters={"w": [1.0, 2.0]}, save_every=0.5, backend="cpu",
                           **quiet())
    ds = r.to_xarray()
    assert isinstance(ds, xarray.Dataset)
    assert ds["state"].dims == ("run", "time", "variable")
    numpy.testing.assert_array_equal(ds["w"].values, [1.0, 2.0])
    numpy.testing.assert_array_equal(ds["final_state"].sel(variable="x").values, r.final_state[:, 0])
    numpy.testing.assert_array_equal(ds["t_stop"].values, r.t_stop)
