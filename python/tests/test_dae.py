"""Differential-algebraic models (issue 47): algebraic variables given as `algebraic={name: guess}` with
one `0 = ...` line each, solved by the methods built for a mass matrix (rodas4, rodas5p, radau5) from a
guess made consistent at t0. Checked against independent references: scipy's Radau on the equivalent ODE (Robertson,
whose conservation law is the algebraic equation) and on the reduced ODE of a quasi-steady Brusselator
(v solved from its linear algebraic equations at every evaluation); the GPU against the CPU run by run."""

import math

import numpy
import pytest

import batchode

from conftest import gpu_reason, quiet

scipy_integrate = pytest.importorskip("scipy.integrate")

K = {"k1": 0.04, "k2": 3e7, "k3": 1e4}


def robertson_dae():
    return batchode.Model(
        equations="dy1 = -k1 * y1 + k3 * y2 * y3\n"
                  "dy2 = k1 * y1 - k3 * y2 * y3 - k2 * y2^2\n"
                  "0 = y1 + y2 + y3 - 1",
        states={"y1": 1.0, "y2": 0.0}, algebraic={"y3": 0.5}, parameters=K, name="robertson_dae")


def robertson_reference(k3, t_eval):
    def f(_t, y):
        r1, r2, r3 = K["k1"] * y[0], K["k2"] * y[1] ** 2, k3 * y[1] * y[2]
        return [-r1 + r3, r1 - r2 - r3, r2]

    sol = scipy_integrate.solve_ivp(f, (0.0, t_eval[-1]), [1.0, 0.0, 0.0], method="Radau", t_eval=t_eval,
                                    rtol=1e-12, atol=1e-16)
    assert sol.success
    return sol.y.T


def test_model_names_its_algebraic_variables_last():
    m = robertson_dae()
    assert m.n_states == 3 and m.n_algebraic == 1
    assert list(m.state_names) == ["y1", "y2", "y3"]
    assert list(m.algebraic_names) == ["y3"]


@pytest.mark.parametrize("method", ["rodas4", "rodas5p", "radau5", "rodas4p2"])
def test_robertson_dae_matches_scipy_radau_on_the_ode(method):
    k3 = numpy.array([5e3, 1e4, 2e4])
    t_eval = numpy.array([0.0, 0.4, 4.0, 40.0])
    rtol, atol = 1e-7, 1e-11
    r = batchode.solve_ivp(robertson_dae(), t_span=(0.0, 40.0), parameters={"k3": k3}, method=method, rtol=rtol,
                           atol=atol, save_at=t_eval, backend="cpu", **quiet())
    assert r.success.all(), r.status
    assert r.state[:, 0, 2].tolist() == [0.0, 0.0, 0.0]  # the guess 0.5 made consistent at t0
    for run, k in enumerate(k3):
        ref = robertson_reference(k, t_eval)
        err = numpy.abs(r.state[run] - ref) / (atol + rtol * numpy.abs(ref))
        assert err.max() < 50, (method, k, err.max())
    numpy.testing.assert_allclose(r.state.sum(axis=2), 1.0, rtol=0, atol=1e-14)


def test_explicit_methods_are_refused_naming_the_algebraic_variable():
    with pytest.raises(ValueError, match=r"method dopri5 cannot solve .*algebraic states \(y3.*rodas4, rodas5p"):
        batchode.solve_ivp(robertson_dae(), t_span=(0.0, 1.0), method="dopri5", backend="cpu", **quiet())


def test_a_run_without_a_consistent_start_ends_at_t0_with_its_status():
    m = batchode.Model(equations="dx = -x\n0 = z^2 + c", states={"x": 1.0}, algebraic={"z": 1.0},
                       parameters={"c": 1.0}, name="no_real_root")
    r = batchode.solve_ivp(m, t_span=(0.0, 1.0), parameters={"c": numpy.array([1.0, -4.0])}, method="rodas4",
                           save_every=0.5, backend="cpu", **quiet())
    assert r.status.tolist() == [batchode.Status.inconsistent_initial_values, batchode.Status.success]
    assert r.t_stop[0] == 0.0 and numpy.isnan(r.state[0]).all()
    assert r.state[1, -1, 1] == pytest.approx(2.0, abs=1e-12)


M = 6  # grid points of the quasi-steady Brusselator: u1..uM differential, v1..vM algebraic


def quasi_steady_bruss():
    c = (M + 1) ** 2 / 50.0
    lines, states, algebraic = [], {}, {}
    for i in range(1, M + 1):
        ul, ur = ("1.0" if i == 1 else f"u{i - 1}"), ("1.0" if i == M else f"u{i + 1}")
        vl, vr = ("3.0" if i == 1 else f"v{i - 1}"), ("3.0" if i == M else f"v{i + 1}")
        lines.append(f"du{i} = A + u{i} * u{i} * v{i} - 4.0 * u{i} + {c!r} * ({ul} - 2.0 * u{i} + {ur})")
        lines.append(f"0 = 3.0 * u{i} - u{i} * u{i} * v{i} + {c!r} * ({vl} - 2.0 * v{i} + {vr})")
        states[f"u{i}"] = 1 + math.sin(2 * math.pi * i / (M + 1))
        algebraic[f"v{i}"] = 3.0
    return batchode.Model(equations="\n".join(lines), states=states, algebraic=algebraic,
                          parameters={"A": 1.0}, name="qs_bruss")


def quasi_steady_reference(a, t_end):
    """v from its linear equations (-u^2 v + c (v_{i-1} - 2 v_i + v_{i+1}) = -3 u, v_0 = v_{M+1} = 3) at
    every evaluation, then scipy's Radau on u alone."""
    c = (M + 1) ** 2 / 50.0
    lap = c * (numpy.diag(-2.0 * numpy.ones(M)) + numpy.diag(numpy.ones(M - 1), 1) + numpy.diag(numpy.ones(M - 1), -1))

    def v_of(u):
        rhs = -3.0 * u
        rhs[0] -= c * 3.0
        rhs[-1] -= c * 3.0
        return numpy.linalg.solve(lap - numpy.diag(u * u), rhs)

    def f(_t, u):
        v = v_of(u)
        ue = numpy.concatenate(([1.0], u, [1.0]))
        return a + u * u * v - 4.0 * u + c * (ue[:-2] - 2.0 * u + ue[2:])

    u0 = numpy.array([1 + math.sin(2 * math.pi * i / (M + 1)) for i in range(1, M + 1)])
    sol = scipy_integrate.solve_ivp(f, (0.0, t_end), u0, method="Radau", rtol=1e-12, atol=1e-14)
    assert sol.success
    u = sol.y[:, -1]
    return u, v_of(u)


@pytest.mark.parametrize("method", ["rodas4", "rodas5p", "radau5", "rodas4p2"])
def test_quasi_steady_brusselator_matches_its_reduced_ode(method):
    a = numpy.array([0.9, 1.2])
    rtol = atol = 1e-8
    r = batchode.solve_ivp(quasi_steady_bruss(), t_span=(0.0, 2.0), parameters={"A": a}, method=method, rtol=rtol,
                           atol=atol, backend="cpu", **quiet())
    assert r.success.all(), r.status
    for run, value in enumerate(a):
        u, v = quasi_steady_reference(value, 2.0)
        ref = numpy.empty(2 * M)
        ref[:M], ref[M:] = u, v  # states: u1..uM, then the algebraic v1..vM
        err = numpy.abs(r.final_state[run] - ref) / (atol + rtol * numpy.abs(ref))
        assert err.max() < 50, (method, value, err.max())


@pytest.mark.parametrize("method", ["rodas5p", "radau5", "rodas4p2"])
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_gpu_matches_cpu_run_by_run(precision, method):
    model = robertson_dae()
    reason = gpu_reason(model, method, precision)
    if reason:
        pytest.skip(reason)
    k3 = numpy.linspace(5e3, 2e4, 512)
    rtol, atol = (1e-6, 1e-10) if precision == "float64" else (1e-4, 1e-8)
    common = dict(t_span=(0.0, 40.0), parameters={"k3": k3}, method=method, rtol=rtol, atol=atol,
                  save_every=10.0, precision=precision, **quiet())
    cpu = batchode.solve_ivp(model, backend="cpu", **common)
    gpu = batchode.solve_ivp(model, backend="gpu", **common)
    assert cpu.success.all() and gpu.success.all()
    numpy.testing.assert_allclose(gpu.state, cpu.state, rtol=50 * rtol, atol=50 * atol)
