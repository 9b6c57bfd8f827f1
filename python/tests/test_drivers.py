"""Drivers (issue 11): time-varying inputs a model reads by name (Model(drivers=[...]) or a model file's
[drivers]), given when solving in CuBIE's form, drivers={"u": samples, "dt": h or "time": times, "order":
1 | 3, "wrap": bool}, shared (1-D) or per run (2-D). y' = -a y + b u with u sampled from sin(w t) has
a closed form; the solutions approach it at the interpolation's order, per-run samples are each run's
own, the model file's samples serve when none are given, and bad drivers are named."""

import math

import numpy
import pytest

import batchode
from conftest import gpu_reason, quiet

SPAN = (0.0, 5.0)
T_SAVE = numpy.linspace(0.0, 5.0, 21)


@pytest.fixture(scope="module")
def forced():
    return batchode.Model(equations="dy = -a * y + b * u", states={"y": 1.0}, parameters={"a": 0.5, "b": 1.0},
                          drivers=["u"], name="forced_decay")


def exact(t, a, b, w, y0=1.0):
    """y' = -a y + b sin(w t), y(0) = y0."""
    c = b / (a * a + w * w)
    return (y0 + c * w) * numpy.exp(-a * t) + c * (a * numpy.sin(w * t) - w * numpy.cos(w * t))


def sine(h, w=1.3):
    return numpy.sin(w * numpy.arange(0.0, SPAN[1] + h / 2, h))


def solve(model, drivers, **options):
    settings = dict(t_span=SPAN, method="dopri5", rtol=1e-11, atol=1e-11, backend="cpu", save_every=0.25)
    settings.update(options)
    return batchode.solve_ivp(model, drivers=drivers, **settings, **quiet())


def test_model_names_its_drivers(forced):
    assert forced.driver_names == ["u"]


@pytest.mark.parametrize("order,rate", [(1, 4.0), (3, 16.0)])
def test_the_error_falls_at_the_interpolations_order(forced, order, rate):
    errors = []
    for h in (0.2, 0.1, 0.05):
        r = solve(forced, {"u": sine(h), "dt": h, "order": order, "end": "not-a-knot"})
        errors.append(numpy.max(numpy.abs(r.state[0, :, 0] - exact(r.t, 0.5, 1.0, 1.3))))
    # Halving the spacing divides the error by ~2^2 (linear) or ~2^4 (cubic).
    assert errors[0] / errors[1] > 0.75 * rate and errors[1] / errors[2] > 0.75 * rate, errors
    # The interpolation's own error bounds the solution's (b max|u - sin| / a): w^2 h^2 / 8 linear.
    assert errors[-1] < (2 * 1.3 ** 2 * 0.05 ** 2 / 8 if order == 1 else 1e-6)


def test_samples_at_given_times_and_per_run_sets(forced):
    # Each run's own signal sin(w_r t), at uneven times: each run near its own closed form, and equal
    # to the same run solved alone.
    times = numpy.unique(numpy.concatenate([numpy.linspace(0.0, 5.0, 160), [0.013, 2.71]]))
    w = numpy.array([0.8, 1.3, 2.1])
    samples = numpy.sin(numpy.outer(w, times))
    r = solve(forced, {"u": samples, "time": times, "order": 3, "end": "not-a-knot"},
              parameters={"a": [0.5, 0.5, 0.5]}, grid_type="verbatim")
    for i in range(3):
        assert numpy.max(numpy.abs(r.state[i, :, 0] - exact(r.t, 0.5, 1.0, w[i]))) < 1e-5
        alone = solve(forced, {"u": samples[i], "time": times, "order": 3, "end": "not-a-knot"})
        numpy.testing.assert_array_equal(alone.state[0], r.state[i])


def test_the_model_files_samples_serve_when_none_are_given():
    model = batchode.Model.from_toml("""
name = "step_response"
equations = "dy = -y + u"
[states]
y = 0.0
[drivers]
u = { times = [0.0, 1.0, 1.0000001, 5.0], values = [0.0, 0.0, 1.0, 1.0] }
""")
    r = batchode.solve_ivp(model, t_span=SPAN, method="dopri5", rtol=1e-10, atol=1e-12, backend="cpu",
                           save_at=[0.5, 1.0, 3.0, 5.0], **quiet())
    # A step at t = 1 (linear across 1e-7): y = 1 - e^-(t - 1) after it, to the ramp's width.
    expected = [0.0, 0.0, 1 - math.exp(-2.0), 1 - math.exp(-4.0)]
    numpy.testing.assert_allclose(r.state[0, :, 0], expected, atol=1e-6)


def test_bad_drivers_are_named(forced):
    with pytest.raises(ValueError, match=r"no samples for driver 'u' \(the model's drivers: u\)"):
        solve(forced, None)
    with pytest.raises(ValueError, match="give the samples' 'dt'"):
        solve(forced, {"u": sine(0.1)})
    with pytest.raises(ValueError, match=r"drivers\['u'\]: values\[3\] = nan is not finite"):
        u = sine(0.1)
        u[3] = math.nan
        solve(forced, {"u": u, "dt": 0.1})
    with pytest.raises(ValueError, match="shorter than the solve's span"):
        solve(forced, {"u": sine(0.1)[:20], "dt": 0.1})
    with pytest.raises(ValueError, match=r"samples for 2 runs \(one set per run\) but the batch has 3"):
        solve(forced, {"u": numpy.vstack([sine(0.1)] * 2), "dt": 0.1}, parameters={"a": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match=r"no driver named 'w' \(the model's drivers: u\)"):
        solve(forced, {"w": sine(0.1), "dt": 0.1})
    with pytest.raises(ValueError, match="'time' \\(or 'times'\\), not both"):
        solve(forced, {"u": sine(0.1), "time": numpy.arange(0.0, 5.05, 0.1), "times": [0.0, 5.0]})
    with pytest.raises(TypeError, match="order"):
        solve(forced, {"u": sine(0.1), "dt": 0.1, "order": "cubic"})


def test_a_name_that_is_not_a_driver_is_named_not_counted(forced, decay):
    # Issue 44 item 13: a misspelt driver beside the samples' dt was "the system reads 1 driver (u) but
    # SolveOptions.drivers gives 2".
    with pytest.raises(ValueError, match=r"^no driver named 'g' \(the model's drivers: u\)$"):
        solve(forced, {"g": sine(0.5), "dt": 0.5})
    with pytest.raises(ValueError, match=r"^no driver named 'g' \(the model reads no drivers\)$"):
        solve(decay, {"g": sine(0.5), "dt": 0.5})


def test_gpu_equals_cpu_run_by_run(forced):
    reason = gpu_reason(forced)
    if reason:
        pytest.skip(f"no GPU here: {reason}")
    w = numpy.linspace(0.5, 2.0, 1000)
    drivers = {"u": numpy.sin(numpy.outer(w, numpy.arange(0.0, 5.05, 0.1))), "dt": 0.1, "order": 3}
    p = {"a": numpy.linspace(0.2, 1.0, 1000)}
    cpu = solve(forced, drivers, parameters=p, grid_type="verbatim", rtol=1e-10, atol=1e-10)
    gpu = solve(forced, drivers, parameters=p, grid_type="verbatim", rtol=1e-10, atol=1e-10, backend="gpu")
    numpy.testing.assert_allclose(gpu.state, cpu.state, rtol=0, atol=1e-8)
