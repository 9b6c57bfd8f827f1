"""Where a solve runs and how it stops: the automatic backend's record, GpuUnavailable, the GIL
released during a solve, Ctrl-C, and (where a GPU can run) GPU against CPU run by run."""

import os
import signal
import threading
import time

import numpy
import pytest

import batchode
from conftest import gpu_reason, quiet, sweep


def test_automatic_backend_says_where_and_why(lorenz):
    r = batchode.solve_ivp(lorenz, t_span=(0, 0.1), parameters={"rho": sweep(64)}, backend="auto", **quiet())
    assert r.execution, "every solve has an execution record"
    assert sum(part["runs"] for part in r.execution) == 64
    for part in r.execution:  # a CPU part names its instruction set for blocks of runs, a GPU part none
        assert (part["instruction_set"] in ("avx512", "avx2", "baseline", "off")) == (part["backend"] == "cpu")
    reason = gpu_reason(lorenz)
    if reason:
        assert r.backends == ["cpu"]
        assert r.execution[0]["reason"] == "gpu_unavailable"
        print(f"no GPU here ({reason}): ran on the CPU, reason gpu_unavailable")
    else:
        assert {part["reason"] for part in r.execution} <= {"gpu_available", "cost_model", "memory_constraint"}


def test_backend_gpu_without_a_gpu_raises(lorenz):
    reason = gpu_reason(lorenz)
    if not reason:
        pytest.skip("a GPU can run here: GpuUnavailable cannot be provoked")
    with pytest.raises(batchode.GpuUnavailable):
        batchode.solve_ivp(lorenz, t_span=(0, 0.1), parameters={"rho": sweep(4)}, backend="gpu", **quiet())


def long_solve(lorenz, runs=1 << 16):
    """Seconds of work on the CPU: 10^5 RK4 steps per run."""
    return batchode.Solver(lorenz, method="rk4", dt=1e-4, t_span=(0.0, 10.0), backend="cpu", **quiet()), \
        {"rho": sweep(runs)}


def timed_solve(lorenz, seconds):
    """long_solve with as many runs as take about `seconds` here: the model's speed varies 20-fold with
    the flags it is compiled with (CI's BATCHODE_MODEL_CXXFLAGS=-O0), and a fixed batch that lasts one
    second at -O3 lasted 40 there."""
    solver, probe = long_solve(lorenz, runs=16)
    solver.solve(parameters=probe)  # compiled and warm
    start = time.perf_counter()
    solver.solve(parameters=probe)
    per_run = (time.perf_counter() - start) / 16
    runs = int(min(max(seconds / max(per_run, 1e-9), 16), 1 << 16))
    return solver, {"rho": sweep(runs)}


def test_the_gil_is_released_while_solving(lorenz):
    solver, params = timed_solve(lorenz, seconds=1.0)
    ticks = 0
    done = threading.Event()

    def solve():
        solver.solve(parameters=params)
        done.set()

    worker = threading.Thread(target=solve)
    start = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - start
    assert elapsed > 0.2, "the solve was too short to tell"
    # Holding the GIL, the solve would let this loop run once or twice; released, it runs about every
    # millisecond (every few on a loaded machine).
    assert ticks >= 20, f"the main thread ran {ticks} times in {elapsed:.2f} s"


def test_ctrl_c_stops_a_solve_between_blocks(lorenz):
    solver, params = long_solve(lorenz)
    solver.solve(parameters={"rho": sweep(4)})  # compiled and warm: the signal lands mid-solve
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solver.solve(parameters=params)  # about a minute of work on two cores
    elapsed = time.perf_counter() - start
    timer.join()
    assert 0.4 < elapsed < 10.0, f"the solve took {elapsed:.1f} s to stop"
    # The same solver is intact: a short solve after the interruption succeeds.
    r = solver.solve(parameters={"rho": sweep(4)})
    assert r.success.all()


def test_ctrl_c_stops_one_long_run_at_once(lorenz):
    """Issue 44 item 10: a run read the stop request only between blocks of runs, so Ctrl-C during one
    long run raised KeyboardInterrupt when the run ended (16.2 s after it, for a 16.1 s solve). Each
    run now reads it every 1024 steps: well under a second after the signal, however long the run."""
    options = dict(method="dopri5", rtol=1e-12, atol=1e-12, max_steps=2**32 - 1, backend="cpu", **quiet())
    batchode.solve_ivp(lorenz, t_span=(0.0, 1.0), parameters={"rho": [28.0]}, **options)  # compiled and warm
    # Minutes of work at 1e-12 (the solution chaotic all along): far longer than the signal's bound.
    solver = batchode.Solver(lorenz, t_span=(0.0, 3e5), **options)
    signalled = []

    def interrupt():
        signalled.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solver.solve(parameters={"rho": [28.0]})
    stopped = time.perf_counter()
    timer.join()
    assert stopped - signalled[0] < 2.0, f"KeyboardInterrupt came {stopped - signalled[0]:.1f} s after the signal"
    # The same solver solves again: from the origin, a fixed point, the steps grow to the span at once.
    r = solver.solve(y0={"x": 0.0, "y": 0.0, "z": 0.0}, parameters={"rho": [28.0]})
    assert r.success.all() and r.t_stop[0] == 3e5


def test_two_threads_solve_at_once_with_their_own_solvers(lorenz):
    """At the default level each solve prints its timing table from its work thread: the table must
    not wait for the GIL while the logger is locked (another thread may hold the GIL and want the
    logger)."""
    results, errors = {}, []

    def solve(k):
        try:
            for _ in range(5):
                results[k] = batchode.solve_ivp(lorenz, t_span=(0, 0.2), parameters={"rho": sweep(256)},
                                                backend="cpu", verbosity="default")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=solve, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "the threads hung"
    assert not errors, errors
    numpy.testing.assert_array_equal(results[0].final_state, results[1].final_state)


def test_one_solver_refuses_a_second_thread(lorenz):
    solver, params = timed_solve(lorenz, seconds=1.0)  # still solving when the second thread tries
    outcome = []

    def second():
        time.sleep(0.1)
        try:
            solver.solve(parameters={"rho": sweep(4)})
            outcome.append("solved")
        except RuntimeError as e:
            outcome.append(str(e))

    t = threading.Thread(target=second)
    t.start()
    solver.solve(parameters=params)
    t.join()
    assert outcome and "another thread" in outcome[0], outcome


# --- the GPU, where one can run (skipped with the reason elsewhere) --------------------------------

@pytest.mark.parametrize("method, precision, tolerance", [
    ("rk4", "float64", 1e-12), ("dopri5", "float64", 1e-9), ("rodas4", "float64", 1e-9),
    ("rk4", "float32", 2e-4), ("tsit5", "float32", 2e-3),
])
def test_gpu_equals_cpu_run_by_run(lorenz, method, precision, tolerance):
    reason = gpu_reason(lorenz, method, precision)
    if reason:
        pytest.skip(f"no GPU can run {method} here: {reason}")
    options = dict(t_span=(0.0, 1.0), parameters={"rho": sweep(4096)}, method=method, dt=1e-3 if method == "rk4" else None,
                   rtol=1e-8 if precision == "float64" else 1e-5, atol=1e-8 if precision == "float64" else 1e-5,
                   precision=precision, **quiet())
    gpu = batchode.solve_ivp(lorenz, backend="gpu", **options)
    cpu = batchode.solve_ivp(lorenz, backend="cpu", **options)
    assert gpu.backends == ["gpu:0"] and cpu.backends == ["cpu"]
    numpy.testing.assert_array_equal(gpu.status, cpu.status)
    scale = numpy.maximum(1.0, numpy.abs(cpu.final_state))
    assert (numpy.abs(gpu.final_state - cpu.final_state) / scale).max() < tolerance


def test_gpu_results_are_views_too(lorenz):
    reason = gpu_reason(lorenz)
    if reason:
        pytest.skip(f"no GPU here: {reason}")
    r = batchode.solve_ivp(lorenz, t_span=(0, 0.1), parameters={"rho": sweep(1 << 16)}, backend="gpu", **quiet())
    assert type(r.final_state.base).__name__ == "PyCapsule" and not r.final_state.flags.owndata


def test_ctrl_c_stops_a_gpu_solve(lorenz):
    reason = gpu_reason(lorenz, "rk4")
    if reason:
        pytest.skip(f"no GPU here: {reason}")
    # 16 chunks of a few tenths of a second each (10^6 steps per run): the stop lands between two.
    solver = batchode.Solver(lorenz, method="rk4", dt=1e-4, t_span=(0.0, 100.0), backend="gpu", chunks=16,
                             **quiet())
    solver.solve(parameters={"rho": sweep(64)})  # compiled and warm: the signal lands mid-solve
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solver.solve(parameters={"rho": sweep(1 << 22)})
    timer.join()
    assert time.perf_counter() - start < 30.0
    assert solver.solve(parameters={"rho": sweep(64)}).success.all()
