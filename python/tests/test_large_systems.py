"""Large stiff systems (issue 13): BRUSS, the 1-D Brusselator with 32 states, whose generated code declares
its Jacobian's band, so rodas4 and rodas5p keep J and the LU in band storage. Checked against an independent
reference: scipy's Radau (a different method and implementation) at a much tighter tolerance."""

import math

import numpy
import pytest

import batchode

from conftest import gpu_reason, quiet

scipy_integrate = pytest.importorskip("scipy.integrate")

M = 16  # grid points: 2 M states u1, v1, ..., uM, vM


def bruss_model(m=M):
    c = (m + 1) ** 2 / 50.0
    lines, states = [], {}
    for i in range(1, m + 1):
        ul, ur = ("1.0" if i == 1 else f"u{i - 1}"), ("1.0" if i == m else f"u{i + 1}")
        vl, vr = ("3.0" if i == 1 else f"v{i - 1}"), ("3.0" if i == m else f"v{i + 1}")
        lines.append(f"du{i} = A + u{i} * u{i} * v{i} - 4.0 * u{i} + {c!r} * ({ul} - 2.0 * u{i} + {ur})")
        lines.append(f"dv{i} = 3.0 * u{i} - u{i} * u{i} * v{i} + {c!r} * ({vl} - 2.0 * v{i} + {vr})")
        states[f"u{i}"] = 1 + math.sin(2 * math.pi * i / (m + 1))
        states[f"v{i}"] = 3.0
    return batchode.Model(equations="\n".join(lines), states=states, parameters={"A": 1.0}, name="py_bruss")


def bruss_rhs(a, m=M):
    c = (m + 1) ** 2 / 50.0

    def f(_t, y):
        u, v = y[0::2], y[1::2]
        ue = numpy.concatenate(([1.0], u, [1.0]))
        ve = numpy.concatenate(([3.0], v, [3.0]))
        out = numpy.empty_like(y)
        out[0::2] = a + u * u * v - 4.0 * u + c * (ue[:-2] - 2.0 * u + ue[2:])
        out[1::2] = 3.0 * u - u * u * v + c * (ve[:-2] - 2.0 * v + ve[2:])
        return out

    return f


@pytest.fixture(scope="module")
def bruss():
    return bruss_model()


@pytest.mark.parametrize("method", ["rodas4", "rodas5p"])
def test_bruss_in_band_storage_matches_scipy_radau(bruss, method):
    a = numpy.array([0.9, 1.0, 1.1, 1.3])
    rtol = atol = 1e-8
    r = batchode.solve_ivp(bruss, t_span=(0.0, 1.0), parameters={"A": a}, method=method, rtol=rtol, atol=atol,
                           backend="cpu", counters=True, **quiet())
    assert r.success.all(), r.status
    y0 = numpy.asarray(bruss.default_y0, dtype=float)
    assert y0.shape == (2 * M,)
    for k, ak in enumerate(a):
        ref = scipy_integrate.solve_ivp(bruss_rhs(ak), (0.0, 1.0), y0, method="Radau", rtol=1e-12, atol=1e-14)
        assert ref.success
        err = numpy.abs(r.final_state[k] - ref.y[:, -1]) / (atol + rtol * numpy.abs(ref.y[:, -1]))
        # The global error a local tolerance gives: within 50 (atol + rtol |y|), as tests/stiff's references.
        assert err.max() <= 50, (method, ak, err.max())
        assert r.counters["accepted_steps"][k] > 10


@pytest.mark.parametrize("method", ["rodas4", "rodas5p"])
def test_bruss_gpu_agrees_with_the_cpu(bruss, method):
    why = gpu_reason(bruss, method)
    if why:
        pytest.skip(why)
    a = numpy.linspace(0.9, 1.1, 256)
    kw = dict(t_span=(0.0, 1.0), parameters={"A": a}, method=method, rtol=1e-6, atol=1e-6, **quiet())
    gpu = batchode.solve_ivp(bruss, backend="gpu", **kw)
    cpu = batchode.solve_ivp(bruss, backend="cpu", **kw)
    assert gpu.success.all() and cpu.success.all()
    numpy.testing.assert_allclose(gpu.final_state, cpu.final_state, rtol=2e-4, atol=2e-4)


def test_a_ring_written_out_splits_over_lanes_with_one_threads_bits():
    """Lorenz-96 with 64 states written out: one formula over the state's index, so on the GPU rk4's runs
    in double take 8 lanes each (split_runs, the default), the bits of one thread per run."""
    n = 64
    ring = batchode.Model(equations="\n".join(f"dx{i} = (x{(i + 1) % n} - x{(i - 2) % n}) * x{(i - 1) % n} - x{i} + F"
                                              for i in range(n)),
                          states={f"x{i}": 8.0 + (0.01 if i == 0 else 0.0) for i in range(n)},
                          parameters={"F": 8.0}, name="py_ring64")
    why = gpu_reason(ring, "rk4")
    if why:
        pytest.skip(why)
    kw = dict(t_span=(0.0, 0.5), parameters={"F": numpy.linspace(6.0, 10.0, 512)}, method="rk4", dt=1e-3,
              backend="gpu", **quiet())
    split = batchode.solve_ivp(ring, **kw)
    one = batchode.solve_ivp(ring, split_runs=False, **kw)
    assert split.success.all()
    assert numpy.array_equal(split.final_state, one.final_state)
